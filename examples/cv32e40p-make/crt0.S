/* Start-up on the CV32E40P testbench map (boot at 0x80, 4 MiB RAM at 0): counters on, gp/sp,
   a trap handler, .bss zeroed, main(), and its result written to the exit device. */
    .section .text.boot, "ax"
    .globl _start
_start:
    csrw    mcountinhibit, zero
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, stack_top
    la      t0, trap
    csrw    mtvec, t0
    la      t0, bss_start
    la      t1, bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  call    main
exit:
    li      t0, 0x20000004      /* exit device: the store ends the simulation with this code */
    sw      a0, 0(t0)
3:  j       3b

    .section .text.trap, "ax"
    .balign 256
trap:                           /* any trap: exit code 3 */
    li      a0, 3
    j       exit
