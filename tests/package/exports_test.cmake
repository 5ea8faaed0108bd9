cmake_minimum_required(VERSION 3.24)
# Run by ctest (tests/package/CMakeLists.txt): installs feedrate into a scratch prefix and checks
# what a consumer gets there. The include tree holds the public API alone (include/feedrate/*.h,
# no stage folders), and the exported target puts only ${prefix}/include on a consumer's include
# path. libfeedrate.so exports the public API only: every defined dynamic symbol of a feedrate
# name (its functions, vtables and type_info) belongs to a class or a namespace-level function
# that the installed headers mark FEEDRATE_API; the rest is hidden (-fvisibility=hidden). Prints
# the count of defined dynamic symbols (nm -D --defined-only), which issue 50 measured.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(problems "")

file(GLOB_RECURSE installed RELATIVE ${prefix}/include ${prefix}/include/*)
foreach(file IN LISTS installed)
  if(NOT file MATCHES "^feedrate/[a-z_]+\\.h$")
    list(APPEND problems "include/${file}: installed, but not a header of the public API")
  endif()
endforeach()
file(GLOB targets_files ${prefix}/*/cmake/feedrate/feedrateTargets.cmake)
file(STRINGS "${targets_files}" include_lines REGEX "INTERFACE_INCLUDE_DIRECTORIES")
if(NOT include_lines MATCHES "^ *INTERFACE_INCLUDE_DIRECTORIES \"\\$\\{_IMPORT_PREFIX\\}/include\"$")
  list(APPEND problems "feedrate::feedrate's include path is not \${prefix}/include alone: "
       "${include_lines}")
endif()

# The names the public API exports: classes and namespace-level functions marked FEEDRATE_API.
set(api_names "")
file(GLOB headers ${prefix}/include/feedrate/*.h)
foreach(header IN LISTS headers)
  file(READ ${header} text)
  string(REGEX MATCHALL "(class|struct) FEEDRATE_API [A-Za-z_]+" classes "${text}")
  # A function's line may open with a C++ attribute ("[[noreturn]] FEEDRATE_API void f(").
  string(REGEX MATCHALL "\n(\\[\\[[a-z_]+\\]\\] )?FEEDRATE_API [^\n(]*[ *&]([a-z_]+)\\(" functions
         "${text}")
  foreach(entry IN LISTS classes functions)
    string(REGEX MATCH "([A-Za-z_]+)\\(?$" _ "${entry}")
    list(APPEND api_names ${CMAKE_MATCH_1})
  endforeach()
endforeach()
if(NOT "Loader" IN_LIST api_names OR NOT "resolve" IN_LIST api_names)
  list(APPEND problems "read no FEEDRATE_API names from ${prefix}/include/feedrate: ${api_names}")
endif()

file(GLOB libraries ${prefix}/*/libfeedrate.so)
run(${NM} -D -C --defined-only ${libraries})
string(STRIP "${out}" out)
string(REPLACE "\n" ";" symbols "${out}")
list(LENGTH symbols count)
foreach(symbol IN LISTS symbols)
  # "ADDRESS T feedrate::Name...", "... V typeinfo for feedrate::Name": the name after feedrate::.
  if(symbol MATCHES "^[0-9a-f]+ [A-Za-z] ((typeinfo|typeinfo name|vtable|VTT) for )?feedrate::([A-Za-z_]+)")
    if(NOT CMAKE_MATCH_3 IN_LIST api_names)
      list(APPEND problems "libfeedrate.so exports an internal symbol: ${symbol}")
    endif()
  endif()
endforeach()
message(STATUS "libfeedrate.so: ${count} defined dynamic symbols (nm -D --defined-only)")

if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "the installed package is more than the public API:\n  ${text}")
endif()
