# Runs etmcu-sim with ARGS (;-list) and checks its exit code (EXPECT_RC) and that its combined
# output matches EXPECT_REGEX. Usage: cmake -DSIM=... -DARGS=... -DEXPECT_RC=... -DEXPECT_REGEX=... -P
# NEEDS: a path the test reads (shared/cv32e40p-ref); when it is missing the test prints
# "SKIPPED: needs PATH" (the test's skip pattern), or fails if ETMCU_REQUIRE_CORPUS is set (CI).
if(DEFINED NEEDS AND NOT EXISTS "${NEEDS}")
  if(NOT "$ENV{ETMCU_REQUIRE_CORPUS}" STREQUAL "" AND NOT "$ENV{ETMCU_REQUIRE_CORPUS}" STREQUAL "0")
    message(FATAL_ERROR "ETMCU_REQUIRE_CORPUS is set and ${NEEDS} is missing")
  endif()
  message("SKIPPED: needs ${NEEDS}")
  return()
endif()
execute_process(COMMAND ${SIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECT_REGEX AND NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
