/* etmcu_xpulp_pointwise_4ch: one block of four output channels of an int8 convolution whose
   receptive field is one contiguous row per pixel (1x1 kernels), dot products and CMSIS-NN
   requantization together, on the CV32E40P with its PULP extensions. The C side
   (isa/xpulp/pointwise.h) fills the argument block and checks what this code assumes.

   void etmcu_xpulp_pointwise_4ch(PointwiseBlock* a, PointwiseRows* rows);

   With a->groups > 0 it runs that many blocks of four channels one after another over the same
   pixels, writing each block's parameters (from a->group_full / group_mult / group_shift and
   group_offset) and its w and y into *a as it goes (util/pointwise.h: pointwise_groups).

   For pixel p < a->pixels (receptive field at x + p * x_step: `rows` runs of 4 * words bytes,
   row_skip apart; outputs at y + p * y_step) and channel k < 4 (weights at w + k * w_stride):
     v = full[k] + sum over the receptive field of x_p[i] * w_k[i]
     y_p[k] = clamp(requantize(v) + output offset, amin, amax)
   with the requantization in the form of cmsis_math.h's requantize_offset_4v (|v| < 2^29,
   multiplier > 0, right shift r in [1, 20]):
     H = hi(4v * m);  y = (H + (v < 0 ? -1 : 1) + (offset << (r+1)) + 2^r) >> (r+1)
   the last add, rounding constant and shift being one cv.addRNr.

   When the pixels' rows are as far apart as the channels' weights (1x1 kernels, stride 1,
   rows == 1), pixels go five at a time while five are left in layers with a fused ReLU and rows of
   an even number of words (29 cycles per 80 multiply-accumulates), else four at a time while four
   are left (one set of offsets serves rows and weights: 24 cycles per 64). Where they are not
   (several kernel rows: a kxk layer's interior) four at a time too, for runs of an even number of
   words, through the subroutine the block names (pointwise_rows.S: both pointers walking, 24
   cycles per 64). Then three at a time (19 cycles per 48), then two (14 cycles per 32); a last
   odd pixel alone (9 cycles per 16).
   With a PointwiseRows (the second argument; null: one row, groups 0) the pixels are out_rows
   rows of `pixels`: after a row the block's x and y move on by x_row_jump and y_row_jump (the
   block is written) and its paths start again (the convolution's interior in one call a block).
   Encodings (binutils 2.40 lacks the CORE-V mnemonics; as in sim/isa/instructions.def):
   cv.setup 0, rs1, n (opcode 0x2b, funct3 4, rd field 14), cv.lw post-increment (0x0b, funct3 2),
   cv.lw rd, rs2(rs1) (0x2b, funct3 3, funct7 0x06), cv.sb.pr (0x2b, funct3 3, funct7 0x10: M[rs1] =
   rs2, rs1 += the register in the rd field),
   cv.sdotsp.b (0x7b, funct3 1, funct7 0x54), cv.max / cv.min (0x2b, funct3 3, funct7 0x2d / 0x2b),
   cv.addRNr (0x2b, funct3 3, funct7 0x42). */
#include "pointwise_block_asm.h"
#include "../rv32/requant_range.inc"
/* The dyadic form (pointwise_4ch_dy.S defines PW_DYADIC and includes this file): the same code
   with cmsis_math.h's requantize_offset_dyadic, one mul instead of a mulh, its parameters in the
   fields the frexp form's A_MULT / A_KOFF4 / A_RIGHT4 name (util/pointwise.h set_requant): the
   multiplier >> 11, offset * 2^21 + 2^19 and the sums' clamp bound B. */
#ifndef PW_DYADIC
#define PW_DYADIC 0
#endif
/* The frame: the saved registers at 0..48, the paths' words at 52..140; the dyadic form's
   five-pixel path also the channels' bounds and floors with the bias folded out (below) */
#if PW_DYADIC
#define PW_FRAME 176
#define F_B5 144
#define F_NF5 160
#else
#define PW_FRAME 144
#endif
/* the call's util/pointwise.h PointwiseRows, or null: one row */
#define F_RP 132
#if PW_DYADIC
#define A_MULT 100
#define A_KOFF4 68
#define A_RIGHT4 84
#define PW_4CH etmcu_xpulp_pointwise_4ch_dy
#define PW_1PX etmcu_xpulp_pointwise_1px_dy
#define PW_4CH_SECTION .text.etmcu_xpulp_pointwise_4ch_dy
#define PW_1PX_SECTION .text.etmcu_xpulp_pointwise_1px_dy
#else
#define A_MULT 52
#define A_KOFF4 136
#define A_RIGHT4 168
#define PW_4CH etmcu_xpulp_pointwise_4ch
#define PW_1PX etmcu_xpulp_pointwise_1px
#define PW_4CH_SECTION .text.etmcu_xpulp_pointwise_4ch
#define PW_1PX_SECTION .text.etmcu_xpulp_pointwise_1px
#endif

/* \reg = the block's floor (neg_floor), or in the dyadic form 2^20 (REQ_VALUE's sign term) */
.macro LOAD_FLOOR reg
#if PW_DYADIC
    lui  \reg, 0x100
#else
    lw   \reg, A_FLOOR(a0)
#endif
.endm

/* t2 = the requantized, clamped acc, leaving through the label that ends it: the caller's store
   follows. a2 = m, a3 = offset << (r+1), \right = r + 1, ra = amin, t6 = amax; a sum below
   \floor (neg_floor) is amin without the arithmetic; t0, t1 temporaries. full_range (the dyadic
   form's four-pixel path, which takes no other activation: pointwise.h dyadic_clamp_ok): amin is
   -128 and amax 127, one cv.clip instead of cv.max and cv.min */
.macro REQ_VALUE acc, floor, right, full_range=0
#if PW_DYADIC
    /* (\right: the bound B, \floor: 2^20 (LOAD_FLOOR). No floor test: a negative sum's result
       is at most the offset, so a fused ReLU's clamp gives amin. The sum clamped to [-B-1, B],
       its product, -2^20 for a negative sum, then offset * 2^21 + 2^19 (a3), 2^20 and >> 21 in
       one cv.addRN: 7 instructions against the frexp form's 12) */
    .insn r 0x2b, 3, 0x3a, t0, \acc, \right /* cv.clipr t0, acc, B */
    srai t1, t0, 31
    mul  t2, t0, a2
    .insn r 0x2b, 3, 0x48, t2, t1, \floor  /* cv.mac t2, t1, 2^20 */
    .insn r 0x5b, 2, 0x55, t2, t2, a3      /* cv.addRN t2, t2, a3, 21 */
    .if \full_range
    .insn r 0x2b, 3, 0x38, t2, t2, x8      /* cv.clip t2, t2, 8: [-128, 127] */
    .else
    .insn r 0x2b, 3, 0x2d, t2, t2, ra      /* cv.max */
    .insn r 0x2b, 3, 0x2b, t2, t2, t6      /* cv.min */
    .endif
#else
    mv   t2, ra
    blt  \acc, \floor, .Lreq\@
    slli t0, \acc, 2
    mulh t2, t0, a2
    srai t1, \acc, 31
    ori  t1, t1, 1
    add  t2, t2, t1
    .insn r 0x2b, 3, 0x42, t2, a3, \right  /* cv.addRNr t2, a3, right */
    .insn r 0x2b, 3, 0x2d, t2, t2, ra      /* cv.max */
    .insn r 0x2b, 3, 0x2b, t2, t2, t6      /* cv.min */
#endif
.Lreq\@:
.endm

/* requantize acc into output byte OFF(ybase); r + 1 in a4 */
.macro REQ acc, off, ybase, floor
    REQ_VALUE \acc, \floor, a4
    sb   t2, \off(\ybase)
.endm

/* channel k of both pixels: its parameters, then the two outputs */
.macro REQ_CHANNEL k, acc0, acc1
    lw   a2, (A_MULT + 4 * \k)(a0)
    lw   a3, (A_KOFF4 + 4 * \k)(a0)
    lw   a4, (A_RIGHT4 + 4 * \k)(a0)
    REQ  \acc0, \k, a6, t4
    REQ  \acc1, \k, t5, t4
.endm

.macro REQ_CHANNEL3 k, acc0, acc1, acc2
    lw   a2, (A_MULT + 4 * \k)(a0)
    lw   a3, (A_KOFF4 + 4 * \k)(a0)
    lw   a4, (A_RIGHT4 + 4 * \k)(a0)
    REQ  \acc0, \k, a6, a5
    REQ  \acc1, \k, t3, a5
    REQ  \acc2, \k, t4, a5
.endm

/* the four-pixel path's: acc's output at a1, a1 += y_step (t4); r + 1 in t3, the floor in t5 */
.macro REQQ acc
    REQ_VALUE \acc, t5, t3, 1
    .insn r 0x2b, 3, 0x10, t4, a1, t2      /* cv.sb.pr t2, (a1), t4 */
.endm

/* channel k of the four pixels (outputs from 68(sp) + k, y_step apart) */
.macro REQ_CHANNEL4 k, acc0, acc1, acc2, acc3
    lw   a2, (A_MULT + 4 * \k)(a0)
    lw   a3, (A_KOFF4 + 4 * \k)(a0)
    lw   t3, (A_RIGHT4 + 4 * \k)(a0)
    lw   a1, 68(sp)
    .if \k
    addi a1, a1, \k
    .endif
    REQQ \acc0
    REQQ \acc1
    REQQ \acc2
    REQQ \acc3
.endm

/* A fused ReLU's requantization and store (the floor is 0: amin is the output offset), in two
   copies of a block's outputs: the positive flow (the last output's sum was at or above 0) and
   the negative flow (it was below). A sum at or above 0 has the sign term +1 (folded into koff)
   and a result of at least amin (no cv.max); a negative one stores amin. In its own flow an
   output's test falls through (1 cycle) to its work: in the positive one the arithmetic and the
   store of the result (9 cycles), in the negative one the store of amin (1 cycle); a change of
   sign branches (3 cycles) into the other flow at the same output. One flow would spend a `mv` of
   amin per output and a taken branch per negative sum (11 / 5 cycles). Output n of the flows
   `tag`; m, koff = offset << (r+1) plus 1, right = r + 1, amin, amax; the output at (out),
   out += step; t2 the result. */
.macro RELU_ARITH acc, m, koff, right, amax
#if PW_DYADIC
    .insn r 0x2b, 3, 0x2b, t2, \acc, \right   /* cv.min t2, acc, B (right: the bound) */
    mul  t2, t2, \m
    .insn r 0x5b, 2, 0x55, t2, t2, \koff      /* cv.addRN t2, t2, koff, 21 */
#else
    slli t2, \acc, 2
    mulh t2, t2, \m
    .insn r 0x2b, 3, 0x42, t2, \koff, \right  /* cv.addRNr */
#endif
    .insn r 0x2b, 3, 0x2b, t2, t2, \amax      /* cv.min */
.endm

.macro RELU_POS tag, n, acc, m, koff, right, amax, out, step, floor=zero
.L\tag\()pc\n:
    blt  \acc, \floor, .L\tag\()ns\n
.L\tag\()pb\n:
    RELU_ARITH \acc, \m, \koff, \right, \amax
    .insn r 0x2b, 3, 0x10, \step, \out, t2    /* cv.sb.pr t2, (out), step */
.endm

.macro RELU_NEG tag, n, acc, amin, out, step, floor=zero
.L\tag\()nc\n:
    bge  \acc, \floor, .L\tag\()pb\n
.L\tag\()ns\n:
    .insn r 0x2b, 3, 0x10, \step, \out, \amin  /* cv.sb.pr amin, (out), step */
.endm

/* the same with the output at off(base), base unchanged */
.macro RELU_POS_AT tag, n, acc, m, koff, right, amax, off, base
.L\tag\()pc\n:
    blt  \acc, zero, .L\tag\()ns\n
.L\tag\()pb\n:
    RELU_ARITH \acc, \m, \koff, \right, \amax
    sb   t2, \off(\base)
.endm

.macro RELU_NEG_AT tag, n, acc, amin, off, base
.L\tag\()nc\n:
    bge  \acc, zero, .L\tag\()pb\n
.L\tag\()ns\n:
    sb   \amin, \off(\base)
.endm

/* the three-pixel path's: channel k's outputs are n = 3k .. 3k + 2, at k(a6), k(t3), k(t4);
   a2 = m, a3 = koff, a4 = r + 1, ra = amin, t6 = amax */
.macro Q3_POS k, n, acc, base
    RELU_POS_AT q3, \n, \acc, a2, a3, a4, t6, \k, \base
.endm
.macro Q3_NEG k, n, acc, base
    RELU_NEG_AT q3, \n, \acc, ra, \k, \base
.endm
.macro Q3_PARAMS k
    lw   a2, (A_MULT + 4 * \k)(a0)
    lw   a3, (A_KOFF4 + 4 * \k)(a0)
    lw   a4, (A_RIGHT4 + 4 * \k)(a0)
#if !PW_DYADIC
    addi a3, a3, 1
#endif
.endm

/* the four-pixel path's: channel k's outputs are n = 4k .. 4k + 3; a2 = m, a3 = koff, t3 = r + 1,
   ra = amin, t6 = amax, the output at a1, a1 += y_step (t4) */
.macro Q4_POS n, acc
    RELU_POS q4, \n, \acc, a2, a3, t3, t6, a1, t4
.endm
.macro Q4_NEG n, acc
    RELU_NEG q4, \n, \acc, ra, a1, t4
.endm

/* channel k's parameters (a1 from the previous channel's fourth output: t5 = 1 - 4 y_step) */
.macro Q4_PARAMS k
    lw   a2, (A_MULT + 4 * \k)(a0)
    lw   a3, (A_KOFF4 + 4 * \k)(a0)
    lw   t3, (A_RIGHT4 + 4 * \k)(a0)
    .if \k
    add  a1, a1, t5
    .else
    lw   a1, 68(sp)
    .endif
#if !PW_DYADIC
    addi a3, a3, 1
#endif
.endm

/* one word of the five-pixel loop, forward (weight rows 0..3, pixels 0..4; \op: cv.sdotsp.b,
   0x54, or the dyadic pass's first word, cv.dotsp.b, 0x48) and backward (rows 3..0, pixels
   4..0): the pointers walk, so a loop pass is one of each */
.macro Q5_FWD op, count=0
    .insn r 0x2b, 3, 0x02, t3, t1, t2      /* w0, t1 += C */
    .insn r 0x2b, 3, 0x02, t4, t1, t2      /* w1 */
    .insn r 0x2b, 3, 0x02, t5, t1, t2      /* w2 */
    .insn i 0x0b, 2, t6, t1, 4             /* w3, t1 += 4 */
    .insn r 0x2b, 3, 0x02, gp, t0, t2      /* x0, t0 += C */
    .insn r 0x2b, 3, 0x02, a0, t0, t2      /* x1 */
    .insn r 0x7b, 1, \op, s0, gp, t3
    .insn r 0x7b, 1, \op, s1, gp, t4
    .insn r 0x7b, 1, \op, s2, gp, t5
    .insn r 0x7b, 1, \op, s3, gp, t6
    .insn r 0x2b, 3, 0x02, gp, t0, t2      /* x2 */
    .insn r 0x7b, 1, \op, s4, a0, t3
    .insn r 0x7b, 1, \op, s5, a0, t4
    .insn r 0x7b, 1, \op, s6, a0, t5
    .insn r 0x7b, 1, \op, s7, a0, t6
    .insn r 0x2b, 3, 0x02, a0, t0, t2      /* x3 */
    .insn r 0x7b, 1, \op, s8, gp, t3
    .insn r 0x7b, 1, \op, s9, gp, t4
    .insn r 0x7b, 1, \op, s10, gp, t5
    .insn r 0x7b, 1, \op, s11, gp, t6
    .insn i 0x0b, 2, gp, t0, 4             /* x4, t0 += 4 */
    .insn r 0x7b, 1, \op, a1, a0, t3
    .insn r 0x7b, 1, \op, a2, a0, t4
    .insn r 0x7b, 1, \op, a3, a0, t5
    .insn r 0x7b, 1, \op, a4, a0, t6
.if \count
    lw   a0, 108(sp)                        /* (a0 free: the loop's passes) */
.endif
    .insn r 0x7b, 1, \op, a5, gp, t3
    .insn r 0x7b, 1, \op, a6, gp, t4
    .insn r 0x7b, 1, \op, a7, gp, t5
    .insn r 0x7b, 1, \op, ra, gp, t6
.endm
.macro Q5_BWD
    .insn r 0x2b, 3, 0x02, t6, t1, tp      /* w3, t1 -= C */
    .insn r 0x2b, 3, 0x02, t5, t1, tp      /* w2 */
    .insn r 0x2b, 3, 0x02, t4, t1, tp      /* w1 */
    .insn i 0x0b, 2, t3, t1, 4             /* w0, t1 += 4 */
    .insn r 0x2b, 3, 0x02, gp, t0, tp      /* x4, t0 -= C */
    .insn r 0x2b, 3, 0x02, a0, t0, tp      /* x3 */
    .insn r 0x7b, 1, 0x54, a5, gp, t3
    .insn r 0x7b, 1, 0x54, a6, gp, t4
    .insn r 0x7b, 1, 0x54, a7, gp, t5
    .insn r 0x7b, 1, 0x54, ra, gp, t6
    .insn r 0x2b, 3, 0x02, gp, t0, tp      /* x2 */
    .insn r 0x7b, 1, 0x54, a1, a0, t3
    .insn r 0x7b, 1, 0x54, a2, a0, t4
    .insn r 0x7b, 1, 0x54, a3, a0, t5
    .insn r 0x7b, 1, 0x54, a4, a0, t6
    .insn r 0x2b, 3, 0x02, a0, t0, tp      /* x1 */
    .insn r 0x7b, 1, 0x54, s8, gp, t3
    .insn r 0x7b, 1, 0x54, s9, gp, t4
    .insn r 0x7b, 1, 0x54, s10, gp, t5
    .insn r 0x7b, 1, 0x54, s11, gp, t6
    .insn i 0x0b, 2, gp, t0, 4             /* x0, t0 += 4 */
    .insn r 0x7b, 1, 0x54, s4, a0, t3
    .insn r 0x7b, 1, 0x54, s5, a0, t4
    .insn r 0x7b, 1, 0x54, s6, a0, t5
    .insn r 0x7b, 1, 0x54, s7, a0, t6
    .insn r 0x7b, 1, 0x54, s0, gp, t3
    .insn r 0x7b, 1, 0x54, s1, gp, t4
    .insn r 0x7b, 1, 0x54, s2, gp, t5
    .insn r 0x7b, 1, 0x54, s3, gp, t6
.endm

/* the five-pixel path's: channel k's outputs are n = 5k .. 5k + 4; t3 = m, t4 = koff, t5 = r + 1,
   gp = amin, t6 = amax, the output at t1, t1 += y_step (tp). In the dyadic form the sums start
   without the bias (the pass's first word's cv.dotsp.b): t0 = -full, the floor a sum is tested
   against, t5 = B - full, t4 = koff + full * m (exact: the product and cv.addRN's add wrap in 32
   bits, as the unfolded form's). */
#if PW_DYADIC
.macro Q5_POS n, acc
    RELU_POS q5, \n, \acc, t3, t4, t5, t6, t1, tp, t0
.endm
.macro Q5_NEG n, acc
    RELU_NEG q5, \n, \acc, gp, t1, tp, t0
.endm
#else
.macro Q5_POS n, acc
    RELU_POS q5, \n, \acc, t3, t4, t5, t6, t1, tp
.endm
.macro Q5_NEG n, acc
    RELU_NEG q5, \n, \acc, gp, t1, tp
.endm
#endif

/* channel k's parameters (t1 from the previous channel's fifth output: t0 = 1 - 5 y_step; in the
   dyadic form from the pass's first output at 96(sp), t0 being the floor) */
.macro Q5_PARAMS k
#if PW_DYADIC
    lw   t1, 96(sp)
    lw   t0, (F_NF5 + 4 * \k)(sp)
    lw   t3, (A_MULT + 4 * \k)(a0)
    lw   t4, (112 + 4 * \k)(sp)
    lw   t5, (F_B5 + 4 * \k)(sp)
    .if \k
    addi t1, t1, \k
    .endif
#else
    lw   t3, (A_MULT + 4 * \k)(a0)
    lw   t4, (112 + 4 * \k)(sp)            /* offset << (r+1), plus 1 */
    lw   t5, (A_RIGHT4 + 4 * \k)(a0)
    .if \k
    add  t1, t1, t0
    .else
    lw   t1, 96(sp)
    .endif
#endif
.endm

/* after the twentieth output: the next block's outputs (channel 3's fifth + y_step - 3), and
   the next block unless this was the last */
.macro Q5_NEXT
    lw   t0, 100(sp)
    addi t1, t1, -3
    sw   t1, 96(sp)
    bne  t1, t0, .Lquint
.endm

/* the dyadic form's channel k from its multiplier \mr (m << 11; clobbers \mr and a1; t6 holds
   2^29 - 1): m and the bound (2^29 - 1) >> (L - 1) = 2^(30-L) - 1 (L the bit length of m,
   cv.fl1), as depthwise_rows.S's channel loop derives it */
.macro DY_CHANNEL k, mr
    srai \mr, \mr, 11
    sw   \mr, (A_MULT + 4 * \k)(a0)
    .insn r 0x2b, 3, 0x22, a1, \mr, x0     /* cv.fl1 a1, mr: L - 1 */
    srl  a1, t6, a1
    sw   a1, (A_RIGHT4 + 4 * \k)(a0)
.endm

.macro REQ_CHANNEL1 k, acc
    lw   a2, (A_MULT + 4 * \k)(a0)
    lw   a3, (A_KOFF4 + 4 * \k)(a0)
    lw   a4, (A_RIGHT4 + 4 * \k)(a0)
    REQ  \acc, \k, a6, t4
.endm

    /* (each function in its own section: a firmware whose program has only linear layers links
       the one-pixel function alone, --gc-sections dropping this one) */
    .section PW_4CH_SECTION, "ax", @progbits
    .option push
    .option norvc
    /* (no linker relaxation: the branches stay resolved here, no local labels in the ELF that
       would cut the function in two for tools/firmware/stack_bound.py) */
    .option norelax
    .globl PW_4CH
    .type PW_4CH, @function
    .p2align 2
PW_4CH:
    addi sp, sp, -PW_FRAME
    sw   ra, 48(sp)
    sw   s0, 44(sp)
    sw   s1, 40(sp)
    sw   s2, 36(sp)
    sw   s3, 32(sp)
    sw   s4, 28(sp)
    sw   s5, 24(sp)
    sw   s6, 20(sp)
    sw   s7, 16(sp)
    sw   s8, 12(sp)
    sw   s9, 8(sp)
    sw   s10, 4(sp)
    sw   s11, 0(sp)
    sw   a1, F_RP(sp)
    /* Blocks of four channels one after another over the same pixels (groups > 0: the blocks'
       parameters from the layer's arrays, full, multiplier and shift per channel, the weights
       and outputs of each block 4 w_stride and 4 bytes after the last's), or one block whose
       parameters are in the argument block (groups == 0). The blocks left, this one included,
       at 128(sp). */
    lw   t0, A_GROUPS(a0)
    sw   t0, 128(sp)
    sw   zero, 140(sp)        /* where a block of channels starts: 0 the path's choice below, */
    beqz t0, .Lblock          /* 1 (the five-pixel path) past what the blocks share */
.Lgroup:
    /* this block's parameters into the argument block (the 4v form: offset << (1 - shift) and
       1 - shift), the arrays' pointers on to the next block's */
    lw   t1, A_GFULL(a0)
    lw   t2, A_GMULT(a0)
    lw   t3, A_GSHIFT(a0)
    lw   t4, A_GOFFSET(a0)
    lw   a1, 0(t1)
    lw   a2, 4(t1)
    lw   a3, 8(t1)
    lw   a4, 12(t1)
    lw   a5, 0(t2)
    lw   a6, 4(t2)
    lw   a7, 8(t2)
    lw   t5, 12(t2)
    sw   a1, (A_FULL + 0)(a0)
    sw   a2, (A_FULL + 4)(a0)
    sw   a3, (A_FULL + 8)(a0)
    sw   a4, (A_FULL + 12)(a0)
#if PW_DYADIC
    /* (the dyadic parameters from the multipliers, m << 11 in a5..a7, t5; the shifts are -1) */
    slli t4, t4, 21
    lui  t6, 0x80
    add  t4, t4, t6
    sw   t4, (A_KOFF4 + 0)(a0)     /* offset * 2^21 + 2^19 */
    sw   t4, (A_KOFF4 + 4)(a0)
    sw   t4, (A_KOFF4 + 8)(a0)
    sw   t4, (A_KOFF4 + 12)(a0)
    lui  t6, 0x20000
    addi t6, t6, -1           /* 2^29 - 1 (DY_CHANNEL) */
    DY_CHANNEL 0, a5
    DY_CHANNEL 1, a6
    DY_CHANNEL 2, a7
    DY_CHANNEL 3, t5
#else
    sw   a5, (A_MULT + 0)(a0)
    sw   a6, (A_MULT + 4)(a0)
    sw   a7, (A_MULT + 8)(a0)
    sw   t5, (A_MULT + 12)(a0)
    lw   a1, 0(t3)
    lw   a2, 4(t3)
    lw   a3, 8(t3)
    lw   a4, 12(t3)
    li   t6, 1
    sub  a1, t6, a1
    sub  a2, t6, a2
    sub  a3, t6, a3
    sub  a4, t6, a4
    sw   a1, (A_RIGHT4 + 0)(a0)
    sw   a2, (A_RIGHT4 + 4)(a0)
    sw   a3, (A_RIGHT4 + 8)(a0)
    sw   a4, (A_RIGHT4 + 12)(a0)
    sll  a1, t4, a1
    sll  a2, t4, a2
    sll  a3, t4, a3
    sll  a4, t4, a4
    sw   a1, (A_KOFF4 + 0)(a0)
    sw   a2, (A_KOFF4 + 4)(a0)
    sw   a3, (A_KOFF4 + 8)(a0)
    sw   a4, (A_KOFF4 + 12)(a0)
#endif
    addi t1, t1, 16
    addi t2, t2, 16
    addi t3, t3, 16
    sw   t1, A_GFULL(a0)
    sw   t2, A_GMULT(a0)
    sw   t3, A_GSHIFT(a0)
    lw   t0, 140(sp)
    bnez t0, .Lq5group
.Lblock:
    lw   a1, A_X(a0)          /* a1: this pair's first row */
    lw   s9, A_XSTEP(a0)
    lw   s11, A_PIXELS(a0)    /* pixels left */
    lw   a7, A_WORDS(a0)
    lw   s8, A_W(a0)
    lw   a6, A_Y(a0)          /* a6: this pair's first output */
    lw   s10, A_YSTEP(a0)
    lw   a5, A_WSTRIDE(a0)    /* bytes between the channels' weights */
    sw   a5, 52(sp)
    /* Four pixels by four channels while four are left, when one set of offsets (x_step,
       2 x_step, 3 x_step) reaches both the next pixels' rows and the next channels' weights:
       each input word of the four rows and of the four weight rows (8 loads, the last of each
       four post-incrementing the pointer the other three add their offset to) feeds sixteen
       cv.sdotsp.b, 24 cycles per 64 multiply-accumulates. s0..s11, a4..a7 the sums; t0 the rows,
       t1 the weights, t2 / ra / a1 the offsets; a2, a3, t3, t4 the x words, t5 / t6 the weight
       words. The block's x and y live at 64 / 68(sp) meanwhile, the pixels left after it at
       60(sp), and 1 - 4 y_step at 72(sp). */
    lw   t0, A_ROWS(a0)
    addi t0, t0, -1
    bnez t0, .Lrows_go        /* (kernel rows: four pixels with the walking pointers below) */
    bne  a5, s9, .Ltriple
    slli t0, a7, 2
    bne  t0, s9, .Ltriple     /* (x_step == 4 words: the next block's rows below) */
    li   t0, 4
    blt  s11, t0, .Ltriple
    /* Five pixels by four channels where the four-pixel loop could run, with a fused ReLU's
       requantization and an even number of words, while five are left (C = x_step = w_stride
       = 4 words, one row): each input word of the five rows and of the four weight
       rows (9 loads) feeds twenty cv.sdotsp.b, 29 cycles per 80 multiply-accumulates against 24
       per 64 in the four-pixel loop. Twenty sums, four weight words, two ping-ponged x words and
       the two pointers with their steps C and -C take 30 registers: ra, gp and tp included (gp
       and tp saved here; the fatal-trap entry reloads gp), a0 kept at 88(sp). Without registers
       for 2C, 3C and 4C offsets, the pointers walk: one word forward through the rows (+C, the
       last +4), the next word backward (-C, the last +4), so a loop pass is two words.
       t0 the rows, t1 the weights, t2 = C, tp = -C; t3..t6 the weight words, gp / a0 the x
       words; the sums channel k of pixel p: p0 s0..s3, p1 s4..s7, p2 s8..s11, p3 a1..a4,
       p4 a5, a6, a7, ra. The block's x and y live at 92 / 96(sp), the outputs past the last block at
       100(sp) (the loop's end), 1 - 5 y_step at 104(sp), the passes at 108(sp), the channels'
       offset << (r+1) plus 1 at 112..124(sp), the pixels left after the blocks at 76(sp), their
       outputs' span at 136(sp). In the dyadic form the sums start without the bias, from the
       first word's cv.dotsp.b (a pass's first word forward and its last backward outside the
       loop, the passes less one at 108(sp)), the bias in each channel's offset term at 112..124,
       its floor -full at F_NF5 and its bound B - full at F_B5, once per block of channels: 20
       `mv` and 4 loads fewer a pass, 7 more instructions in its requantization's parameters
       (t0 holds the floor, so the outputs' pointer comes from 96(sp) for each channel). */
    andi t0, a7, 1
    bnez t0, .Lquad_go        /* (an odd number of words: the four-pixel loop) */
    lw   t0, A_FLOOR(a0)
    bnez t0, .Lquad_go
    li   t0, 5
    blt  s11, t0, .Lquad_go
    /* what every block of channels shares (the next ones re-enter at .Lq5group) */
    sw   a0, 88(sp)
    li   t0, 0xcccccccd
    mulhu t0, s11, t0
    srli t0, t0, 2            /* blocks: pixels / 5 */
    slli t1, t0, 2
    add  t1, t1, t0           /* their pixels */
    sub  t2, s11, t1
    sw   t2, 76(sp)           /* the pixels left after them */
    mul  t1, t1, s10
    sw   t1, 136(sp)          /* their outputs' span */
    slli t0, s10, 2
    add  t0, t0, s10
    li   t1, 1
    sub  t0, t1, t0
    sw   t0, 104(sp)          /* 1 - 5 y_step: a channel's fifth output to the next's first */
    srli t0, a7, 1
#if PW_DYADIC
    addi t0, t0, -1           /* (less the first and last words, outside the loop) */
#endif
    sw   t0, 108(sp)          /* loop passes: two words each */
    li   t0, 1
    sw   t0, 140(sp)
.Lq5group:
    /* this block of channels: a0 the argument block (its x, y and parameters) */
    sw   gp, 80(sp)
    sw   tp, 84(sp)
    lw   a1, A_X(a0)
    lw   a6, A_Y(a0)
    lw   t1, 136(sp)
    sw   a1, 92(sp)
    sw   a6, 96(sp)
    add  t1, t1, a6
    sw   t1, 100(sp)          /* the outputs past the last block */
#if PW_DYADIC
    /* the bias folded out of the sums: per channel the floor -full, the bound B - full and the
       offset term koff + full * m */
    .irp k, 0, 1, 2, 3
    lw   t0, (A_FULL + 4 * \k)(a0)
    lw   t1, (A_RIGHT4 + 4 * \k)(a0)
    lw   t2, (A_MULT + 4 * \k)(a0)
    lw   t3, (A_KOFF4 + 4 * \k)(a0)
    sub  t1, t1, t0
    mul  t2, t2, t0
    sub  t0, zero, t0
    add  t3, t3, t2
    sw   t0, (F_NF5 + 4 * \k)(sp)
    sw   t1, (F_B5 + 4 * \k)(sp)
    sw   t3, (112 + 4 * \k)(sp)
    .endr
#else
    lw   t0, (A_KOFF4 + 0)(a0)
    lw   t1, (A_KOFF4 + 4)(a0)
    lw   t2, (A_KOFF4 + 8)(a0)
    lw   t3, (A_KOFF4 + 12)(a0)
    addi t0, t0, 1            /* the sign term's +1 folded in, once per block of channels */
    addi t1, t1, 1
    addi t2, t2, 1
    addi t3, t3, 1
    sw   t0, 112(sp)
    sw   t1, 116(sp)
    sw   t2, 120(sp)
    sw   t3, 124(sp)
#endif
.Lquint:
#if PW_DYADIC
    lw   t2, A_XSTEP(a0)
    lw   t0, 92(sp)
    lw   t1, A_W(a0)
    /* the sums start from the first word's cv.dotsp.b (the bias is in the channels' floors and
       offset terms, .Lq5group): the first word forward, the loop's passes a word backward and one
       forward, the last word backward */
    sub  tp, zero, t2
    Q5_FWD 0x48, 1
    beqz a0, 1f               /* (the loop's passes less one) */
    .insn i 0x2b, 4, x14, a0, 59
    Q5_BWD
    Q5_FWD 0x54
1:  Q5_BWD
#else
    lw   t0, 92(sp)
    lw   t1, A_W(a0)
    lw   t2, A_XSTEP(a0)
    lw   t3, 108(sp)
    lw   s0, (A_FULL + 0)(a0)
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    sub  tp, zero, t2
    mv   s4, s0
    mv   s5, s1
    mv   s6, s2
    mv   s7, s3
    mv   s8, s0
    mv   s9, s1
    mv   s10, s2
    mv   s11, s3
    mv   a1, s0
    mv   a2, s1
    mv   a3, s2
    mv   a4, s3
    mv   a5, s0
    mv   a6, s1
    mv   a7, s2
    mv   ra, s3
    .insn i 0x2b, 4, x14, t3, 59
    Q5_FWD 0x54
    Q5_BWD
#endif
    /* t0 is the block's first row + C: the next block's is 4 C further */
    lw   a0, 88(sp)
    slli t3, t2, 2
    add  t0, t0, t3
    sw   t0, 92(sp)
    RQ_BEGIN
    lw   gp, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    lw   tp, A_YSTEP(a0)
#if !PW_DYADIC
    lw   t0, 104(sp)
#endif
    Q5_PARAMS 0
    Q5_POS 0, s0
    Q5_POS 1, s4
    Q5_POS 2, s8
    Q5_POS 3, a1
    Q5_POS 4, a5
    Q5_PARAMS 1
    Q5_POS 5, s1
    Q5_POS 6, s5
    Q5_POS 7, s9
    Q5_POS 8, a2
    Q5_POS 9, a6
    Q5_PARAMS 2
    Q5_POS 10, s2
    Q5_POS 11, s6
    Q5_POS 12, s10
    Q5_POS 13, a3
    Q5_POS 14, a7
    Q5_PARAMS 3
    Q5_POS 15, s3
    Q5_POS 16, s7
    Q5_POS 17, s11
    Q5_POS 18, a4
    Q5_POS 19, ra
    RQ_END
    Q5_NEXT
    j    .Lq5rest
    RQ_BEGIN
    Q5_NEG 0, s0
    Q5_NEG 1, s4
    Q5_NEG 2, s8
    Q5_NEG 3, a1
    Q5_NEG 4, a5
    Q5_PARAMS 1
    Q5_NEG 5, s1
    Q5_NEG 6, s5
    Q5_NEG 7, s9
    Q5_NEG 8, a2
    Q5_NEG 9, a6
    Q5_PARAMS 2
    Q5_NEG 10, s2
    Q5_NEG 11, s6
    Q5_NEG 12, s10
    Q5_NEG 13, a3
    Q5_NEG 14, a7
    Q5_PARAMS 3
    Q5_NEG 15, s3
    Q5_NEG 16, s7
    Q5_NEG 17, s11
    Q5_NEG 18, a4
    Q5_NEG 19, ra
    RQ_END
    Q5_NEXT
.Lq5rest:
    /* the rest (0..4 pixels): the paths below, with the registers they start from */
    lw   gp, 80(sp)
    lw   tp, 84(sp)
    lw   s11, 76(sp)
    beqz s11, .Ldone
    lw   a1, 92(sp)
    mv   a6, t1
    lw   s9, A_XSTEP(a0)
    lw   s10, A_YSTEP(a0)
    lw   s8, A_W(a0)
    lw   a7, A_WORDS(a0)
    lw   a5, A_WSTRIDE(a0)
    li   t0, 4
    blt  s11, t0, .Ltriple    /* (four left: the four-pixel loop, whose conditions hold) */
.Lquad_go:
    sw   a1, 64(sp)
    sw   a6, 68(sp)
    addi t0, s11, -4
    sw   t0, 60(sp)           /* pixels left after this block */
    slli t0, s10, 2
    li   t1, 1
    sub  t0, t1, t0
    sw   t0, 72(sp)           /* 1 - 4 y_step: a channel's fourth output to the next's first */
.Lquad:
    lw   t0, 64(sp)
    lw   t1, A_W(a0)
    lw   t2, A_XSTEP(a0)
    lw   a2, A_WORDS(a0)
    add  ra, t2, t2
    add  a1, ra, t2
    lw   s0, (A_FULL + 0)(a0)
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    mv   s4, s0
    mv   s5, s1
    mv   s6, s2
    mv   s7, s3
    mv   s8, s0
    mv   s9, s1
    mv   s10, s2
    mv   s11, s3
    mv   a4, s0
    mv   a5, s1
    mv   a6, s2
    mv   a7, s3
    .insn i 0x2b, 4, x14, a2, 25
    .insn r 0x2b, 3, 0x06, a3, t0, t2      /* x1 = cv.lw t2(t0) */
    .insn r 0x2b, 3, 0x06, t3, t0, ra      /* x2 */
    .insn r 0x2b, 3, 0x06, t4, t0, a1      /* x3 */
    .insn i 0x0b, 2, a2, t0, 4             /* x0, t0 += 4 */
    .insn r 0x2b, 3, 0x06, t5, t1, t2      /* w1 */
    .insn r 0x2b, 3, 0x06, t6, t1, ra      /* w2 */
    .insn r 0x7b, 1, 0x54, s1, a2, t5
    .insn r 0x7b, 1, 0x54, s5, a3, t5
    .insn r 0x7b, 1, 0x54, s9, t3, t5
    .insn r 0x7b, 1, 0x54, a5, t4, t5
    .insn r 0x2b, 3, 0x06, t5, t1, a1      /* w3 */
    .insn r 0x7b, 1, 0x54, s2, a2, t6
    .insn r 0x7b, 1, 0x54, s6, a3, t6
    .insn r 0x7b, 1, 0x54, s10, t3, t6
    .insn r 0x7b, 1, 0x54, a6, t4, t6
    .insn i 0x0b, 2, t6, t1, 4             /* w0, t1 += 4 */
    .insn r 0x7b, 1, 0x54, s3, a2, t5
    .insn r 0x7b, 1, 0x54, s7, a3, t5
    .insn r 0x7b, 1, 0x54, s11, t3, t5
    .insn r 0x7b, 1, 0x54, a7, t4, t5
    .insn r 0x7b, 1, 0x54, s0, a2, t6
    .insn r 0x7b, 1, 0x54, s4, a3, t6
    .insn r 0x7b, 1, 0x54, s8, t3, t6
    .insn r 0x7b, 1, 0x54, a4, t4, t6
    add  t0, t0, a1           /* the next block's rows: t0 is past 4 words, a1 is 3 x_step */
    sw   t0, 64(sp)
    RQ_BEGIN
.Lquad_req:                   /* (the rows path's sums too) */
    lw   ra, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    lw   t5, A_FLOOR(a0)
    lw   t4, A_YSTEP(a0)
    bnez t5, 5f
    lw   t5, 72(sp)
    /* (a fused ReLU: the two flows) */
    Q4_PARAMS 0
    Q4_POS 0, s0
    Q4_POS 1, s4
    Q4_POS 2, s8
    Q4_POS 3, a4
    Q4_PARAMS 1
    Q4_POS 4, s1
    Q4_POS 5, s5
    Q4_POS 6, s9
    Q4_POS 7, a5
    Q4_PARAMS 2
    Q4_POS 8, s2
    Q4_POS 9, s6
    Q4_POS 10, s10
    Q4_POS 11, a6
    Q4_PARAMS 3
    Q4_POS 12, s3
    Q4_POS 13, s7
    Q4_POS 14, s11
    Q4_POS 15, a7
    j    4f
    Q4_NEG 0, s0
    Q4_NEG 1, s4
    Q4_NEG 2, s8
    Q4_NEG 3, a4
    Q4_PARAMS 1
    Q4_NEG 4, s1
    Q4_NEG 5, s5
    Q4_NEG 6, s9
    Q4_NEG 7, a5
    Q4_PARAMS 2
    Q4_NEG 8, s2
    Q4_NEG 9, s6
    Q4_NEG 10, s10
    Q4_NEG 11, a6
    Q4_PARAMS 3
    Q4_NEG 12, s3
    Q4_NEG 13, s7
    Q4_NEG 14, s11
    Q4_NEG 15, a7
    j    4f
5:
#if PW_DYADIC
    lui  t5, 0x100            /* (2^20 for REQ_VALUE) */
#endif
    REQ_CHANNEL4 0, s0, s4, s8, a4
    REQ_CHANNEL4 1, s1, s5, s9, a5
    REQ_CHANNEL4 2, s2, s6, s10, a6
    REQ_CHANNEL4 3, s3, s7, s11, a7
    RQ_END
4:  addi a1, a1, -3           /* the next block's outputs: channel 3's fourth + y_step - 3 */
    sw   a1, 68(sp)
    lw   t0, 60(sp)
    addi t0, t0, -4
    sw   t0, 60(sp)
    bgez t0, .Lquad
    addi s11, t0, 4           /* the rest: the registers of the paths below */
    beqz s11, .Ldone
    bltz s11, .Lqrows_next    /* (the rows path's count: biased by -2^30) */
.Lquad_rest:
    lw   a1, 64(sp)
    lw   a6, 68(sp)
    lw   s9, A_XSTEP(a0)
    lw   s10, A_YSTEP(a0)
    lw   s8, A_W(a0)
    lw   a7, A_WORDS(a0)
    /* Three pixels by four channels while three are left: each input word of the three
       receptive fields and of the four weight rows (7 post-increment loads) feeds twelve
       cv.sdotsp.b, 19 cycles per 48 multiply-accumulates. s0..s11 the sums; t0..t2 the x rows,
       t3..t6 the weight rows, a1..a3 the x words, a4/a5 the weight words. */
.Ltriple:
    li   t0, 3
    blt  s11, t0, .Lpair
    sw   s8, 56(sp)           /* (s8..s11 and a1 hold sums and words below; kept here) */
    sw   s11, 60(sp)
    sw   a1, 64(sp)
    mv   t0, a1
    add  t1, a1, s9
    add  t2, t1, s9
    lw   a5, 52(sp)
    mv   t3, s8
    add  t4, t3, a5
    add  t5, t4, a5
    add  t6, t5, a5
    lw   s0, (A_FULL + 0)(a0)
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    mv   s4, s0
    mv   s5, s1
    mv   s6, s2
    mv   s7, s3
    mv   s8, s0
    mv   s9, s1
    mv   s10, s2
    mv   s11, s3
    lw   ra, A_ROWS(a0)       /* kernel rows left */
8:  .insn i 0x2b, 4, x14, a7, 20
    .insn i 0x0b, 2, a1, t0, 4
    .insn i 0x0b, 2, a2, t1, 4
    .insn i 0x0b, 2, a3, t2, 4
    .insn i 0x0b, 2, a4, t3, 4
    .insn i 0x0b, 2, a5, t4, 4
    .insn r 0x7b, 1, 0x54, s0, a1, a4
    .insn r 0x7b, 1, 0x54, s4, a2, a4
    .insn r 0x7b, 1, 0x54, s8, a3, a4
    .insn i 0x0b, 2, a4, t5, 4
    .insn r 0x7b, 1, 0x54, s1, a1, a5
    .insn r 0x7b, 1, 0x54, s5, a2, a5
    .insn r 0x7b, 1, 0x54, s9, a3, a5
    .insn i 0x0b, 2, a5, t6, 4
    .insn r 0x7b, 1, 0x54, s2, a1, a4
    .insn r 0x7b, 1, 0x54, s6, a2, a4
    .insn r 0x7b, 1, 0x54, s10, a3, a4
    .insn r 0x7b, 1, 0x54, s3, a1, a5
    .insn r 0x7b, 1, 0x54, s7, a2, a5
    .insn r 0x7b, 1, 0x54, s11, a3, a5
    addi ra, ra, -1
    beqz ra, 9f               /* (1x1 layers: one row, no skips) */
    lw   a4, A_ROWSKIP(a0)    /* the next kernel row of the three receptive fields */
    add  t0, t0, a4
    add  t1, t1, a4
    add  t2, t2, a4
    lw   a4, A_WROWSKIP(a0)   /* and of the weights */
    add  t3, t3, a4
    add  t4, t4, a4
    add  t5, t5, a4
    add  t6, t6, a4
    j    8b
9:
    /* requantize the twelve sums: outputs at a6, t3, t4 (y_step apart) */
    RQ_BEGIN
    lw   t5, A_YSTEP(a0)
    add  t3, a6, t5
    add  t4, t3, t5
    lw   ra, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    lw   a5, A_FLOOR(a0)
    beqz a5, .Lq3relu        /* (a fused ReLU: the two flows, out of line below) */
#if PW_DYADIC
    lui  a5, 0x100            /* (2^20 for REQ_VALUE) */
#endif
    REQ_CHANNEL3 0, s0, s4, s8
    REQ_CHANNEL3 1, s1, s5, s9
    REQ_CHANNEL3 2, s2, s6, s10
    REQ_CHANNEL3 3, s3, s7, s11
    RQ_END
.Lq3next:
    lw   s8, 56(sp)           /* restore the pair loop's registers */
    lw   s11, 60(sp)
    lw   a1, 64(sp)
    lw   s9, A_XSTEP(a0)
    lw   s10, A_YSTEP(a0)
    add  a1, a1, s9           /* three pixels on */
    add  a1, a1, s9
    add  a1, a1, s9
    add  a6, a6, s10
    add  a6, a6, s10
    add  a6, a6, s10
    addi s11, s11, -3
    bgtz s11, .Ltriple
    j    .Ldone
    /* the three-pixel path's requantization with a fused ReLU: the two flows */
    RQ_BEGIN
.Lq3relu:
    Q3_PARAMS 0
    Q3_POS 0, 0, s0, a6
    Q3_POS 0, 1, s4, t3
    Q3_POS 0, 2, s8, t4
    Q3_PARAMS 1
    Q3_POS 1, 3, s1, a6
    Q3_POS 1, 4, s5, t3
    Q3_POS 1, 5, s9, t4
    Q3_PARAMS 2
    Q3_POS 2, 6, s2, a6
    Q3_POS 2, 7, s6, t3
    Q3_POS 2, 8, s10, t4
    Q3_PARAMS 3
    Q3_POS 3, 9, s3, a6
    Q3_POS 3, 10, s7, t3
    Q3_POS 3, 11, s11, t4
    j    .Lq3next
    Q3_NEG 0, 0, s0, a6
    Q3_NEG 0, 1, s4, t3
    Q3_NEG 0, 2, s8, t4
    Q3_PARAMS 1
    Q3_NEG 1, 3, s1, a6
    Q3_NEG 1, 4, s5, t3
    Q3_NEG 1, 5, s9, t4
    Q3_PARAMS 2
    Q3_NEG 2, 6, s2, a6
    Q3_NEG 2, 7, s6, t3
    Q3_NEG 2, 8, s10, t4
    Q3_PARAMS 3
    Q3_NEG 3, 9, s3, a6
    Q3_NEG 3, 10, s7, t3
    Q3_NEG 3, 11, s11, t4
    j    .Lq3next
    RQ_END
    /* Four pixels by four channels over receptive fields of several kernel rows (a 3x3
       convolution: rows > 1) while four are left, for runs of an even number of words, where the
       block names the subroutine that sums them (PointwiseBlock::rows_fn, pointwise_rows.S: a
       program without such layers links none of it): its sums are the four-pixel path's (s0..s11,
       a4..a7), requantized by that path's code (.Lquad_req), to which it returns (112(sp)).
       Its block entry sets the pass's slots as .Lquad_go does and its own (pointwise_rows.S),
       116(sp) its pass entry. The pixels left after a pass are at 60(sp) less 2^30, which tells
       the shared tail (4:) to come back here. */
.Lrows_go:
    andi t0, a7, 1
    bnez t0, .Ltriple         /* (runs of an odd number of words: the three-pixel loop) */
    li   t0, 4
    blt  s11, t0, .Ltriple
    lw   t0, A_GROUPS(a0)
    bnez t0, .Ltriple         /* (blocks in groups have no rows_fn: group_full's place) */
    lw   t0, A_ROWSFN(a0)
    beqz t0, .Ltriple         /* (no subroutine: the three-pixel loop) */
    lla  t1, .Lquad_req
    sw   t1, 112(sp)          /* where the subroutine returns: the requantization */
    jr   t0                   /* (its block entry: the slots, then the first pass) */
.Lqrows_next:                 /* (from the shared tail: t0 the biased count after the next pass) */
    lw   t2, 116(sp)          /* (the subroutine's pass entry) */
    lui  t1, 0x40000
    add  t0, t0, t1
    bltz t0, 1f
    jr   t2
1:  addi s11, t0, 4           /* the pixels left: none, or the paths below */
    beqz s11, .Ldone
    j    .Lquad_rest
.Lpair:
    li   t0, 1
    beq  s11, t0, .Lsingle    /* the last pixel alone */
    add  t1, a1, s9           /* the pair's second pixel */
    add  t5, a6, s10
    mv   t0, a1
    lw   a5, 52(sp)
    mv   t2, s8
    add  t3, s8, a5
    add  t4, t3, a5
    add  a5, t4, a5
    lw   s0, (A_FULL + 0)(a0)
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    mv   s4, s0
    mv   s5, s1
    mv   s6, s2
    mv   s7, s3
    /* dot products: t0, t1 the x rows, t2, t3, t4, a5 the weight rows; a2, a3 the x words and
       a4, t6 the weight words */
    lw   ra, A_ROWS(a0)       /* kernel rows left (ra is free until the requantization) */
6:  .insn i 0x2b, 4, x14, a7, 15
    .insn i 0x0b, 2, a2, t0, 4
    .insn i 0x0b, 2, a3, t1, 4
    .insn i 0x0b, 2, a4, t2, 4
    .insn i 0x0b, 2, t6, t3, 4
    .insn r 0x7b, 1, 0x54, s0, a2, a4
    .insn r 0x7b, 1, 0x54, s4, a3, a4
    .insn i 0x0b, 2, a4, t4, 4
    .insn r 0x7b, 1, 0x54, s1, a2, t6
    .insn r 0x7b, 1, 0x54, s5, a3, t6
    .insn i 0x0b, 2, t6, a5, 4
    .insn r 0x7b, 1, 0x54, s2, a2, a4
    .insn r 0x7b, 1, 0x54, s6, a3, a4
    .insn r 0x7b, 1, 0x54, s3, a2, t6
    .insn r 0x7b, 1, 0x54, s7, a3, t6
    addi ra, ra, -1
    beqz ra, 9f
    lw   a4, A_ROWSKIP(a0)    /* the next kernel row of both receptive fields */
    add  t0, t0, a4
    add  t1, t1, a4
    lw   a4, A_WROWSKIP(a0)   /* and of the weights */
    add  t2, t2, a4
    add  t3, t3, a4
    add  t4, t4, a4
    add  a5, a5, a4
    j    6b
9:
    /* requantize the eight sums and store them */
    RQ_BEGIN
    lw   ra, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    LOAD_FLOOR t4
    REQ_CHANNEL 0, s0, s4
    REQ_CHANNEL 1, s1, s5
    REQ_CHANNEL 2, s2, s6
    REQ_CHANNEL 3, s3, s7
    RQ_END
    /* next pair */
    add  a1, a1, s9
    add  a1, a1, s9
    add  a6, a6, s10
    add  a6, a6, s10
    addi s11, s11, -2
    bgtz s11, .Lpair
    j    .Ldone
    /* An odd last pixel: the one-pixel function below (a0 the block, a1 the pixel's receptive
       field, a2 its outputs; a0 kept in s0 across it, which the function saves: nothing else
       lives past it) */
.Lsingle:
    mv   a2, a6
    mv   s0, a0
    jal  PW_1PX
    mv   a0, s0
.Ldone:
    /* the next block, if any: its weights 4 w_stride on, its outputs 4 bytes */
    lw   t0, 128(sp)
    addi t0, t0, -1
    blez t0, .Lrows_end
    sw   t0, 128(sp)
    lw   t1, A_W(a0)
    lw   t2, A_WSTRIDE(a0)
    lw   t3, A_Y(a0)
    slli t2, t2, 2
    add  t1, t1, t2
    addi t3, t3, 4
    sw   t1, A_W(a0)
    sw   t3, A_Y(a0)
    j    .Lgroup
.Lrows_end:                       /* the next output row, if any (a PointwiseRows: groups is 0) */
    lw   t0, F_RP(sp)
    lw   ra, 48(sp)
    bnez t0, .Lnext_row
.Lrestore:
    lw   s0, 44(sp)
    lw   s1, 40(sp)
    lw   s2, 36(sp)
    lw   s3, 32(sp)
    lw   s4, 28(sp)
    lw   s5, 24(sp)
    lw   s6, 20(sp)
    lw   s7, 16(sp)
    lw   s8, 12(sp)
    lw   s9, 8(sp)
    lw   s10, 4(sp)
    lw   s11, 0(sp)
    addi sp, sp, PW_FRAME
    ret
.Lnext_row:                       /* t0 the PointwiseRows: the block's x and y on a row */
    lw   t3, 12(t0)               /* the rows done before the last one (0 from the caller) */
    lw   t1, 0(t0)                /* out_rows */
    lw   t4, 4(t0)                /* x_row_jump */
    addi t3, t3, 1
    beq  t3, t1, .Lrestore
    lw   t5, 8(t0)                /* y_row_jump */
    sw   t3, 12(t0)
    lw   t1, A_X(a0)
    lw   t2, A_Y(a0)
    add  t1, t1, t4
    add  t2, t2, t5
    sw   t1, A_X(a0)
    sw   t2, A_Y(a0)
    j    .Lblock
    .size PW_4CH, . - PW_4CH

/* void etmcu_xpulp_pointwise_1px(const XpulpPointwiseArgs* a, const int8_t* x, int8_t* y):
   one pixel (a linear layer's row, the 4-channel kernel's odd last pixel) whose receptive field
   is at x and outputs at y (a->x, a->y, a->pixels and the steps are not read). Each input word
   feeds four cv.sdotsp.b, 9 cycles per 16 multiply-accumulates. */
    .section PW_1PX_SECTION, "ax", @progbits
    .globl PW_1PX
    .type PW_1PX, @function
    .p2align 2
PW_1PX:
    addi sp, sp, -32
    sw   ra, 28(sp)
    sw   s0, 24(sp)
    sw   s1, 20(sp)
    sw   s2, 16(sp)
    sw   s3, 12(sp)
    mv   t0, a1               /* the receptive field */
    mv   a6, a2               /* the four outputs */
    lw   a7, A_WORDS(a0)
    lw   t2, A_W(a0)          /* the four weight rows */
    lw   a5, A_WSTRIDE(a0)
    add  t3, t2, a5
    add  t4, t3, a5
    add  a5, t4, a5
    lw   s0, (A_FULL + 0)(a0)
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    lw   ra, A_ROWS(a0)
7:  .insn i 0x2b, 4, x14, a7, 10
    .insn i 0x0b, 2, a2, t0, 4
    .insn i 0x0b, 2, a4, t2, 4
    .insn i 0x0b, 2, t6, t3, 4
    .insn r 0x7b, 1, 0x54, s0, a2, a4
    .insn i 0x0b, 2, a4, t4, 4
    .insn r 0x7b, 1, 0x54, s1, a2, t6
    .insn i 0x0b, 2, t6, a5, 4
    .insn r 0x7b, 1, 0x54, s2, a2, a4
    .insn r 0x7b, 1, 0x54, s3, a2, t6
    addi ra, ra, -1
    beqz ra, 9f
    lw   a4, A_ROWSKIP(a0)
    add  t0, t0, a4
    lw   a4, A_WROWSKIP(a0)
    add  t2, t2, a4
    add  t3, t3, a4
    add  t4, t4, a4
    add  a5, a5, a4
    j    7b
9:
    RQ_BEGIN
    lw   ra, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    LOAD_FLOOR t4
    REQ_CHANNEL1 0, s0
    REQ_CHANNEL1 1, s1
    REQ_CHANNEL1 2, s2
    REQ_CHANNEL1 3, s3
    RQ_END
    lw   ra, 28(sp)
    lw   s0, 24(sp)
    lw   s1, 20(sp)
    lw   s2, 16(sp)
    lw   s3, 12(sp)
    addi sp, sp, 32
    ret
    .size PW_1PX, . - PW_1PX

#if !PW_DYADIC
/* void etmcu_xpulp_linear_row(const PointwiseBlock* a, const int32_t* ksum, int32_t blocks,
   int32_t xterm), and etmcu_xpulp_linear_row_dy with the same arguments: a linear layer's row
   (at a->x, a->words words) in `blocks` blocks of four features: block i's weights the four rows
   from a->w + 4 * i * w_stride on, its constants ksum[4i + k] + xterm, its outputs at a->y + 4i.
   Per block the one-pixel function's loop (9 cycles per 16 multiply-accumulates) and four
   requantizations, with the layer's parameters and the pointers held in registers across the
   blocks, in place of a call per block and its C.
   - etmcu_xpulp_linear_row: the frexp form (REQ_VALUE; channel 0's fields: a linear layer has one
     requantization).
   - etmcu_xpulp_linear_row_dy: a dyadic layer (util/pointwise.h set_linear_dyadic, cmsis_math.h
     dyadic_linear) in the forms of PointwiseBlock::dyadic, the sum clamped to the sums' bounds,
     which is also the activation clamp: kDyadicRelu (floor 1) cv.clipur to [0, V], mul, cv.addRN
     (4 cycles an output with its store, against REQ_VALUE's 11 or 3); kDyadicClamp (floor
     Vlo < 0) cv.max / cv.min to [Vlo, V], the product, -2^q for a negative sum (cv.mac),
     cv.addRN (7). The form is the floor's sign, tested once a block. */
/* the entry: the callee-saved registers, the arguments, the block's fields */
.macro LR_ENTER
    addi sp, sp, -48
    sw   ra, 44(sp)
    sw   s0, 40(sp)
    sw   s1, 36(sp)
    sw   s2, 32(sp)
    sw   s3, 28(sp)
    sw   s4, 24(sp)
    sw   s5, 20(sp)
    sw   s6, 16(sp)
    sw   s7, 12(sp)
    sw   s8, 8(sp)
    sw   s9, 4(sp)
    sw   s10, 0(sp)
    mv   s5, a1               /* the constants */
    mv   s6, a2               /* blocks left */
    mv   s7, a3               /* xterm */
    lw   s4, A_X(a0)          /* the row */
    lw   t2, A_W(a0)          /* the block's first weight row */
    lw   a6, A_Y(a0)          /* its outputs */
    lw   a7, A_WORDS(a0)
    lw   s10, A_WSTRIDE(a0)
    lw   s9, A_FLOOR(a0)
.endm
/* a block's four sums in s0..s3: its constants plus xterm, and the dot products */
.macro LR_BLOCK
    lw   s0, 0(s5)
    lw   s1, 4(s5)
    lw   s2, 8(s5)
    lw   s3, 12(s5)
    addi s5, s5, 16
    add  s0, s0, s7
    add  s1, s1, s7
    add  s2, s2, s7
    add  s3, s3, s7
    mv   t0, s4
    add  t3, t2, s10
    add  t4, t3, s10
    add  a5, t4, s10
    .insn i 0x2b, 4, x14, a7, 10          /* cv.setup 0, a7: the 9 instructions below */
    .insn i 0x0b, 2, t1, t0, 4            /* cv.lw t1, 4(t0!): the row's word */
    .insn i 0x0b, 2, a4, t2, 4            /* the four features' words */
    .insn i 0x0b, 2, a1, t3, 4
    .insn r 0x7b, 1, 0x54, s0, t1, a4     /* cv.sdotsp.b */
    .insn i 0x0b, 2, a4, t4, 4
    .insn r 0x7b, 1, 0x54, s1, t1, a1
    .insn i 0x0b, 2, a1, a5, 4
    .insn r 0x7b, 1, 0x54, s2, t1, a4
    .insn r 0x7b, 1, 0x54, s3, t1, a1
.endm
/* after a block's outputs: the next block */
.macro LR_NEXT loop
    addi a6, a6, 4
    mv   t2, a5               /* the next block's first row: right after this block's last */
    addi s6, s6, -1
    bnez s6, \loop
.endm
.macro LR_LEAVE
    lw   ra, 44(sp)
    lw   s0, 40(sp)
    lw   s1, 36(sp)
    lw   s2, 32(sp)
    lw   s3, 28(sp)
    lw   s4, 24(sp)
    lw   s5, 20(sp)
    lw   s6, 16(sp)
    lw   s7, 12(sp)
    lw   s8, 8(sp)
    lw   s9, 4(sp)
    lw   s10, 0(sp)
    addi sp, sp, 48
    ret
.endm
/* the dyadic forms of output byte k from acc: a2 = m, a3 = K - 2^20, s8 = V, s9 = Vlo,
   ra = 2^q */
.macro LR_RELU_DY k, acc
    .insn r 0x2b, 3, 0x3b, t0, \acc, s8    /* cv.clipur t0, acc, V */
    mul  t0, t0, a2
    .insn r 0x5b, 2, 0x55, t0, t0, a3      /* cv.addRN t0, t0, a3, 21 */
    sb   t0, \k(a6)
.endm
.macro LR_CLAMP_DY k, acc
    .insn r 0x2b, 3, 0x2d, t0, \acc, s9    /* cv.max t0, acc, Vlo */
    .insn r 0x2b, 3, 0x2b, t0, t0, s8      /* cv.min t0, t0, V */
    srai t1, t0, 31
    mul  t0, t0, a2
    .insn r 0x2b, 3, 0x48, t0, t1, ra      /* cv.mac t0, t1, 2^q: -2^q for a negative sum */
    .insn r 0x5b, 2, 0x55, t0, t0, a3      /* cv.addRN t0, t0, a3, 21 */
    sb   t0, \k(a6)
.endm

    .section .text.etmcu_xpulp_linear_row, "ax", @progbits
    .globl etmcu_xpulp_linear_row
    .type etmcu_xpulp_linear_row, @function
    .p2align 2
etmcu_xpulp_linear_row:
    LR_ENTER
    lw   a2, A_MULT(a0)       /* the requantization (REQ_VALUE's registers) */
    lw   a3, A_KOFF4(a0)
    lw   s8, A_RIGHT4(a0)
    lw   ra, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    blez s6, 8f
1:  LR_BLOCK
    RQ_BEGIN
    REQ_VALUE s0, s9, s8
    sb   t2, 0(a6)
    REQ_VALUE s1, s9, s8
    sb   t2, 1(a6)
    REQ_VALUE s2, s9, s8
    sb   t2, 2(a6)
    REQ_VALUE s3, s9, s8
    sb   t2, 3(a6)
    RQ_END
    LR_NEXT 1b
8:  LR_LEAVE
    .size etmcu_xpulp_linear_row, . - etmcu_xpulp_linear_row

    .section .text.etmcu_xpulp_linear_row_dy, "ax", @progbits
    .globl etmcu_xpulp_linear_row_dy
    .type etmcu_xpulp_linear_row_dy, @function
    .p2align 2
etmcu_xpulp_linear_row_dy:
    LR_ENTER
    lw   a2, A_ROUND_HIGH(a0) /* m */
    lw   a3, A_KOFF(a0)       /* K */
    lw   s8, A_RIGHT(a0)      /* V */
    lw   ra, A_OFFSET_HIGH4(a0) /* the sign term 2^q */
    lui  t1, 0x100
    sub  a3, a3, t1           /* cv.addRN adds the 2^20 */
    blez s6, 8f
1:  LR_BLOCK
    RQ_BEGIN
    blez s9, 5f               /* the floor Vlo <= 0: the clamp form */
    LR_RELU_DY 0, s0
    LR_RELU_DY 1, s1
    LR_RELU_DY 2, s2
    LR_RELU_DY 3, s3
    RQ_END
    LR_NEXT 1b
8:  LR_LEAVE
5:  RQ_BEGIN
    LR_CLAMP_DY 0, s0
    LR_CLAMP_DY 1, s1
    LR_CLAMP_DY 2, s2
    LR_CLAMP_DY 3, s3
    RQ_END
    LR_NEXT 1b
    j    8b
    .size etmcu_xpulp_linear_row_dy, . - etmcu_xpulp_linear_row_dy
#endif
    .option pop
