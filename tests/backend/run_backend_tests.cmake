# ctest driver: generate the backend test data if needed, then run the evaluator on it.
execute_process(COMMAND ${GENERATE} ${DATA} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "generate_backend_tests.sh failed (${status})")
endif()
execute_process(COMMAND ${RUNNER} ${DATA}/node --known-failures ${KNOWN_FAILURES} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "run_backend_tests: a test failed, needs an operator without a kernel, or is listed as a "
                      "known failure but passes (${status})")
endif()
