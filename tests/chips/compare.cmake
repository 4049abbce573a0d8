# Runs PROG, writes its output to OUT and fails unless it equals EXPECTED.
execute_process(COMMAND ${PROG} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} exited with ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${EXPECTED} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "the counter sets per chip differ from ${EXPECTED} (new output: ${OUT}); "
                      "a new CUPTI or metric list: update the file and docs/counters.md")
endif()
message(STATUS "counter sets per chip as in ${EXPECTED}")
