# Arm MPS2 AN385 in QEMU (a Cortex-M3 that runs Armv6-M code): the Cortex-M0 target's board for
# models that do not fit the micro:bit. Same map as AN386; SysTick at 25 MHz. It tolerates unaligned
# accesses that a real M0 would fault on (use microbit to check those).
set(ETMCU_BOARD_FAMILY cortex-m)
set(ETMCU_BOARD_RUNNER qemu-system-arm)
set(ETMCU_BOARD_QEMU_MACHINE mps2-an385)
set(ETMCU_BOARD_FLASH_ORIGIN 0x00000000)
set(ETMCU_BOARD_FLASH_BYTES 4194304)
set(ETMCU_BOARD_RAM_ORIGIN 0x20000000)
set(ETMCU_BOARD_RAM_BYTES 4194304)
set(ETMCU_BOARD_TICK_HZ 25000000)
set(ETMCU_BOARD_STACK_BYTES 4096)
set(ETMCU_BOARD_CORTEX_M_VARIANT scalar)        # kernels/cortex_m/isa/scalar (opt/ op files)
