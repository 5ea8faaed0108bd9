# The data the remote fixture serves: an ImageFolder tree and three tar shards of the same kind of
# images, made afresh by `feedrate make-dataset` (FEEDRATE, DATA given by ctest), the shards with
# `feedrate index`'s index.json beside them, and a `feedrate pack` of the folder.
file(REMOVE_RECURSE ${DATA})
file(MAKE_DIRECTORY ${DATA})
foreach(layout folder tar)
  execute_process(COMMAND ${FEEDRATE} make-dataset ${DATA}/${layout} --count 48 --classes 3
                          --format ${layout} --images-per-shard 16 --seed 5
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "feedrate make-dataset ${layout} failed (${rc}): ${err}")
  endif()
endforeach()
# A file list of the folder's images ("relative/path label"), every other image, in reverse order.
file(GLOB_RECURSE images RELATIVE ${DATA}/folder ${DATA}/folder/*.jpg)
list(SORT images)
list(REVERSE images)
set(lines "# every other image of the folder, in reverse order\n")
set(keep ON)
foreach(image IN LISTS images)
  if(keep)
    string(REGEX MATCH "class_0*([0-9]+)/" _ "${image}")
    string(APPEND lines "${image} ${CMAKE_MATCH_1}\n")
  endif()
  if(keep)
    set(keep OFF)
  else()
    set(keep ON)
  endif()
endforeach()
file(WRITE ${DATA}/folder/list.txt "${lines}")
# The same shards with the index `feedrate index` writes beside them.
file(COPY ${DATA}/tar/ DESTINATION ${DATA}/indexed)
execute_process(COMMAND ${FEEDRATE} index ${DATA}/indexed RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "feedrate index failed (${rc}): ${err}")
endif()
# A pack of the folder (several shards, index.json with every member), read through its index.json.
execute_process(COMMAND ${FEEDRATE} pack ${DATA}/folder ${DATA}/packed --shard-mb 1 --workers 2
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "feedrate pack failed (${rc}): ${err}")
endif()
