# BBC micro:bit (nRF51822, Cortex-M0, Armv6-M) in QEMU: 256 KiB flash at 0, 16 KiB RAM at 0x2000_0000.
# QEMU models the M0's unaligned-access faults. SysTick: 16 MHz (62.5 instructions per tick under -icount shift=0).
set(ETMCU_BOARD_FAMILY cortex-m)
set(ETMCU_BOARD_RUNNER qemu-system-arm)
set(ETMCU_BOARD_QEMU_MACHINE microbit)
set(ETMCU_BOARD_FLASH_ORIGIN 0x00000000)
set(ETMCU_BOARD_FLASH_BYTES 262144)
set(ETMCU_BOARD_RAM_ORIGIN 0x20000000)
set(ETMCU_BOARD_RAM_BYTES 16384)
set(ETMCU_BOARD_TICK_HZ 16000000)
set(ETMCU_BOARD_STACK_BYTES 3072)
set(ETMCU_BOARD_CORTEX_M_VARIANT scalar)        # kernels/cortex_m/isa/scalar (opt/ op files)
