/* etmcu_rv32_pointwise_4ch: one block of four output channels of a 1x1 int8 convolution on a plain
   RV32IMC core (the CV32E40P without its PULP extensions), dot products and CMSIS-NN
   requantization together. The contract and argument block are kernels/cortex_m/util/pointwise.h
   (the same as the Xpulp kernel's); isa/rv32/pointwise.h calls it.

   Two pixels by four channels per pass (receptive fields of `rows` runs, as the Xpulp kernel's):
   for each byte of a run, two input loads and four weight
   loads feed eight mul + add, 22 instructions for 8 multiply-accumulates, four bytes per loop
   iteration (immediate offsets), every load at least one instruction ahead of its use. Then each
   of the eight sums is requantized in the 2v form of cmsis_math.h (requantize_offset_2v):
     P2 = 2v * m;  y = (hi(P2) + (lo(P2) >> 31) + (v >> 31) + (offset << r) + 2^(r-1)) >> r
   and clamped to [amin, amax]. An odd last pixel is computed as a pair with itself. */
#define A_X 0
#define A_XSTEP 4
#define A_PIXELS 8
#define A_WORDS 12
#define A_W 16
#define A_Y 20
#define A_YSTEP 24
#define A_AMIN 28
#define A_AMAX 32
#define A_FULL 36
#define A_MULT 52
#define A_RIGHT 84
#define A_ROUND 100
#define A_ROWS 116
#define A_ROWSKIP 120
#define A_WSTRIDE 124

/* frame: row bytes, pixels left, this pair's outputs, this pair's first row; saved registers */
#define F_ROW 0
#define F_LEFT 4
#define F_Y 8
#define F_X 12

/* byte i of the rows: a3/a4 the two input bytes, a5/a6 weight bytes, a7 the product */
.macro BYTE i
    lb   a3, \i(a1)
    lb   a4, \i(a2)
    lb   a5, \i(t2)
    lb   a6, \i(t3)
    mul  a7, a3, a5
    add  s0, s0, a7
    mul  a7, a4, a5
    add  s4, s4, a7
    lb   a5, \i(t4)
    mul  a7, a3, a6
    add  s1, s1, a7
    mul  a7, a4, a6
    add  s5, s5, a7
    lb   a6, \i(t5)
    mul  a7, a3, a5
    add  s2, s2, a7
    mul  a7, a4, a5
    add  s6, s6, a7
    mul  a7, a3, a6
    add  s3, s3, a7
    mul  a7, a4, a6
    add  s7, s7, a7
.endm

/* requantize acc into byte k at ybase (t0, t1, a3..a5 temporaries; s8/s9 amin/amax) */
.macro REQ k, acc, ybase
    lw   a3, (A_MULT + 4 * \k)(a0)
    lw   a4, (A_ROUND + 4 * \k)(a0)
    lw   a5, (A_RIGHT + 4 * \k)(a0)
    add  t0, \acc, \acc
    mul  t1, t0, a3
    mulh t0, t0, a3
    srli t1, t1, 31
    add  t0, t0, t1
    srai t1, \acc, 31
    add  t0, t0, t1
    add  t0, t0, a4
    sra  t0, t0, a5
    bge  t0, s8, 1f
    mv   t0, s8
1:  ble  t0, s9, 2f
    mv   t0, s9
2:  sb   t0, \k(\ybase)
.endm

    .text
    .globl etmcu_rv32_pointwise_4ch
    .type etmcu_rv32_pointwise_4ch, @function
    .p2align 2
etmcu_rv32_pointwise_4ch:
    addi sp, sp, -64
    sw   s0, 60(sp)
    sw   s1, 56(sp)
    sw   s2, 52(sp)
    sw   s3, 48(sp)
    sw   s4, 44(sp)
    sw   s5, 40(sp)
    sw   s6, 36(sp)
    sw   s7, 32(sp)
    sw   s8, 28(sp)
    sw   s9, 24(sp)
    sw   s10, 20(sp)
    sw   s11, 16(sp)
    lw   t0, A_WORDS(a0)
    slli t0, t0, 2
    sw   t0, F_ROW(sp)
    lw   t0, A_PIXELS(a0)
    sw   t0, F_LEFT(sp)
    lw   t0, A_Y(a0)
    sw   t0, F_Y(sp)
    lw   t0, A_X(a0)
    sw   t0, F_X(sp)
    lw   s8, A_AMIN(a0)
    lw   s9, A_AMAX(a0)
    lw   s10, A_XSTEP(a0)
    lw   s11, A_YSTEP(a0)
.Lpair:
    lw   a1, F_X(sp)              /* the pair's two input rows */
    add  a2, a1, s10
    lw   t0, F_LEFT(sp)
    li   t1, 1
    bne  t0, t1, 3f
    mv   a2, a1                   /* the last, odd pixel: a pair with itself */
3:  lw   t2, A_W(a0)              /* the four weight rows */
    lw   t1, A_WSTRIDE(a0)
    add  t3, t2, t1
    add  t4, t3, t1
    add  t5, t4, t1
    lw   s0, (A_FULL + 0)(a0)
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    mv   s4, s0
    mv   s5, s1
    mv   s6, s2
    mv   s7, s3
    lw   t0, A_ROWS(a0)           /* kernel rows left */
7:  lw   t1, F_ROW(sp)
    add  t6, a1, t1               /* the end of this run */
4:  BYTE 0
    BYTE 1
    BYTE 2
    BYTE 3
    addi a1, a1, 4
    addi a2, a2, 4
    addi t2, t2, 4
    addi t3, t3, 4
    addi t4, t4, 4
    addi t5, t5, 4
    bne  a1, t6, 4b
    lw   t1, A_ROWSKIP(a0)        /* the next kernel row of both receptive fields */
    add  a1, a1, t1
    add  a2, a2, t1
    addi t0, t0, -1
    bnez t0, 7b
    /* outputs: the first pixel's at F_Y, the second's y_step further (the same when odd) */
    lw   a1, F_Y(sp)
    lw   t0, F_LEFT(sp)
    add  a2, a1, s11
    li   t1, 1
    bne  t0, t1, 5f
    mv   a2, a1
5:  REQ  0, s0, a1
    REQ  1, s1, a1
    REQ  2, s2, a1
    REQ  3, s3, a1
    REQ  0, s4, a2
    REQ  1, s5, a2
    REQ  2, s6, a2
    REQ  3, s7, a2
    add  a1, a2, s11              /* the next pair */
    sw   a1, F_Y(sp)
    lw   a1, F_X(sp)
    add  a1, a1, s10
    add  a1, a1, s10
    sw   a1, F_X(sp)
    lw   t0, F_LEFT(sp)
    addi t0, t0, -2
    sw   t0, F_LEFT(sp)
    bgtz t0, .Lpair
    lw   s0, 60(sp)
    lw   s1, 56(sp)
    lw   s2, 52(sp)
    lw   s3, 48(sp)
    lw   s4, 44(sp)
    lw   s5, 40(sp)
    lw   s6, 36(sp)
    lw   s7, 32(sp)
    lw   s8, 28(sp)
    lw   s9, 24(sp)
    lw   s10, 20(sp)
    lw   s11, 16(sp)
    addi sp, sp, 64
    ret
    .size etmcu_rv32_pointwise_4ch, . - etmcu_rv32_pointwise_4ch
