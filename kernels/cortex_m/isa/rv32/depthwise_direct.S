/* etmcu_rv32_dw_direct_channel: one channel of a 3x3 depthwise layer of stride 1 and padding 1
   straight from NHWC on a plain RV32IMC core (util/depthwise_direct.h: the path, DwDirectArgs and
   the C form, dw_direct_channel_c, that the host runs for the same bits).

   The nine taps stay in s0..s8 and a window of three columns of three input rows in t0..t5 and
   a5..a7, rotating (left, centre, right) three outputs a pass, so each output costs its right
   column's three byte loads and pointer steps, nine mul + add and its requantization
   (cmsis::DyadicRelu's form, as REQ_K3D in depthwise_rows.S: a sum below 0 stores amin out of
   line, one above V takes V, then one mul, add and shift), 31 instructions. Thirty registers:
   ra, gp and tp are saved and used (gp and tp hold V and m; the fatal-trap entry reloads gp).
   A row enters its passes at the step that leaves whole passes after it (DwDirectArgs::entry,
   with its first column the padding and its second column 0 in the step's registers), and ends
   with its last output, whose right column is the padding: no value moves. The segments (top
   edge, inside, bottom edge) set the taps of a window row left out to 0 and its pointer to d0 /
   d2 from the centre row. */
#define A_X 0
#define A_Y 4
#define A_C 8
#define A_PASSES 12
#define A_ENTRY 16
#define A_RS 20
#define A_PAD 24
#define A_V 28
#define A_M 32
#define A_KOFF 36
#define A_SEG 40
#define S_ROWS 0
#define S_START 4
#define S_D0 8
#define S_D2 12
#define S_ZERO 16
#define S_SIZE 20
#define A_T 100

/* frame: saved registers at 0..56, then */
#define F_SEG 60
#define F_PAD 64
#define F_LEFT 68
#define F_PASSES 72
#define F_ENTRY 76
#define F_SEGEND 80
#define F_ARGS 84
#define F_SIZE 96

#include "saved_regs.inc"
#include "requant_range.inc"
/* the nine taps (words at \off of the argument block \base) into s0..s8 */
.macro LOAD_TAPS off, base
    lw   s0, (\off + 0)(\base)
    lw   s1, (\off + 4)(\base)
    lw   s2, (\off + 8)(\base)
    lw   s3, (\off + 12)(\base)
    lw   s4, (\off + 16)(\base)
    lw   s5, (\off + 20)(\base)
    lw   s6, (\off + 24)(\base)
    lw   s7, (\off + 28)(\base)
    lw   s8, (\off + 32)(\base)
.endm

/* the right column's three inputs into r0..r2, the row pointers a1..a3 one pixel on (a4 = C) */
.macro LOADS r0, r1, r2
    lb   \r0, 0(a1)
    lb   \r1, 0(a2)
    lb   \r2, 0(a3)
    add  a1, a1, a4
    add  a2, a2, a4
    add  a3, a3, a4
.endm

/* one output from the left, centre and right columns (l*, m*, r*: window rows 0..2), the sum
   from a0, stored at s11, s11 += C; the right column's products last (its loads the latest) */
.macro BODY id, l0, l1, l2, m0, m1, m2, r0, r1, r2
    mul  s10, \l0, s0
    add  s9, a0, s10
    mul  s10, \m0, s1
    add  s9, s9, s10
    mul  s10, \l1, s3
    add  s9, s9, s10
    mul  s10, \m1, s4
    add  s9, s9, s10
    mul  s10, \l2, s6
    add  s9, s9, s10
    mul  s10, \m2, s7
    add  s9, s9, s10
    mul  s10, \r0, s2
    add  s9, s9, s10
    mul  s10, \r1, s5
    add  s9, s9, s10
    mul  s10, \r2, s8
    add  s9, s9, s10
    RQ_BEGIN
    bltz s9, .Ln\id
    blt  gp, s9, .Ls\id
.Lq\id:
    mul  s9, s9, tp
    add  s9, s9, t6
    srai s9, s9, 21
    sb   s9, 0(s11)
    RQ_END
.Ld\id:
    add  s11, s11, a4
.endm

/* BODY's out-of-line cases (after the return): a sum below 0 stores amin, one above V takes V */
.macro BODY_FIXUPS id
    RQ_BEGIN
.Ln\id:
    srai s10, t6, 21             /* amin: offset * 2^21 + 3 * 2^19 >> 21 */
    sb   s10, 0(s11)
    j    .Ld\id
.Ls\id:
    mv   s9, gp
    j    .Lq\id
    RQ_END
.endm

    .text
    .option push
    .option norelax
    .globl etmcu_rv32_dw_direct_channel
    .type etmcu_rv32_dw_direct_channel, @function
    .balignw 4, 0x0001
etmcu_rv32_dw_direct_channel:
    addi sp, sp, -F_SIZE
    SAVE_REGS
    sw   a0, F_ARGS(sp)
    lw   t1, A_PAD(a0)
    lw   a2, A_X(a0)             /* the centre row (a2) and the outputs (s11): a row's loads and */
    lw   s11, A_Y(a0)            /* stores leave them on the next row's, so they carry on */
    lw   t5, A_PASSES(a0)
    lw   a5, A_ENTRY(a0)
    sw   t1, F_PAD(sp)
    sw   t5, F_PASSES(sp)
    sw   a5, F_ENTRY(sp)
    addi t0, a0, A_SEG
    addi t1, a0, A_SEG + 3 * S_SIZE
    sw   t0, F_SEG(sp)
    sw   t1, F_SEGEND(sp)
    lw   gp, A_V(a0)
    lw   tp, A_M(a0)
    lw   t6, A_KOFF(a0)
    lw   a4, A_C(a0)
.Lseg:
    /* a segment: its rows (none: the next), start, window row pointers and taps (t1 the
       arguments, t2 the segment) */
    lw   t2, F_SEG(sp)
    lw   t3, S_ROWS(t2)
    beqz t3, .Lseg_next
    lw   t1, F_ARGS(sp)
    lw   t4, S_D0(t2)
    lw   t5, S_D2(t2)
    lw   a5, S_ZERO(t2)
    lw   a0, S_START(t2)
    sw   t3, F_LEFT(sp)
    add  a1, a2, t4              /* window rows 0 and 2 (the segment's d0, d2 from the centre) */
    add  a3, a2, t5
    LOAD_TAPS A_T, t1
    andi a6, a5, 1
    beqz a6, 1f
    li   s0, 0                   /* window row 0 left out */
    li   s1, 0
    li   s2, 0
1:  andi a6, a5, 2
    beqz a6, .Lrow
    li   s6, 0                   /* window row 2 left out */
    li   s7, 0
    li   s8, 0
.Lrow:
    /* a row, its passes from the entry step (W loads and W outputs: the pointers end on the next
       row's first input and output, the row stride W * C) */
    lw   ra, F_PASSES(sp)
    lw   t5, F_ENTRY(sp)
    beqz t5, .Lentry0
    addi t5, t5, -1
    beqz t5, .Lentry1
    lw   a5, F_PAD(sp)           /* entry 2: left in a5..a7, centre in t0..t2 */
    mv   a6, a5
    mv   a7, a5
    LOADS t0, t1, t2
    j    .Lstep2
.Lentry1:
    lw   t3, F_PAD(sp)           /* entry 1: left in t3..t5, centre in a5..a7 */
    mv   t4, t3
    mv   t5, t3
    LOADS a5, a6, a7
    j    .Lstep1
.Lentry0:
    lw   t0, F_PAD(sp)           /* entry 0: left in t0..t2, centre in t3..t5 */
    mv   t1, t0
    mv   t2, t0
    LOADS t3, t4, t5
    .balignw 4, 0x0001           /* (c.nop: the loop's target on a word, a taken branch 1 cycle less) */
.Lstep0:
    LOADS a5, a6, a7
    BODY 1, t0, t1, t2, t3, t4, t5, a5, a6, a7
.Lstep1:
    LOADS t0, t1, t2
    BODY 2, t3, t4, t5, a5, a6, a7, t0, t1, t2
.Lstep2:
    LOADS t3, t4, t5
    BODY 3, a5, a6, a7, t0, t1, t2, t3, t4, t5
    addi ra, ra, -1
    bnez ra, .Lstep0
    lw   a5, F_PAD(sp)           /* the row's last output: its right column the padding */
    mv   a6, a5
    mv   a7, a5
    BODY 4, t0, t1, t2, t3, t4, t5, a5, a6, a7
    lw   ra, F_LEFT(sp)
    addi ra, ra, -1
    sw   ra, F_LEFT(sp)
    bnez ra, .Lrow
.Lseg_next:
    lw   t2, F_SEG(sp)
    lw   t3, F_SEGEND(sp)
    addi t2, t2, S_SIZE
    sw   t2, F_SEG(sp)
    bne  t2, t3, .Lseg
    RESTORE_REGS
    addi sp, sp, F_SIZE
    ret
    BODY_FIXUPS 1
    BODY_FIXUPS 2
    BODY_FIXUPS 3
    BODY_FIXUPS 4
    .size etmcu_rv32_dw_direct_channel, . - etmcu_rv32_dw_direct_channel
    .option pop

/* etmcu_rv32_dw_direct_s2_channel: the same for a 3x3 layer of stride 2 without padding
   (DwDirectS2Args): output o reads columns 2o .. 2o + 2, so each output loads its centre and
   right columns (six byte loads and pointer steps) and its left column is the last output's
   right one; outputs in pairs (the left column back in t0..t2 after each), then an odd last one. */
#define B_X 0
#define B_Y 4
#define B_C 8
#define B_PAIRS 12
#define B_ODD 16
#define B_RSIN 20
#define B_RSOUT 24
#define B_ROWS 28
#define B_START 32
#define B_V 36
#define B_M 40
#define B_KOFF 44
#define B_T 48

#define G_P0 60
#define G_Y 64
#define G_LEFT 68
#define G_ARGS 72
#define G_SIZE 80

    .text
    .option push
    .option norelax
    .globl etmcu_rv32_dw_direct_s2_channel
    .type etmcu_rv32_dw_direct_s2_channel, @function
    .balignw 4, 0x0001
etmcu_rv32_dw_direct_s2_channel:
    addi sp, sp, -G_SIZE
    SAVE_REGS
    sw   a0, G_ARGS(sp)
    lw   t0, B_X(a0)
    lw   t1, B_Y(a0)
    lw   t2, B_ROWS(a0)
    sw   t0, G_P0(sp)
    sw   t1, G_Y(sp)
    sw   t2, G_LEFT(sp)
    lw   gp, B_V(a0)
    lw   tp, B_M(a0)
    lw   t6, B_KOFF(a0)
    lw   a4, B_C(a0)
    LOAD_TAPS B_T, a0
.Ls2_row:
    /* this row's window rows and outputs (the next row's kept: two input rows on, one output row) */
    lw   t1, G_ARGS(sp)
    lw   a1, G_P0(sp)
    lw   s11, G_Y(sp)
    lw   t2, B_RSIN(t1)
    lw   t3, B_RSOUT(t1)
    lw   ra, B_PAIRS(t1)
    lw   a0, B_START(t1)
    add  a2, a1, t2
    add  a3, a2, t2
    add  t5, s11, t3
    sw   a3, G_P0(sp)             /* (the next row's window starts two input rows on) */
    sw   t5, G_Y(sp)
    LOADS t0, t1, t2             /* column 0: the first output's left */
    beqz ra, .Ls2_odd
    .balignw 4, 0x0001
.Ls2_pair:
    LOADS t3, t4, t5
    LOADS a5, a6, a7
    BODY 5, t0, t1, t2, t3, t4, t5, a5, a6, a7
    LOADS t3, t4, t5
    LOADS t0, t1, t2
    BODY 6, a5, a6, a7, t3, t4, t5, t0, t1, t2
    addi ra, ra, -1
    bnez ra, .Ls2_pair
.Ls2_odd:
    lw   t3, G_ARGS(sp)
    lw   t3, B_ODD(t3)
    beqz t3, .Ls2_row_end
    LOADS t3, t4, t5
    LOADS a5, a6, a7
    BODY 7, t0, t1, t2, t3, t4, t5, a5, a6, a7
.Ls2_row_end:
    lw   ra, G_LEFT(sp)
    addi ra, ra, -1
    sw   ra, G_LEFT(sp)
    bnez ra, .Ls2_row
    RESTORE_REGS
    addi sp, sp, G_SIZE
    ret
    BODY_FIXUPS 5
    BODY_FIXUPS 6
    BODY_FIXUPS 7
    .size etmcu_rv32_dw_direct_s2_channel, . - etmcu_rv32_dw_direct_s2_channel
    .option pop
