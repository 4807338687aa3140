/* void etmcu_rv32_linear_row(const PointwiseBlock* b, const int32_t* ksum, int32_t blocks,
                              int32_t xterm), and etmcu_rv32_linear_row_dy with the same
   arguments: a linear layer's row on a plain RV32IMC core in `blocks` blocks of four features
   (isa/rv32/pointwise.h pointwise_linear_row, from opt/op_quantized_linear.cpp linear_blocks; the
   contract is util/pointwise.h linear_row_blocks_c's): block i's weights the four rows from
   b->w + 4 * i * w_stride on, its constants ksum[4i + k] + xterm, its outputs at b->y + 4i; the
   row is b->x, w_stride bytes. Per block dot4.S's loop (dot4.inc's DOT4_RUN: 13 instructions per
   input byte for four multiply-accumulates, eight bytes a step, the last length mod 8 one at a
   time), then the four sums requantized with the layer's one requantization held in registers.
   In place of linear_rows' C per four features (about 81 cycles a feature on the autoencoder: the
   requantization in C, the job reloaded after each byte store).
   - etmcu_rv32_linear_row: the 4v form of cmsis_math.h (requantize_offset_4v, as
     pointwise_4ch.S's REQ3: |v| < 2^29, which linear_blocks checks), the out-of-range results
     through fixups after the return.
   - etmcu_rv32_linear_row_dy: a dyadic layer (util/pointwise.h set_linear_dyadic, cmsis_math.h
     dyadic_linear) in the forms of PointwiseBlock::dyadic: the sum clamped to the sums' bounds
     (below the floor amin, above V amax), then one mul, add and shift by 21. kDyadicRelu (floor
     1): 8 cycles a sum above 0, 5 one of 0 or less, against the 4v form's 16 / 5; kDyadicClamp
     (floor Vlo < 0): K for a sum of 0 or more, K less the sign term 2^q (kept on the frame) for a
     negative one, in two flows: 7 and 11 cycles. The form is the floor's sign, tested once a
     block.
   Registers: s0 the constants, s1 blocks left, s2 xterm, s3 the outputs, s4 the row, s5 its
   length, s6 m, s7 offset << (r+1) + 2^r (dyadic: K), s8 r + 1 (dyadic: V), s9 the floor, s10
   amin, s11 amax, a3 the length less its last mod 8 bytes; in a block a0 the input, a4..a7 the
   four weight rows, t3..t6 the sums, t0..t2 loaded bytes and products, a1 / a2 the loops' ends
   (in the dyadic clamp form's requantization a1 = K - 2^q, for negative sums). */
#define A_X 0
#define A_W 16
#define A_Y 20
#define A_AMIN 28
#define A_AMAX 32
#define A_MULT 52
#define A_KOFF 68
#define A_RIGHT 84
#define A_ROUND_HIGH 100
#define A_OFFSET_HIGH4 136
#define A_ROUND4 152
#define A_RIGHT4 168
#define A_WSTRIDE 124
#define A_FLOOR 128

#include "dot4.inc"
#include "requant_range.inc"

/* sum acc requantized into byte k of the block's outputs (a sum below the floor is amin); an
   out-of-range result through FIXUP id */
.macro REQ k, acc, id
    mv   t0, s10
    blt  \acc, s9, .Lst\id
    slli t0, \acc, 2
    mulh t0, t0, s6
    srai t1, \acc, 31
    ori  t1, t1, 1
    add  t0, t0, t1
    add  t0, t0, s7
    sra  t0, t0, s8
    blt  t0, s10, .Llo\id
    blt  s11, t0, .Lhi\id
.Lst\id:
    sb   t0, \k(s3)
.endm

.macro FIXUP id
.Llo\id:
    mv   t0, s10
    j    .Lst\id
.Lhi\id:
    mv   t0, s11
    j    .Lst\id
.endm

/* the dyadic forms' sum at or above their floor (the caller's test): above V amax, else
   (v * m + s7) >> 21, stored at label \st */
.macro REQ_DY_UPPER k, acc, st
    mv   t0, s11
    blt  s8, \acc, \st
    mul  t0, \acc, s6
    add  t0, t0, s7
    srai t0, t0, 21
\st:
    sb   t0, \k(s3)
.endm

/* the dyadic ReLU form: a sum below 1 is amin, else REQ_DY_UPPER */
.macro REQ_RELU_DY k, acc, id
    mv   t0, s10
    blt  \acc, s9, .Lrs\id
    REQ_DY_UPPER \k, \acc, .Lrs\id
.endm

/* the dyadic clamp form: a sum of 0 or more through REQ_DY_UPPER, a negative one through
   NEG_DY id */
.macro REQ_CLAMP_DY k, acc, id
    bltz \acc, .Lng\id
    REQ_DY_UPPER \k, \acc, .Lcs\id
.endm

/* a negative sum: below Vlo amin, else (v * m + K - 2^q) >> 21 (a1) */
.macro NEG_DY acc, id
.Lng\id:
    mv   t0, s10
    blt  \acc, s9, .Lcs\id
    mul  t0, \acc, s6
    add  t0, t0, a1
    srai t0, t0, 21
    j    .Lcs\id
.endm

/* the function's entry: the callee-saved registers (at the top of a frame of `frame` bytes), the
   arguments and the block's fields; the requantization's three words from mult_off, koff_off and
   right_off */
.macro LR_ENTER mult_off, koff_off, right_off, frame=48
    addi sp, sp, -\frame
    sw   s0, (\frame - 4)(sp)
    sw   s1, (\frame - 8)(sp)
    sw   s2, (\frame - 12)(sp)
    sw   s3, (\frame - 16)(sp)
    sw   s4, (\frame - 20)(sp)
    sw   s5, (\frame - 24)(sp)
    sw   s6, (\frame - 28)(sp)
    sw   s7, (\frame - 32)(sp)
    sw   s8, (\frame - 36)(sp)
    sw   s9, (\frame - 40)(sp)
    sw   s10, (\frame - 44)(sp)
    sw   s11, (\frame - 48)(sp)
    mv   s0, a1
    mv   s1, a2
    mv   s2, a3
    lw   s4, A_X(a0)
    lw   a4, A_W(a0)
    lw   s3, A_Y(a0)
    lw   s5, A_WSTRIDE(a0)
    lw   s6, \mult_off(a0)
    lw   s7, \koff_off(a0)
    lw   s8, \right_off(a0)
    lw   s9, A_FLOOR(a0)
    lw   s10, A_AMIN(a0)
    lw   s11, A_AMAX(a0)
    andi a3, s5, -8
.endm

/* a block's four sums: its constants plus xterm, and the dot products */
.macro LR_BLOCK
    lw   t3, 0(s0)
    lw   t4, 4(s0)
    lw   t5, 8(s0)
    lw   t6, 12(s0)
    addi s0, s0, 16
    add  t3, t3, s2
    add  t4, t4, s2
    add  t5, t5, s2
    add  t6, t6, s2
    mv   a0, s4
    add  a1, s4, a3               /* the end of the 8-byte steps */
    add  a2, s4, s5               /* the end of the row */
    add  a5, a4, s5
    add  a6, a5, s5
    add  a7, a6, s5
    .p2align 2                    /* (the 8-byte step starts on a word: after one beq) */
    DOT4_RUN
.endm

/* after a block's outputs: the next block, or the return */
.macro LR_NEXT loop
    addi s3, s3, 4
    mv   a4, a7                   /* the next block's first row: right after this block's last */
    addi s1, s1, -1
    bnez s1, \loop
.endm

.macro LR_LEAVE frame=48
    lw   s0, (\frame - 4)(sp)
    lw   s1, (\frame - 8)(sp)
    lw   s2, (\frame - 12)(sp)
    lw   s3, (\frame - 16)(sp)
    lw   s4, (\frame - 20)(sp)
    lw   s5, (\frame - 24)(sp)
    lw   s6, (\frame - 28)(sp)
    lw   s7, (\frame - 32)(sp)
    lw   s8, (\frame - 36)(sp)
    lw   s9, (\frame - 40)(sp)
    lw   s10, (\frame - 44)(sp)
    lw   s11, (\frame - 48)(sp)
    addi sp, sp, \frame
    ret
.endm

    .section .text.etmcu_rv32_linear_row, "ax", @progbits
    .globl etmcu_rv32_linear_row
    .type etmcu_rv32_linear_row, @function
    .p2align 2
etmcu_rv32_linear_row:
    LR_ENTER A_MULT, A_ROUND4, A_RIGHT4
    blez s1, 9f
    .p2align 2
1:  LR_BLOCK
    RQ_BEGIN
    REQ  0, t3, 0
    REQ  1, t4, 1
    REQ  2, t5, 2
    REQ  3, t6, 3
    RQ_END
    LR_NEXT 1b
9:  LR_LEAVE
    RQ_BEGIN
    .irp id, 0, 1, 2, 3
    FIXUP \id
    .endr
    RQ_END
    .size etmcu_rv32_linear_row, . - etmcu_rv32_linear_row

    .section .text.etmcu_rv32_linear_row_dy, "ax", @progbits
    .globl etmcu_rv32_linear_row_dy
    .type etmcu_rv32_linear_row_dy, @function
    .p2align 2
etmcu_rv32_linear_row_dy:
    /* m (round_high), K (offset_high), V (right): channel 0's; K - 2^q at 0(sp) */
    LR_ENTER A_ROUND_HIGH, A_KOFF, A_RIGHT, 64
    lw   t0, A_OFFSET_HIGH4(a0)
    sub  t0, s7, t0
    sw   t0, 0(sp)
    blez s1, 9f
    .p2align 2
1:  LR_BLOCK
    RQ_BEGIN
    blez s9, 5f                   /* the floor Vlo <= 0: the clamp form */
    REQ_RELU_DY 0, t3, 0
    REQ_RELU_DY 1, t4, 1
    REQ_RELU_DY 2, t5, 2
    REQ_RELU_DY 3, t6, 3
    RQ_END
    LR_NEXT 1b
9:  LR_LEAVE 64
5:  RQ_BEGIN
    lw   a1, 0(sp)                /* the negative sums' constant: K less the sign term 2^q */
    REQ_CLAMP_DY 0, t3, 4
    REQ_CLAMP_DY 1, t4, 5
    REQ_CLAMP_DY 2, t5, 6
    REQ_CLAMP_DY 3, t6, 7
    RQ_END
    LR_NEXT 1b
    j    9b
    RQ_BEGIN
    NEG_DY t3, 4
    NEG_DY t4, 5
    NEG_DY t5, 6
    NEG_DY t6, 7
    RQ_END
    .size etmcu_rv32_linear_row_dy, . - etmcu_rv32_linear_row_dy
