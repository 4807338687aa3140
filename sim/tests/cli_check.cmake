# Runs etmcu-sim with ARGS (;-list) and checks its exit code (EXPECT_RC) and that its combined
# output matches EXPECT_REGEX. Usage: cmake -DSIM=... -DARGS=... -DEXPECT_RC=... -DEXPECT_REGEX=... -P
execute_process(COMMAND ${SIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECT_REGEX AND NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
