# The data the remote fixture serves: an ImageFolder tree and three tar shards of the same kind of
# images, made afresh by `feedrate make-dataset` (FEEDRATE, DATA given by ctest).
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
