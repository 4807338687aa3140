/* CV32E40P start-up for the core-v-verif testbench memory map (boot address 0x80, 4 MiB RAM at 0).
   Starts the counters first, so mcycle counts from (almost) reset; sets gp/sp/mtvec; zeroes .bss
   word-wise (only what the program needs: the pools live in .noinit); paints the stack for the
   peak-stack measurement; calls main and hands its return value to board_exit. */
    .option norelax
    .section .text.start, "ax"
    .globl _start
_start:
    csrw    mcountinhibit, zero         /* mcycle/minstret are inhibited out of reset */
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
    la      t0, fw_trap_entry
    csrw    mtvec, t0
    la      t0, __bss_start
    la      t1, __bss_end
    beq     t0, t1, 2f
1:  sw      zero, 0(t0)
    addi    t0, t0, 4
    bltu    t0, t1, 1b
2:  la      t0, __stack_limit           /* paint one word in 16 bytes of [__stack_limit, __stack_top) */
    li      t2, 0xa5a5a5a5
3:  sw      t2, 0(t0)
    sw      t2, 16(t0)
    sw      t2, 32(t0)
    sw      t2, 48(t0)
    addi    t0, t0, 64
    bltu    t0, sp, 3b
    call    main
    tail    board_exit

/* Any trap is fatal: print "X <mcause> <mepc>" and exit with 3 (gp reloaded first: a trap may
   come from a kernel that borrowed it). mtvec's BASE must be 256-byte
   aligned: the linker script places this section (link.ld, .vectors). */
    .section .text.vectors, "ax"
fw_trap_entry:
    csrr    a0, mcause
    csrr    a1, mepc
    la      sp, __stack_top
    .option push
    .option norelax
    la      gp, __global_pointer$       /* (the Xpulp pointwise kernel uses gp as a register) */
    .option pop
    tail    fw_fatal_trap
