# Run by ctest (see CMakeLists.txt). Fails on the first step that fails.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${FEEDRATE} make-dataset ${WORK_DIR}/data --count 40 --classes 3)
run(${WORK_DIR}/build/train ${WORK_DIR}/data 2)

# Every installed header of the public API compiles on its own, against the installed tree alone:
# what it includes is installed with it (tests/layering checks the rule, this the files).
file(GLOB headers RELATIVE ${prefix}/include ${prefix}/include/feedrate/*.h)
list(LENGTH headers count)
if(count LESS 10)
  message(FATAL_ERROR "only ${count} headers installed under ${prefix}/include/feedrate")
endif()
set(headers_dir ${WORK_DIR}/headers)
set(sources "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER ${header} name)
  file(WRITE ${headers_dir}/${name}.cc "#include <${header}>\n")
  list(APPEND sources ${name}.cc)
endforeach()
list(JOIN sources " " sources)
file(WRITE ${headers_dir}/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.24)\nproject(headers LANGUAGES CXX)\n"
     "set(CMAKE_CXX_STANDARD 20)\nfind_package(feedrate REQUIRED)\n"
     "add_library(headers OBJECT ${sources})\n"
     "target_link_libraries(headers PRIVATE feedrate::feedrate)\n")
run(${CMAKE_COMMAND} -S ${headers_dir} -B ${headers_dir}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${headers_dir}/build)
