# Cortex-M4F (Armv7E-M, single-precision FPU) on QEMU's mps2-an386.
set(ETMCU_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(ETMCU_BOARD mps2-an386 CACHE STRING "board under boards/")
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-arm-none-eabi.cmake)
