/* Cortex-M start-up shared by the Arm boards (Armv6-M, v7E-M and v8.1-M: Thumb-1 only here).
   Vector table at 0; Reset_Handler starts SysTick first (ticks count from reset), enables the
   FPU/MVE coprocessors when the build has them, copies .data, zeroes .bss word-wise, paints the
   stack for the peak-stack measurement, calls main and passes its value to board_exit. */
    .syntax unified
    .thumb

    .section .vectors, "a"
    .align 2
    .globl __vectors
__vectors:
    .word __stack_top
    .word Reset_Handler
    .word Fault_Handler        /* NMI */
    .word Fault_Handler        /* HardFault */
    .word Fault_Handler        /* MemManage */
    .word Fault_Handler        /* BusFault */
    .word Fault_Handler        /* UsageFault */
    .word Fault_Handler        /* SecureFault (v8-M) */
    .word 0, 0, 0
    .word Fault_Handler        /* SVC */
    .word Fault_Handler        /* DebugMon */
    .word 0
    .word Fault_Handler        /* PendSV */
    .word SysTick_Handler

    .text
    .thumb_func
    .globl Reset_Handler
    .type Reset_Handler, %function
Reset_Handler:
    ldr     r0, =__stack_top
    mov     sp, r0
    /* SysTick: reload 0xFFFFFF, processor clock, wrap interrupt, enabled */
    ldr     r0, =0xE000E010
    ldr     r1, =0x00FFFFFF
    str     r1, [r0, #4]
    movs    r1, #0
    str     r1, [r0, #8]
    movs    r1, #7
    str     r1, [r0, #0]
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    ldr     r0, =0xE000ED88            /* CPACR: CP10/CP11 full access (FPU, MVE) */
    ldr     r1, [r0]
    ldr     r2, =(0xF << 20)
    orrs    r1, r1, r2
    str     r1, [r0]
    dsb
    isb
#endif
    ldr     r0, =__data_start
    ldr     r1, =__data_end
    ldr     r2, =__data_load
1:  cmp     r0, r1
    bhs     2f
    ldr     r3, [r2]
    str     r3, [r0]
    adds    r0, r0, #4
    adds    r2, r2, #4
    b       1b
2:  ldr     r0, =__bss_start
    ldr     r1, =__bss_end
    movs    r2, #0
3:  cmp     r0, r1
    bhs     4f
    str     r2, [r0]
    adds    r0, r0, #4
    b       3b
4:  ldr     r0, =__stack_limit
    ldr     r1, =__stack_top
    ldr     r2, =0xa5a5a5a5
5:  cmp     r0, r1
    bhs     6f
    str     r2, [r0]                   /* one painted word in 16 bytes */
    str     r2, [r0, #16]
    str     r2, [r0, #32]
    str     r2, [r0, #48]
    adds    r0, r0, #64
    b       5b
6:  bl      main
    bl      board_exit
    .size Reset_Handler, . - Reset_Handler

/* Any fault: report "X <IPSR> <stacked PC>" and exit with 3 (fw_fatal_trap in board.cpp). */
    .thumb_func
    .type Fault_Handler, %function
Fault_Handler:
    mrs     r0, ipsr
    mov     r2, sp
    ldr     r1, [r2, #24]
    ldr     r3, =__stack_top
    mov     sp, r3
    bl      fw_fatal_trap
    .size Fault_Handler, . - Fault_Handler
    .pool
