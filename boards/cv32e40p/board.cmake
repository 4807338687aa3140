# CV32E40P on the core-v-verif testbench map, run by the etmcu simulator (sim/).
set(ETMCU_BOARD_FAMILY cv32e40p)
set(ETMCU_BOARD_RUNNER etmcu-sim)
set(ETMCU_BOARD_SIM_CONFIG nopulp)        # RV32IMC only: an Xpulp instruction would trap
set(ETMCU_BOARD_FLASH_BYTES 0)            # one RAM holds code and data
set(ETMCU_BOARD_RAM_BYTES 4194304)        # 4 MiB at 0x0
set(ETMCU_BOARD_TICK_HZ 400000000)        # ticks = cycles
set(ETMCU_BOARD_STACK_BYTES 3072)
set(ETMCU_BOARD_CORTEX_M_VARIANT rv32)          # kernels/cortex_m/isa/rv32 (opt/ op files)
