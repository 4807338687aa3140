# Cortex-M55 (Armv8.1-M, FPU + MVE) on QEMU's mps3-an547.
set(ETMCU_CPU_FLAGS "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard")
set(ETMCU_BOARD mps3-an547 CACHE STRING "board under boards/")
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-arm-none-eabi.cmake)
