cmake_minimum_required(VERSION 3.24)
# The layering of the tree, checked on its sources and build files. Run by ctest as
# `cmake -DSOURCE_DIR=... -DLINKS_FILE=... -P layering_test.cmake`; every violation is listed,
# then it fails.
#
# Product folders: dependencies point one way, {bench, python} -> loader -> {io, decode, gpu}. A
# stage folder includes only itself (and the standard or third-party headers its own library
# target links); decode/ also reads the public API's plain types of a sample,
# feedrate/decode_spec.h, and no other public header. The public API, include/feedrate/
# (included as "feedrate/..."), includes only itself: never a stage's header nor loader/'s, so
# that it installs alone; each of its headers is installed (loader/CMakeLists.txt's FILE_SET
# HEADERS lists exactly the headers of include/feedrate/). loader/ is rooms of one rule each:
#   loader/host       itself and the public API
#   loader/dataset    itself, host, the public API, io, decode
#   loader/cache      itself, dataset, host, the public API, io, decode: never pipeline
#   loader/diagnosis  itself, dataset, host, the public API, io, decode: never pipeline
#   loader/pipeline   every room of loader/, the public API, io, decode, gpu
# Outside the library (bench/ and the Python module, python/csrc) only the public API, the stages
# and the front-end headers below are included: never the other internals of a room. The
# front-end headers are what only the command line and the Python module use, kept in loader/'s
# rooms (not in the public API) and linked statically from feedrate_internal.
# bench/ rooms:
#   bench/pack, bench/plan, bench/tune  the product, themselves, the packing probe (bench/pack) and
#                                       of bench/cli only the run's output and process figures
#   bench/cli                           everything but bench/micro; bench/datagen only from the
#                                       make-dataset command and the default dataset it makes
#   bench/datagen                       itself and the io/ and decode/ it writes with
#   bench/micro, bench/examples         anything (developer programs, a consumer)
# The product's libraries link nothing from bench/datagen except the commands library (for
# make-dataset), and nothing pip builds (pyproject.toml's build.targets) is a micro benchmark.
#
# PLANT (tests only): "file|header", an include of `header` that the check reads as if `file` had
# it, so a test can show that a violation fails and names its rule. PLANT_API_HEADER (tests
# only): a header the check reads as if include/feedrate/ held it.
set(violations "")
set(api include/feedrate)
set(allowed_io io)
set(allowed_decode decode)
set(allowed_gpu gpu)
set(allowed_include/feedrate ${api})
# Single headers of the public API a stage may include besides its own.
set(allowed_headers_decode feedrate/decode_spec.h)
set(allowed_loader/host loader/host ${api})
set(allowed_loader/dataset loader/dataset loader/host ${api} io decode)
set(allowed_loader/cache loader/cache loader/dataset loader/host ${api} io decode)
set(allowed_loader/diagnosis loader/diagnosis loader/dataset loader/host ${api} io decode)
set(allowed_loader/pipeline loader/pipeline loader/cache loader/diagnosis loader/dataset
                            loader/host ${api} io decode gpu)
set(product ${api} io decode gpu)
set(allowed_python/csrc python/csrc ${product})
set(allowed_bench/pack ${product} bench/pack)
set(allowed_bench/plan ${product} bench/plan bench/pack)
set(allowed_bench/tune ${product} bench/tune bench/pack)
set(allowed_bench/cli ${product} bench/cli bench/pack bench/plan bench/tune bench/datagen)
set(allowed_bench/datagen bench/datagen io decode)
set(rule_loader/cache "loader/cache/ never includes loader/pipeline/")
set(rule_loader/diagnosis "loader/diagnosis/ never includes loader/pipeline/")
set(rule_include/feedrate
    "include/feedrate/ includes only include/feedrate: a public header never includes a stage's or loader/'s header")
set(front_end_folders python/csrc bench/pack bench/plan bench/tune bench/cli)
set(front_end_headers loader/dataset/dataset_reader.h loader/dataset/pack_index.h
    loader/dataset/store_probe.h loader/diagnosis/packing_probe.h loader/diagnosis/progress_line.h
    loader/diagnosis/report_document.h loader/diagnosis/shuffle_quality.h
    loader/diagnosis/throughput_model.h loader/diagnosis/verdict_text.h loader/host/system_info.h
    loader/pipeline/option_bounds.h loader/dataset/annotations/coco.h)
foreach(header IN LISTS front_end_headers)
  if(NOT EXISTS ${SOURCE_DIR}/${header})
    list(APPEND violations "${header}: a front-end header of this check that is gone")
  endif()
endforeach()
# Single headers of a room that the rooms above may include besides.
set(shared_headers bench/cli/process_stats.h)
set(datagen_users bench/cli/make_dataset_command.cc bench/cli/default_dataset.cc)

set(folders io decode gpu include/feedrate loader/host loader/dataset loader/cache
    loader/diagnosis loader/pipeline python/csrc bench/pack bench/plan bench/tune bench/cli
    bench/datagen)
set(checked 0)
foreach(folder IN LISTS folders)
  file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}
       ${SOURCE_DIR}/${folder}/*.h ${SOURCE_DIR}/${folder}/*.cc ${SOURCE_DIR}/${folder}/*.cu)
  if(NOT sources)
    list(APPEND violations "${folder}/ has no sources: the rules above name a folder that is gone")
  endif()
  foreach(source IN LISTS sources)
    file(STRINGS ${SOURCE_DIR}/${source} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    if(DEFINED PLANT)
      string(REPLACE "|" ";" plant "${PLANT}")
      list(GET plant 0 plant_file)
      list(GET plant 1 plant_header)
      if(source STREQUAL plant_file)
        list(APPEND includes "#include \"${plant_header}\"")
      endif()
    endif()
    foreach(line IN LISTS includes)
      math(EXPR checked "${checked} + 1")
      string(REGEX MATCH "\"([^\"]+)\"" _ "${line}")
      set(header "${CMAKE_MATCH_1}")
      # The folder of a header: the public API for "feedrate/...", the first two parts under
      # bench/, loader/ and python/, else the first part.
      if(header MATCHES "^feedrate/")
        set(target_folder ${api})
      else()
        string(REGEX MATCH "^((bench|loader|python)/[^/]+|[^/]+)/" _ "${header}")
        set(target_folder "${CMAKE_MATCH_1}")
      endif()
      if(target_folder STREQUAL "" OR NOT IS_DIRECTORY ${SOURCE_DIR}/${target_folder})
        continue()
      endif()
      string(STRIP "${line}" line)
      if(target_folder STREQUAL "bench/datagen" AND folder STREQUAL "bench/cli"
         AND NOT source IN_LIST datagen_users)
        list(JOIN datagen_users ", " users)
        list(APPEND violations "${source}: ${line} (only ${users} include bench/datagen)")
      elseif(NOT target_folder IN_LIST allowed_${folder}
             AND NOT (folder MATCHES "^bench/" AND header IN_LIST shared_headers)
             AND NOT (folder IN_LIST front_end_folders AND header IN_LIST front_end_headers)
             AND NOT header IN_LIST allowed_headers_${folder})
        if(DEFINED rule_${folder} AND target_folder STREQUAL "loader/pipeline")
          set(rule "${rule_${folder}}")
        elseif(folder STREQUAL api)
          set(rule "${rule_${folder}}")
        elseif(folder IN_LIST front_end_folders AND target_folder MATCHES "^loader/")
          string(CONCAT rule "outside the library only the public API, the stages and the "
                 "front-end headers are included")
        else()
          list(JOIN allowed_${folder} ", " allowed)
          if(allowed_headers_${folder})
            list(JOIN allowed_headers_${folder} ", " headers)
            string(APPEND allowed "; of the public API only ${headers}")
          endif()
          set(rule "${folder}/ may include: ${allowed}")
        endif()
        list(APPEND violations "${source}: ${line} (${rule})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(checked EQUAL 0)
  list(APPEND violations "no include line was read under ${SOURCE_DIR}")
endif()

# Every header of the public API is installed, and only those: loader/CMakeLists.txt's FILE_SET
# HEADERS names each include/feedrate/*.h (a header added there without it would be missing from
# the install, and the package test's consumer would not see it).
file(READ ${SOURCE_DIR}/loader/CMakeLists.txt loader_cmake)
string(REGEX MATCH "FILE_SET HEADERS[^)]*\\)" api_file_set "${loader_cmake}")
string(REGEX MATCHALL "/feedrate/[a-z_]+\\.h" installed "${api_file_set}")
list(TRANSFORM installed PREPEND include)
file(GLOB api_headers RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${api}/*.h)
if(DEFINED PLANT_API_HEADER)
  list(APPEND api_headers ${PLANT_API_HEADER})
endif()
foreach(header IN LISTS api_headers)
  if(NOT header IN_LIST installed)
    list(APPEND violations "${header}: a public header that loader/CMakeLists.txt does not install")
  endif()
endforeach()
foreach(header IN LISTS installed)
  if(NOT header IN_LIST api_headers)
    list(APPEND violations "${header}: installed by loader/CMakeLists.txt, but not in ${api}/")
  endif()
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
