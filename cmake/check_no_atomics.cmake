# Fails when the ELF ${ELF} contains an instruction of the RISC-V A extension (lr/sc/amo*), which
# the CV32E40P does not implement (run with cmake -P after every firmware link; see
# cmake/toolchain-cv32e40p.cmake for why the libraries come from the rv32imac multilib).
execute_process(COMMAND ${OBJDUMP} -d --no-show-raw-insn ${ELF} OUTPUT_VARIABLE dis RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_no_atomics: ${OBJDUMP} failed on ${ELF}")
endif()
string(REGEX MATCH "\n *([0-9a-f]+):[ \t]+(lr\\.w|sc\\.w|amo[a-z]+\\.w)[^\n]*" hit "${dis}")
if(hit)
  string(STRIP "${hit}" hit)
  message(FATAL_ERROR "${ELF}: contains an A-extension instruction the CV32E40P lacks: '${hit}'")
endif()
