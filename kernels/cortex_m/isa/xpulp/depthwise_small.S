/* void etmcu_xpulp_dw_small_s1(const DwSmallWords* a): a 3x3 depthwise layer of 3 x 3 -> 3 x 3
   output planes at stride 1 with padding 1, one channel at a time straight from NHWC
   (isa/xpulp/depthwise_small.h: the path, DwSmallWords, the padding and the rows' starts, and
   dw_small_words_c, the C form the host runs for the same bits).

   Per channel: its nine taps into the words W_0..W_2 (s0..s2) and its nine inputs into D_0..D_2
   (s3..s5), each a zero-extending byte load, two byte loads and two cv.insert.b (loads with the
   pixel stride, the ninth stepping the pointer to the next channel); the rows' starts (top s9,
   middle s10, bottom t5) from the bias and three cv.dotsp.b of z with the tap rows; m and
   B = 2^(30-L) - 1 (cv.fl1). Then the output columns, each from three words: L_r = D_r << 8 with z in byte 0,
   D_r, R_r = D_r >> 8 with z in byte 2; an output column's three sums are 2 + 3 + 2
   cv.sdotsp.b, each requantized with cv.clipur to [0, B], one mul, cv.addRN and cv.min with amax
   and stored column by column (post-increments 3C, 3C, -5C; the last column's last 1 - 8C: the
   next channel's first output). 134 instructions a channel, no load-use stall.

   Registers: a0 x, a1 y, a2 w, a3 bias, a4 mult, a5 C, a6 3C, a7 -5C, t6 1 - 8C, gp z, tp
   offset * 2^21 + 2^19, ra amax, t2 2^29 - 1, s11 the channels left; t0, t1 loaded bytes, then
   sums, t3 B, t4 m.
   gp and tp are saved and used (as isa/rv32/depthwise_direct.S: the fatal-trap entry reloads
   gp).
   Encodings as in depthwise_rows.S: cv.lb.pr / cv.lbu.pr (0x2b, funct3 3, funct7 0x00 / 0x08),
   cv.insert.b (0x7b, funct3 5, funct7 0x5c | lane bit 0, rs2 field lane bit 1), cv.dotsp.b /
   cv.sdotsp.b (0x7b, funct3 1, funct7 0x48 / 0x54), cv.clipur (0x2b, funct3 3, funct7 0x3b),
   cv.addRN with shift 21 (0x5b, funct3 2, funct7 0x55), cv.sb.pr (0x2b, funct3 3, funct7 0x10,
   the post-increment in the rd field), cv.min (0x2b, funct3 3, funct7 0x2b), cv.fl1 (0x2b,
   funct3 3, funct7 0x22). */
#include "../rv32/requant_range.inc"
#include "../rv32/saved_regs.inc"
#define A_X 0
#define A_Y 4
#define A_W 8
#define A_BIAS 12
#define A_BSTEP 16
#define A_MULT 20
#define A_CHANNELS 24
#define A_C 28
#define A_Z 32
#define A_AMAX 36
#define A_OH 40

#define F_BSTEP 60
#define F_SIZE 80

/* \rd = byte at (\p), \p += \s (cv.lbu.pr / cv.lb.pr) */
.macro LBU rd, p, s
    .insn r 0x2b, 3, 0x08, \rd, \p, \s
.endm
.macro LB rd, p, s
    .insn r 0x2b, 3, 0x00, \rd, \p, \s
.endm
/* byte 1 / 2 of \rd = \rs (cv.insert.b) */
.macro INS1 rd, rs
    .insn r 0x7b, 5, 0x5d, \rd, \rs, x0
.endm
.macro INS2 rd, rs
    .insn r 0x7b, 5, 0x5c, \rd, \rs, x1
.endm
.macro INS0 rd, rs
    .insn r 0x7b, 5, 0x5c, \rd, \rs, x0
.endm
.macro SDOT acc, a, b
    .insn r 0x7b, 1, 0x54, \acc, \a, \b
.endm
/* one sum requantized and stored at (a1), a1 += \step: clamped to [0, B] (B = 2^(30-L) - 1,
   cmsis::requant_dyadic's bound: the product fits), one mul, cv.addRN, the upper clamp amax */
.macro REQ acc, step
    RQ_BEGIN
    .insn r 0x2b, 3, 0x3b, \acc, \acc, t3   /* cv.clipur \acc, \acc, B */
    mul  \acc, \acc, t4
    .insn r 0x5b, 2, 0x55, \acc, \acc, tp   /* cv.addRN \acc, \acc, tp, 21 */
    .insn r 0x2b, 3, 0x2b, \acc, \acc, ra   /* cv.min \acc, \acc, amax */
    .insn r 0x2b, 3, 0x10, \step, a1, \acc  /* cv.sb.pr \acc, (a1), \step */
    RQ_END
.endm
/* an output column from its input rows' words \c0..\c2: top, middle, bottom */
.macro COLUMN c0, c1, c2, last
    mv   t0, s9
    SDOT t0, \c0, s1
    SDOT t0, \c1, s2
    mv   t1, s10
    SDOT t1, \c0, s0
    SDOT t1, \c1, s1
    SDOT t1, \c2, s2
    REQ  t0, a6
    REQ  t1, a6
    mv   t0, t5
    SDOT t0, \c1, s0
    SDOT t0, \c2, s1
    REQ  t0, \last
.endm

    .option push
    .option norelax
    .section .text.etmcu_xpulp_dw_small_s1, "ax", @progbits
    .globl etmcu_xpulp_dw_small_s1
    .type etmcu_xpulp_dw_small_s1, @function
    .p2align 2
etmcu_xpulp_dw_small_s1:
    addi sp, sp, -F_SIZE
    SAVE_REGS
    mv   t2, a0
    lw   t0, A_BSTEP(t2)
    lw   ra, A_AMAX(t2)
    lw   a0, A_X(t2)
    lw   a1, A_Y(t2)
    lw   a2, A_W(t2)
    lw   a3, A_BIAS(t2)
    lw   a4, A_MULT(t2)
    lw   s11, A_CHANNELS(t2)
    lw   a5, A_C(t2)
    lw   gp, A_Z(t2)
    lw   tp, A_OH(t2)
    sw   t0, F_BSTEP(sp)
    li   t2, 0x1fffffff                    /* 2^29 - 1 */
    slli a6, a5, 1
    add  a6, a6, a5                        /* 3C */
    slli a7, a5, 2
    add  a7, a7, a5
    neg  a7, a7                            /* -5C */
    slli t6, a5, 3
    li   t0, 1
    sub  t6, t0, t6                        /* 1 - 8C */
    .balignw 4, 0x0001
.Lchannel:
    /* taps (a2) and inputs (a0), a row at a time, each byte inserted two loads after it */
    LBU  s0, a2, a5
    LB   t0, a2, a5
    LB   t1, a2, a5
    LBU  s3, a0, a5
    INS1 s0, t0
    INS2 s0, t1
    LB   t0, a0, a5
    LB   t1, a0, a5
    LBU  s1, a2, a5
    INS1 s3, t0
    INS2 s3, t1
    LB   t0, a2, a5
    LB   t1, a2, a5
    LBU  s4, a0, a5
    INS1 s1, t0
    INS2 s1, t1
    LB   t0, a0, a5
    LB   t1, a0, a5
    LBU  s2, a2, a5
    INS1 s4, t0
    INS2 s4, t1
    LB   t0, a2, a5
    LB   t1, a2, t6                        /* tap 8: a2 on to the next channel's tap 0 */
    LBU  s5, a0, a5
    INS1 s2, t0
    INS2 s2, t1
    LB   t0, a0, a5
    LB   t1, a0, t6                        /* the same for x */
    lw   t4, 0(a4)                         /* the multiplier */
    INS1 s5, t0
    INS2 s5, t1
    /* the rows' starts: bias - z * (the sums of the tap rows over the image) */
    lw   t0, 0(a3)                         /* the bias */
    lw   t1, F_BSTEP(sp)
    .insn r 0x7b, 1, 0x48, t3, gp, s1      /* cv.dotsp.b: z * sum W_1 */
    .insn r 0x7b, 1, 0x48, s10, gp, s0     /* z * sum W_0 */
    .insn r 0x7b, 1, 0x48, t5, gp, s2      /* z * sum W_2 */
    add  a3, a3, t1
    sub  t0, t0, t3
    sub  s9, t0, t5                        /* top: tap row 0 outside */
    sub  t5, t0, s10                       /* bottom: tap row 2 outside */
    sub  s10, s9, s10                      /* middle */
    /* m, and B = 2^(30-L) - 1 = (2^29 - 1) >> fl1(m) */
    srai t4, t4, 11
    .insn r 0x2b, 3, 0x22, t3, t4, x0      /* cv.fl1 t3, t4 */
    addi a4, a4, 4
    srl  t3, t2, t3
    /* column 0: L_r */
    slli s6, s3, 8
    slli s7, s4, 8
    slli s8, s5, 8
    INS0 s6, gp
    INS0 s7, gp
    INS0 s8, gp
    COLUMN s6, s7, s8, a7
    /* column 1: D_r */
    COLUMN s3, s4, s5, a7
    /* column 2: R_r */
    srli s6, s3, 8
    srli s7, s4, 8
    srli s8, s5, 8
    INS2 s6, gp
    INS2 s7, gp
    INS2 s8, gp
    COLUMN s6, s7, s8, t6
    addi s11, s11, -1
    bnez s11, .Lchannel
    RESTORE_REGS
    addi sp, sp, F_SIZE
    ret
    .size etmcu_xpulp_dw_small_s1, . - etmcu_xpulp_dw_small_s1
    .option pop
