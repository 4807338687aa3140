/* ISA test firmware startup for both targets: the etmcu-sim testbench map (boot 0x80) and QEMU
   virt (-bios none, RAM at 0x80000000). Enables the counters, sets sp, zeroes .bss, runs main. */
    .option norelax
    .section .text.start, "ax"
    .globl _start
_start:
    csrw    mcountinhibit, zero
    la      sp, __stack_top
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  call    main
    call    rt_exit
3:  j       3b

#ifdef ISA_QEMU
/* RISC-V semihosting call: a0 = operation, a1 = parameter. The three instructions must be
   uncompressed and within one page. */
    .text
    .balign 16
    .globl rt_semihost
rt_semihost:
    .option push
    .option norvc
    slli    zero, zero, 0x1f
    ebreak
    srai    zero, zero, 7
    .option pop
    ret
#endif
