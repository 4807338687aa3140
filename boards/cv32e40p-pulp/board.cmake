# CV32E40P with its PULP extensions (COREV_PULP=1: hardware loops, post-increment loads, packed
# SIMD), same testbench map; the int8 kernels use cv.sdotsp.b (kernels/cortex_m/isa/xpulp). Compiled
# code is still RV32IMC (Debian's GCC has no Xpulp): only the kernels' inline instructions use
# the extension. `./etmcu run MODEL.pte --target cv32e40p --board cv32e40p-pulp`.
include(${CMAKE_CURRENT_LIST_DIR}/../cv32e40p/board.cmake)
set(ETMCU_BOARD_SIM_CONFIG pulp)
set(ETMCU_BOARD_CORTEX_M_VARIANT xpulp)
set(ETMCU_BOARD_XPULP ON)  # board code may use the extension too (boards/common/mem_functions.cpp)
