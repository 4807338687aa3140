# Cortex-M33 (Armv8-M mainline, single-precision FPU, DSP extension) on QEMU's mps2-an505.
set(ETMCU_CPU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16")
set(ETMCU_BOARD mps2-an505 CACHE STRING "board under boards/")
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-arm-none-eabi.cmake)
