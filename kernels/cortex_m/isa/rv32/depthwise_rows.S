/* etmcu_rv32_dw_row_k3: the depthwise row kernel for three window rows of up to three taps on a
   plain RV32IMC core (the contract and argument block: kernels/cortex_m/util/depthwise_planes.h,
   DwRowArgs; isa/rv32/depthwise.h calls it when the weight words' fourth bytes are zero).

   The nine weights are sign-extended into registers once; an output is nine byte loads, nine
   mul + add (each load two or more instructions ahead of its use) and the 2v requantization of
   cmsis_math.h (requantize_offset_2v), clamped to [amin, amax]. */
#define A_WINDOW 0
#define A_LSTRIDE 4
#define A_XSTEP 8
#define A_OUTPUTS 12
#define A_Y 16
#define A_YSTEP 20
#define A_FULL 24
#define A_MULT 28
#define A_KOFF 32
#define A_RIGHT 36
#define A_AMIN 40
#define A_AMAX 44
#define A_OUTROWS 52
#define A_ROWJUMP 56
#define A_W 60

/* weight byte `byte` of word `word` into reg, sign-extended */
.macro WBYTE reg, word, byte
    lb   \reg, (A_W + 4 * \word + \byte)(a0)
.endm

    .text
    .globl etmcu_rv32_dw_row_k3
    .type etmcu_rv32_dw_row_k3, @function
    .p2align 2
etmcu_rv32_dw_row_k3:
    addi sp, sp, -64
    sw   ra, 60(sp)
    sw   s0, 56(sp)
    sw   s1, 52(sp)
    sw   s2, 48(sp)
    sw   s3, 44(sp)
    sw   s4, 40(sp)
    sw   s5, 36(sp)
    sw   s6, 32(sp)
    sw   s7, 28(sp)
    sw   s8, 24(sp)
    sw   s9, 20(sp)
    sw   s10, 16(sp)
    sw   s11, 12(sp)
    WBYTE s2, 0, 0
    WBYTE s3, 0, 1
    WBYTE s4, 0, 2
    WBYTE s5, 1, 0
    WBYTE s6, 1, 1
    WBYTE s7, 1, 2
    WBYTE s8, 2, 0
    WBYTE s9, 2, 1
    WBYTE s10, 2, 2
    lw   a1, A_WINDOW(a0)
    lw   t1, A_LSTRIDE(a0)
    lw   a2, A_Y(a0)
    lw   a4, A_YSTEP(a0)
    lw   s1, A_FULL(a0)
    lw   t4, A_MULT(a0)
    lw   t5, A_KOFF(a0)           /* offset << r, plus 2^(r-1) added below */
    lw   t6, A_RIGHT(a0)
    lw   ra, A_AMIN(a0)
    lw   s0, A_AMAX(a0)
    li   t0, 1
    addi t2, t6, -1
    sll  t0, t0, t2
    add  t5, t5, t0               /* offset << r + 2^(r-1) */
    lw   s11, A_OUTROWS(a0)
1:  lw   a3, A_OUTPUTS(a0)        /* outputs left in this row */
2:  add  t0, a1, t1               /* the window's second and third rows */
    add  t2, t0, t1
    lb   a5, 0(a1)
    lb   a6, 1(a1)
    lb   a7, 2(a1)
    mul  a5, a5, s2
    lb   t3, 0(t0)
    mul  a6, a6, s3
    add  a5, a5, s1
    mul  a7, a7, s4
    add  a5, a5, a6
    lb   a6, 1(t0)
    add  a5, a5, a7
    lb   a7, 2(t0)
    mul  t3, t3, s5
    mul  a6, a6, s6
    add  a5, a5, t3
    mul  a7, a7, s7
    lb   t3, 0(t2)
    add  a5, a5, a6
    lb   a6, 1(t2)
    add  a5, a5, a7
    lb   a7, 2(t2)
    mul  t3, t3, s8
    mul  a6, a6, s9
    add  a5, a5, t3
    mul  a7, a7, s10
    add  a5, a5, a6
    add  a5, a5, a7
    /* requantize a5 (2v form), clamp, store */
    add  t2, a5, a5
    mul  t3, t2, t4
    mulh t2, t2, t4
    srli t3, t3, 31
    add  t2, t2, t3
    srai t3, a5, 31
    add  t2, t2, t3
    add  t2, t2, t5
    sra  t2, t2, t6
    bge  t2, ra, 3f
    mv   t2, ra
3:  ble  t2, s0, 4f
    mv   t2, s0
4:  sb   t2, 0(a2)
    add  a2, a2, a4
    lw   t0, A_XSTEP(a0)
    add  a1, a1, t0
    addi a3, a3, -1
    bnez a3, 2b
    lw   t0, A_ROWJUMP(a0)
    add  a1, a1, t0
    addi s11, s11, -1
    bnez s11, 1b
    lw   ra, 60(sp)
    lw   s0, 56(sp)
    lw   s1, 52(sp)
    lw   s2, 48(sp)
    lw   s3, 44(sp)
    lw   s4, 40(sp)
    lw   s5, 36(sp)
    lw   s6, 32(sp)
    lw   s7, 28(sp)
    lw   s8, 24(sp)
    lw   s9, 20(sp)
    lw   s10, 16(sp)
    lw   s11, 12(sp)
    addi sp, sp, 64
    ret
    .size etmcu_rv32_dw_row_k3, . - etmcu_rv32_dw_row_k3
