# Arm MPS2 AN505 (Cortex-M33 with FPU and DSP extension) in QEMU, running in the secure state it
# resets into: code in SSRAM1 through its secure alias at 0x10000000 (4 MiB, where the initial
# vector table is read), data in SSRAM2 at its secure alias 0x38000000 (2 MiB); SysTick on the
# 20 MHz system clock.
set(ETMCU_BOARD_FAMILY cortex-m)
set(ETMCU_BOARD_RUNNER qemu-system-arm)
set(ETMCU_BOARD_QEMU_MACHINE mps2-an505)
set(ETMCU_BOARD_FLASH_ORIGIN 0x10000000)
set(ETMCU_BOARD_FLASH_BYTES 4194304)
set(ETMCU_BOARD_RAM_ORIGIN 0x38000000)
set(ETMCU_BOARD_RAM_BYTES 2097152)
set(ETMCU_BOARD_TICK_HZ 20000000)
set(ETMCU_BOARD_STACK_BYTES 4096)
set(ETMCU_BOARD_CORTEX_M_VARIANT dsp)           # kernels/cortex_m/isa/dsp (opt/ op files)
