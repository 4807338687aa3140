/* etmcu_xpulp_pointwise_rows: the sums of one pass of etmcu_xpulp_pointwise_4ch[_dy] over four
   pixels whose receptive fields are several kernel rows (a 3x3 convolution), four pixels by four
   channels, for runs of an even number of words. A subroutine of the pointwise kernel (called
   through PointwiseBlock::rows_fn, which only the convolution's interior path sets: a program
   without such layers links none of this), on the kernel's frame, not callable from C; the sums it
   leaves (pixel p, channel k: p0 s0..s3, p1 s4..s7, p2 s8..s11, p3 a4..a7) go through the
   kernel's four-pixel requantization.

   Four pixels' rows are x_step apart and four channels' weights w_stride apart, two different
   steps (in a 1x1 layer they are one, which the four-pixel loop's three shared offsets use):
   with no registers left for three offsets of each, both pointers walk. For one word they go
   forward through the four weight rows and the four pixels' rows (+w_stride, +x_step, the last
   load +4), for the next word backward (-w_stride, -x_step, the last +4), so a hardware-loop pass
   is two words: 8 loads and 32 cv.sdotsp.b per word pair, every loaded value used two or more
   instructions later, 24 cycles per 64 multiply-accumulates against the three-pixel loop's 19
   per 48. After a kernel row both pointers are back on pixel 0 and channel 0, past the run.

   The kernel jumps here, its return address (its requantization) at 112(sp). Its block's first
   pass enters at the top with the kernel's registers as at its .Lblock (a1 the first receptive
   field, a6 the first outputs, s11 the pixels, a7 the words of a run, s9 x_step, s10 y_step) and
   sets the slots the kernel's four-pixel path keeps (64, 68, 60 biased by -2^30, 72) and its own
   (96(sp) the word pairs of a run, 100 / 104 the row skips of the input and the weights, 108
   4 x_step, 116 the pass entry, where the next passes enter). In: a0 the argument block
   (util/pointwise.h PointwiseBlock), 52(sp) w_stride. Out: the sums, 64(sp) four pixels on, a0
   as it was. Uses 88 to 116(sp) (the kernel's five-pixel slots: that path never runs in a call
   with kernel rows); clobbers every other register but sp, gp, tp. Registers: t0 the
   rows, t1 the weights, t2 / ra = +- x_step, a1 / a2 = +- w_stride, t3..t6 the weight words,
   a3 / a0 the x words (a0 kept at 88(sp)), 92(sp) the kernel rows left. Encodings as in
   pointwise_4ch.S; cv.lw.pr (post-increment by a register: 0x2b, funct3 3, funct7 0x02). */
#include "pointwise_block_asm.h"
    .section .text.etmcu_xpulp_pointwise_rows, "ax", @progbits
    .option push
    .option norvc
    .option norelax
    .globl etmcu_xpulp_pointwise_rows
    .type etmcu_xpulp_pointwise_rows, @function
    .p2align 2
etmcu_xpulp_pointwise_rows:      /* a block's first pass: the slots, from the kernel's registers */
    sw   a1, 64(sp)           /* (a1 the first receptive field, a6 the first outputs) */
    sw   a6, 68(sp)
    lui  t1, 0x40000
    addi t2, s11, -4          /* (s11 the pixels) */
    sub  t2, t2, t1
    sw   t2, 60(sp)           /* the pixels left after this pass, less 2^30 */
    slli t2, s10, 2           /* (s10 y_step) */
    li   t1, 1
    sub  t2, t1, t2
    sw   t2, 72(sp)           /* 1 - 4 y_step */
    srli t1, a7, 1            /* (a7 the words of a run) */
    sw   t1, 96(sp)
    lw   t1, A_ROWSKIP(a0)
    sw   t1, 100(sp)
    lw   t1, A_WROWSKIP(a0)
    sw   t1, 104(sp)
    slli t1, s9, 2            /* (s9 x_step) */
    sw   t1, 108(sp)
    lla  t1, 3f
    sw   t1, 116(sp)          /* the pass entry, for the kernel's next passes */
3:  lw   s0, (A_FULL + 0)(a0)   /* a pass: the sums from full[k] */
    lw   s1, (A_FULL + 4)(a0)
    lw   s2, (A_FULL + 8)(a0)
    lw   s3, (A_FULL + 12)(a0)
    lw   t0, 64(sp)
    lw   t1, A_W(a0)
    lw   t2, A_XSTEP(a0)
    lw   a1, 52(sp)
    lw   a3, A_ROWS(a0)
    sw   a0, 88(sp)
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
    neg  ra, t2
    neg  a2, a1
    sw   a3, 92(sp)
1:  lw   a3, 96(sp)           /* a kernel row: word pairs */
    .insn i 0x2b, 4, x14, a3, 49
    .insn r 0x2b, 3, 0x02, t3, t1, a1      /* w0: cv.lw t3, (t1), t1 += w_stride */
    .insn r 0x2b, 3, 0x02, t4, t1, a1      /* w1 */
    .insn r 0x2b, 3, 0x02, t5, t1, a1      /* w2 */
    .insn i 0x0b, 2, t6, t1, 4             /* w3, t1 += 4: the next word's channel 3 */
    .insn r 0x2b, 3, 0x02, a3, t0, t2      /* x0: cv.lw a3, (t0), t0 += x_step */
    .insn r 0x2b, 3, 0x02, a0, t0, t2      /* x1 */
    .insn r 0x7b, 1, 0x54, s0, a3, t3
    .insn r 0x7b, 1, 0x54, s1, a3, t4
    .insn r 0x7b, 1, 0x54, s2, a3, t5
    .insn r 0x7b, 1, 0x54, s3, a3, t6
    .insn r 0x2b, 3, 0x02, a3, t0, t2      /* x2 */
    .insn r 0x7b, 1, 0x54, s4, a0, t3
    .insn r 0x7b, 1, 0x54, s5, a0, t4
    .insn r 0x7b, 1, 0x54, s6, a0, t5
    .insn r 0x7b, 1, 0x54, s7, a0, t6
    .insn i 0x0b, 2, a0, t0, 4             /* x3, t0 += 4: the next word's pixel 3 */
    .insn r 0x7b, 1, 0x54, s8, a3, t3
    .insn r 0x7b, 1, 0x54, s9, a3, t4
    .insn r 0x7b, 1, 0x54, s10, a3, t5
    .insn r 0x7b, 1, 0x54, s11, a3, t6
    .insn r 0x7b, 1, 0x54, a4, a0, t3
    .insn r 0x7b, 1, 0x54, a5, a0, t4
    .insn r 0x7b, 1, 0x54, a6, a0, t5
    .insn r 0x7b, 1, 0x54, a7, a0, t6
    .insn r 0x2b, 3, 0x02, t6, t1, a2      /* the next word backward: w3, t1 -= w_stride */
    .insn r 0x2b, 3, 0x02, t5, t1, a2      /* w2 */
    .insn r 0x2b, 3, 0x02, t4, t1, a2      /* w1 */
    .insn i 0x0b, 2, t3, t1, 4             /* w0, t1 += 4: the next word's channel 0 */
    .insn r 0x2b, 3, 0x02, a3, t0, ra      /* x3: cv.lw a3, (t0), t0 -= x_step */
    .insn r 0x2b, 3, 0x02, a0, t0, ra      /* x2 */
    .insn r 0x7b, 1, 0x54, a4, a3, t3
    .insn r 0x7b, 1, 0x54, a5, a3, t4
    .insn r 0x7b, 1, 0x54, a6, a3, t5
    .insn r 0x7b, 1, 0x54, a7, a3, t6
    .insn r 0x2b, 3, 0x02, a3, t0, ra      /* x1 */
    .insn r 0x7b, 1, 0x54, s8, a0, t3
    .insn r 0x7b, 1, 0x54, s9, a0, t4
    .insn r 0x7b, 1, 0x54, s10, a0, t5
    .insn r 0x7b, 1, 0x54, s11, a0, t6
    .insn i 0x0b, 2, a0, t0, 4             /* x0, t0 += 4: the next word's pixel 0 */
    .insn r 0x7b, 1, 0x54, s4, a3, t3
    .insn r 0x7b, 1, 0x54, s5, a3, t4
    .insn r 0x7b, 1, 0x54, s6, a3, t5
    .insn r 0x7b, 1, 0x54, s7, a3, t6
    .insn r 0x7b, 1, 0x54, s0, a0, t3
    .insn r 0x7b, 1, 0x54, s1, a0, t4
    .insn r 0x7b, 1, 0x54, s2, a0, t5
    .insn r 0x7b, 1, 0x54, s3, a0, t6
    lw   a3, 92(sp)           /* the next kernel row, if any */
    addi a3, a3, -1
    beqz a3, 2f
    sw   a3, 92(sp)
    lw   a3, 100(sp)
    lw   a0, 104(sp)
    add  t0, t0, a3
    add  t1, t1, a0
    j    1b
2:  lw   a0, 88(sp)
    lw   t0, 64(sp)
    lw   t1, 108(sp)
    add  t0, t0, t1
    sw   t0, 64(sp)           /* the next pass's receptive fields: four pixels on */
    lw   ra, 112(sp)
    ret
    .size etmcu_xpulp_pointwise_rows, . - etmcu_xpulp_pointwise_rows
    .option pop
