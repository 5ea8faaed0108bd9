cmake_minimum_required(VERSION 3.24)
# The layering of the tree, checked on its sources and build files. Run by ctest as
# `cmake -DSOURCE_DIR=... -DLINKS_FILE=... -P layering_test.cmake`; every violation is listed,
# then it fails.
#
# Product folders: dependencies point one way, bench -> loader -> {io, decode, gpu}. A stage folder
# includes only itself (and the standard or third-party headers its own library target links);
# loader/ never includes bench/.
# bench/ rooms (the README's Layout section):
#   bench/pack, bench/plan, bench/tune  the product, themselves, the packing probe (bench/pack) and
#                                       of bench/cli only the run's output and process figures
#   bench/cli                           everything but bench/micro; bench/datagen only from the
#                                       make-dataset command and the default dataset it makes
#   bench/datagen                       itself and the io/ and decode/ it writes with
#   bench/micro, bench/examples         anything (developer programs, a consumer)
# The product's libraries link nothing from bench/datagen except the commands library (for
# make-dataset), and nothing pip builds (pyproject.toml's build.targets) is a micro benchmark.
set(allowed_io io)
set(allowed_decode decode)
set(allowed_gpu gpu)
set(allowed_loader loader io decode gpu)
set(product loader io decode gpu)
set(allowed_bench/pack ${product} bench/pack)
set(allowed_bench/plan ${product} bench/plan bench/pack)
set(allowed_bench/tune ${product} bench/tune bench/pack)
set(allowed_bench/cli ${product} bench/cli bench/pack bench/plan bench/tune bench/datagen)
set(allowed_bench/datagen bench/datagen io decode)
# Single headers of a room that the rooms above may include besides.
set(shared_headers bench/cli/process_stats.h)
set(datagen_users bench/cli/make_dataset_command.cc bench/cli/default_dataset.cc)

set(violations "")
foreach(folder io decode gpu loader bench/pack bench/plan bench/tune bench/cli bench/datagen)
  file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}
       ${SOURCE_DIR}/${folder}/*.h ${SOURCE_DIR}/${folder}/*.cc ${SOURCE_DIR}/${folder}/*.cu)
  foreach(source IN LISTS sources)
    file(STRINGS ${SOURCE_DIR}/${source} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    foreach(line IN LISTS includes)
      string(REGEX MATCH "\"([^\"]+)\"" _ "${line}")
      set(header "${CMAKE_MATCH_1}")
      # The folder of a header: its first part, or its first two under bench/.
      string(REGEX MATCH "^(bench/[^/]+|[^/]+)/" _ "${header}")
      set(target_folder "${CMAKE_MATCH_1}")
      if(target_folder STREQUAL "" OR NOT IS_DIRECTORY ${SOURCE_DIR}/${target_folder})
        continue()
      endif()
      string(STRIP "${line}" line)
      if(target_folder STREQUAL "bench/datagen" AND folder STREQUAL "bench/cli"
         AND NOT source IN_LIST datagen_users)
        list(JOIN datagen_users ", " users)
        list(APPEND violations "${source}: ${line} (only ${users} include bench/datagen)")
      elseif(NOT target_folder IN_LIST allowed_${folder}
             AND NOT (folder MATCHES "^bench/" AND header IN_LIST shared_headers))
        list(JOIN allowed_${folder} ", " allowed)
        list(APPEND violations "${source}: ${line} (${folder}/ may include: ${allowed})")
      endif()
    endforeach()
  endforeach()
endforeach()

# What the product's libraries link, written by tests/CMakeLists.txt: links_<target> lists.
include(${LINKS_FILE})
foreach(target IN LISTS product_targets)
  if("feedrate_datagen" IN_LIST links_${target})
    list(APPEND violations "target ${target} links feedrate_datagen (only feedrate_commands may)")
  endif()
endforeach()
if(NOT "feedrate_pack" IN_LIST product_targets)
  list(APPEND violations "${LINKS_FILE} lists no product targets")
endif()

# pip builds pyproject.toml's build.targets: none of them may be a micro benchmark.
file(READ ${SOURCE_DIR}/pyproject.toml pyproject)
string(REGEX MATCH "build\\.targets = \\[([^]]*)\\]" _ "${pyproject}")
string(REGEX MATCHALL "\"[^\"]+\"" pip_targets "${CMAKE_MATCH_1}")
file(READ ${SOURCE_DIR}/bench/micro/CMakeLists.txt micro_cmake)
string(REGEX MATCHALL "add_executable\\(([a-z0-9_]+)" micro_targets "${micro_cmake}")
if(NOT pip_targets OR NOT micro_targets)
  list(APPEND violations "could not read pyproject.toml's build.targets (${pip_targets}) or the "
       "micro benchmarks of bench/micro/CMakeLists.txt (${micro_targets})")
endif()
foreach(entry IN LISTS micro_targets)
  string(REPLACE "add_executable(" "" micro "${entry}")
  if("\"${micro}\"" IN_LIST pip_targets)
    list(APPEND violations "pyproject.toml builds the micro benchmark ${micro}")
  endif()
endforeach()
if(micro_cmake MATCHES "install\\(")
  list(APPEND violations "bench/micro/CMakeLists.txt installs a micro benchmark")
endif()

if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "layering violations:\n  ${text}")
endif()
message(STATUS "layering: stages and bench rooms include what their rule allows; the product "
               "links no datagen but make-dataset's; pip builds no micro benchmark")
