# Cortex-M0 (Armv6-M, no FPU) on QEMU's microbit (nRF51: 256 KiB flash, 16 KiB RAM, traps unaligned
# accesses like the real core). -DETMCU_BOARD=mps2-an385 runs the same code with 4 MiB RAM for large models.
set(ETMCU_CPU_FLAGS "-mcpu=cortex-m0 -mthumb -mfloat-abi=soft")
set(ETMCU_BOARD microbit CACHE STRING "board under boards/ (microbit or mps2-an385)")
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-arm-none-eabi.cmake)
