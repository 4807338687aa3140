/* void etmcu_xpulp_dw_s2_words(const DwS2Words* a): a 3x3 depthwise layer (or a slab of its rows)
   of stride 2 without padding, one channel at a time straight from NHWC, two output rows a pass
   (isa/xpulp/depthwise_s2.h: the path, DwS2Words, the overlap rule, and dw_s2_words_c, the C
   form the host runs for the same bits).

   Output rows q and q + 1 read input rows 2q .. 2q + 4 (row 2q + 2 once for both). Along them,
   output pairs 2k, 2k + 1: per input row r the word A_r = columns 4k .. 4k + 3 (loaded for the
   last pair as its B) gives output 2k with the tap row's word (fourth byte 0), and the next word
   B_r = columns 4k + 4 .. 4k + 7, four byte loads with the pixel stride and cv.packlo.b /
   cv.packhi.b, with A_r makes columns 4k + 2 .. 4k + 5 in one cv.shuffle2.b, which gives output
   2k + 1. A row pair's first input row is the last pair's fifth: its words come from a buffer
   in the frame (one lw each) where the last pair stored them (one cv.sw each), and a channel's
   first row pair finds its first row's words there from a loop before it (seven instructions a
   word). So four outputs take 16 byte loads, 8 packs, a word's load and store, 5 shuffles, 12
   cv.sdotsp.b, 4 starts and 4 x 4 for the requantization and the store (cmsis::DyadicRelu:
   cv.clipur to [0, V], one mul, cv.addRN; V = T / m, one division a channel): 63 instructions,
   15.75 an output (67 building the first row's words too), against the plane path's gather (two
   cycles an input byte, four bytes an output) and lines. Each row pair starts with A for
   columns 0 .. 3; its last pair loads one byte a row for B (an even output width) or three and
   then the odd last output from them (an odd one), so no load past column 2 W_out; the next pair's rows
   start from where the fifth row's loads left its pointer (F_SKIP: W_in * C less the bytes read). An odd last output row runs as a pair whose second row is the first again
   (its rows 3 and 4 are rows 1 and 2, both rows' stores go to the same bytes, the second row's
   first), so each of its outputs is stored twice, its own sum last.

   Order: channels one at a time, row pairs top to bottom, pairs left to right, a pair's loads of
   its new columns before its stores (depthwise_s2.h: which outs over their inputs that allows).

   Registers: a0 the buffer's next word, a1..a4 the input rows 1..4's pointers, a5 C, a6 / a7 the two output rows', s0..s2
   the tap rows' words, s3 the shuffle's selector, s4 V, s5 m, tp offset * 2^21 + 2^19, s6..s10
   and s11, t3..t6 the two sets of five words (A and B, their roles swapped from pair to pair),
   t0, t1 the sums, t2, ra, gp (and t1 in the first row's loop) loaded bytes, t2 also the loop's
   passes (gp and tp saved and used as in isa/rv32/depthwise_direct.S); the rest in the frame,
   where the per-call choices (an odd count of loop pairs, an odd width) are read where they are
   taken, and a channel's units end at its F_YEND, a6's bound (no count to keep: a unit's
   set-up is ten instructions).
   Encodings as in depthwise_rows.S; cv.packlo.b / cv.packhi.b (0x7b, funct3 1, funct7 0x7c /
   0x7d: rd's low / high half from the low bytes of rs1, rs2; the other half kept). */
#include "../rv32/saved_regs.inc"
#include "../rv32/requant_range.inc"
#include "depthwise_s2_width.h"
#define A_X 0
#define A_Y 4
#define A_W 8
#define A_BIAS 12
#define A_BSTEP 16
#define A_MULT 20
#define A_CHANNELS 24
#define A_C 28
#define A_RSIN 32
#define A_RSOUT 36
#define A_ROWPAIRS 40
#define A_ODDROW 44
#define A_PAIRS 48
#define A_ODDCOL 52
#define A_IOFF 56
#define A_T 60
#define A_OH 64

/* frame: saved registers at 0..56, then */
#define F_FULL 60
#define F_ODDP 64
#define F_Y 68
#define F_YEND 72                         /* this channel's a6 past its row pairs */
#define F_WEND 76                         /* the taps' pointer past the last channel's */
#define F_X 80
#define F_W 84
#define F_ONES 88                          /* 0x01010101: the taps' sum in a dot product */
#define F_WORDS 92
#define F_BIAS 96
#define F_MULT 100
#define F_ODDCOL 104
#define F_RSIN 108
#define F_RSOUT 112
#define F_SPAN 116                         /* F_YEND less F_Y (below) */
#define F_SKIP 124
#define F_LOOPS 128
#define F_BSTEP 132
#define F_IOFF 136
#define F_T 140
#define F_BUF 144                          /* row 0's words (depthwise_s2_width.h) */
#define F_SIZE ((F_BUF + 4 * (ETMCU_XPULP_DW_S2_MAX_WIDTH / 2 + 1) + 15) / 16 * 16)

.macro LB rd, p
    .insn r 0x2b, 3, 0x00, \rd, \p, a5     /* cv.lb.pr \rd, (\p), C */
.endm
.macro PACKLO rd, hi, lo
    .insn r 0x7b, 1, 0x7c, \rd, \hi, \lo
.endm
.macro PACKHI rd, hi, lo
    .insn r 0x7b, 1, 0x7d, \rd, \hi, \lo
.endm
.macro SDOT acc, a, b
    .insn r 0x7b, 1, 0x54, \acc, \a, \b
.endm
/* \r = bytes 2, 3 of \r and 0, 1 of \b (cv.shuffle2.b, selector s3) */
.macro SHIFT2 r, b
    .insn r 0x7b, 1, 0x70, \r, \b, s3
.endm
.macro CLIP acc
    RQ_BEGIN
    .insn r 0x2b, 3, 0x3b, \acc, \acc, s4  /* cv.clipur \acc, \acc, V */
    RQ_END
.endm
.macro ADDRN acc
    RQ_BEGIN
    .insn r 0x5b, 2, 0x55, \acc, \acc, tp  /* cv.addRN \acc, \acc, tp, 21 */
    RQ_END
.endm
.macro STORE acc, p
    RQ_BEGIN
    .insn r 0x2b, 3, 0x10, a5, \p, \acc    /* cv.sb.pr \acc, (\p), C */
    RQ_END
.endm
.macro REQ acc, p
    CLIP \acc
    RQ_BEGIN
    mul  \acc, \acc, s5
    RQ_END
    ADDRN \acc
    STORE \acc, \p
.endm
/* cv.setup 0, x\reg, \lab (the count in x\reg: 5 t0, 7 t2) */
.macro SETUP reg, lab
    .4byte (((\lab - .) >> 2) << 20) | (\reg << 15) | (4 << 12) | (14 << 7) | 0x2b
.endm
/* \r = the buffer's next word (cv.sw \r, 4(a0!)) */
.macro SWBUF r
    .insn s 0x2b, 2, \r, 4(a0)
.endm
/* A for columns 0 .. 3 of the five rows into \r0..\r4 (row 0 the buffer's first word, row 4's
   stored there; four temporaries: no load-use stall) */
.macro INIT5 r0, r1, r2, r3, r4
    lw   \r0, 0(a0)
    BUILD4T \r1, a1
    BUILD4T \r2, a2
    BUILD4T \r3, a3
    BUILD4T \r4, a4
    SWBUF \r4
.endm
/* \b = the four bytes at (\p) with the pixel stride */
.macro BUILD4T b, p
    LB   t2, \p
    LB   ra, \p
    LB   gp, \p
    LB   t1, \p
    PACKLO \b, ra, t2
    PACKHI \b, t1, gp
.endm
/* \b = three bytes at (\p) with the pixel stride (the fourth a copy of the third) */
.macro TAIL3 b, p
    LB   t2, \p
    LB   ra, \p
    LB   gp, \p
    PACKLO \b, ra, t2
    PACKHI \b, gp, gp
.endm
/* the two rows' sums of one output from the words \r0..\r4 (t0: row q, t1: row q + 1) */
.macro SUMS r0, r1, r2, r3, r4
    SDOT t0, \r0, s0
    SDOT t0, \r1, s1
    SDOT t0, \r2, s2
    SDOT t1, \r2, s0
    SDOT t1, \r3, s1
    SDOT t1, \r4, s2
.endm
/* one output of both rows from \r0..\r4, requantized and stored (row q + 1 first) */
.macro OUTPUT r0, r1, r2, r3, r4
    lw   t0, F_FULL(sp)
    lw   t1, F_FULL(sp)
    SUMS \r0, \r1, \r2, \r3, \r4
    REQ  t1, a7
    REQ  t0, a6
.endm
/* one pair of output columns from A in \a0..\a4, its B (built) in \b0..\b4: output 2k, then A
   becomes columns 4k + 2 .. 4k + 5, output 2k + 1 */
.macro PAIR_FROM a0, a1, a2, a3, a4, b0, b1, b2, b3, b4
    OUTPUT \a0, \a1, \a2, \a3, \a4
    SHIFT2 \a0, \b0
    SHIFT2 \a1, \b1
    SHIFT2 \a2, \b2
    SHIFT2 \a3, \b3
    SHIFT2 \a4, \b4
    OUTPUT \a0, \a1, \a2, \a3, \a4
.endm
/* The same, building B (four bytes a row) between output 2k's instructions, no load-use stall;
   row 0's B is the buffer's next word (the last pass's row 4, a0) and row 4's B replaces it */
.macro PAIR a0, a1, a2, a3, a4, b0, b1, b2, b3, b4, loops=0
    lw   t0, F_FULL(sp)
    lw   t1, F_FULL(sp)
    lw   \b0, 0(a0)
    LB   t2, a1
    LB   ra, a1
    SDOT t0, \a0, s0
    LB   gp, a1
    SDOT t0, \a1, s1
    PACKLO \b1, ra, t2
    LB   t2, a1
    SDOT t0, \a2, s2
    PACKHI \b1, t2, gp
    LB   t2, a2
    LB   ra, a2
    SDOT t1, \a2, s0
    LB   gp, a2
    SDOT t1, \a3, s1
    PACKLO \b2, ra, t2
    LB   t2, a2
    SDOT t1, \a4, s2
    PACKHI \b2, t2, gp
    LB   t2, a3
    LB   ra, a3
    LB   gp, a3
    CLIP t1
    PACKLO \b3, ra, t2
    LB   t2, a3
    RQ_BEGIN
    mul  t1, t1, s5
    RQ_END
    PACKHI \b3, t2, gp
    LB   t2, a4
    LB   ra, a4
    LB   gp, a4
    ADDRN t1
    PACKLO \b4, ra, t2
    LB   t2, a4
    STORE t1, a7
    PACKHI \b4, t2, gp
    SWBUF \b4
    REQ  t0, a6
    lw   t0, F_FULL(sp)
    lw   t1, F_FULL(sp)
    SHIFT2 \a0, \b0
    SHIFT2 \a1, \b1
    SHIFT2 \a2, \b2
    SHIFT2 \a3, \b3
    SHIFT2 \a4, \b4
    SUMS \a0, \a1, \a2, \a3, \a4
    REQ  t1, a7
.if \loops
    lw   t2, F_LOOPS(sp)                   /* (for the loop after it: no load-use stall) */
.endif
    REQ  t0, a6
.endm

    .option push
    .option norvc
    .option norelax
    .section .text.etmcu_xpulp_dw_s2_words, "ax", @progbits
    .globl etmcu_xpulp_dw_s2_words
    .type etmcu_xpulp_dw_s2_words, @function
    .p2align 2
etmcu_xpulp_dw_s2_words:
    addi sp, sp, -F_SIZE
    SAVE_REGS
    /* the arguments the loops read, into the frame (no load-use stall on the block's pointer) */
    lw   t0, A_X(a0)
    lw   t1, A_Y(a0)
    lw   t2, A_W(a0)
    lw   t3, A_BIAS(a0)
    lw   t4, A_MULT(a0)
    lw   t5, A_CHANNELS(a0)
    sw   t0, F_X(sp)
    sw   t1, F_Y(sp)
    sw   t2, F_W(sp)
    sw   t3, F_BIAS(sp)
    sw   t4, F_MULT(sp)
    add  t5, t5, t2
    sw   t5, F_WEND(sp)
    lw   a5, A_C(a0)
    lw   t0, A_PAIRS(a0)
    lw   t1, A_ODDCOL(a0)
    lw   t2, A_RSIN(a0)
    lw   t3, A_RSOUT(a0)
    lw   t4, A_ROWPAIRS(a0)
    lw   t5, A_ODDROW(a0)
    addi t6, t0, 1
    sw   t6, F_WORDS(sp)                   /* a row's whole words: the pairs and the first A */
    sw   t1, F_ODDCOL(sp)
    sw   t2, F_RSIN(sp)
    sw   t3, F_RSOUT(sp)
    /* F_YEND, a channel's bound for a6 at a unit's start: a6 + 2 (H_out / 2) W_out C where the
       odd last row follows the pairs (a6 is there after them: .Lsingle), one less where none does */
    mul  t4, t4, t3
    addi t5, t5, -1
    slli t4, t4, 1
    add  t4, t4, t5
    sw   t4, F_SPAN(sp)
    lw   t4, A_BSTEP(a0)
    lw   t5, A_IOFF(a0)
    lw   t6, A_T(a0)
    sw   t4, F_BSTEP(sp)
    sw   t5, F_IOFF(sp)
    sw   t6, F_T(sp)
    li   t4, 0x01010101
    sw   t4, F_ONES(sp)
    andi t4, t0, 1
    srli t5, t0, 1
    sw   t4, F_ODDP(sp)                    /* an odd count of loop pairs: one before the loop */
    sw   t5, F_LOOPS(sp)                   /* the loop's passes of two pairs */
    /* a row's bytes in a unit: 4 + 4 pairs + (1 or 3); the next unit's row 1 is row 4's end plus
       W_in * C less those bytes (its row 0, row 4, comes from the buffer) */
    slli t0, t0, 2
    addi t0, t0, 5
    slli t1, t1, 1
    add  t0, t0, t1
    mul  t0, t0, a5
    sub  t0, t2, t0
    sw   t0, F_SKIP(sp)
    lw   tp, A_OH(a0)
    lw   a0, A_W(a0)
    li   s3, 0x05040302                    /* SHIFT2's selector */
.Lchannel:
    /* the taps (a0 at this channel's first): three words, the fourth byte 0 */
    .insn r 0x2b, 3, 0x08, s0, a0, a5      /* cv.lbu.pr: tap 0, zero-extended */
    LB   t2, a0
    LB   ra, a0
    .insn r 0x2b, 3, 0x08, s1, a0, a5
    .insn r 0x7b, 5, 0x5d, s0, t2, x0      /* cv.insert.b s0, t2, 1 */
    .insn r 0x7b, 5, 0x5c, s0, ra, x1      /* cv.insert.b s0, ra, 2 */
    LB   t2, a0
    LB   ra, a0
    .insn r 0x2b, 3, 0x08, s2, a0, a5
    .insn r 0x7b, 5, 0x5d, s1, t2, x0
    .insn r 0x7b, 5, 0x5c, s1, ra, x1
    LB   t2, a0
    LB   ra, a0
    lw   a1, F_BIAS(sp)
    lw   t3, F_ONES(sp)
    .insn r 0x7b, 5, 0x5d, s2, t2, x0
    .insn r 0x7b, 5, 0x5c, s2, ra, x1
    /* full = bias + ioff * (the taps' sum): every window is inside the input */
    .insn r 0x7b, 1, 0x48, t1, s0, t3      /* cv.dotsp.b */
    SDOT t1, s1, t3
    SDOT t1, s2, t3
    lw   t2, F_BSTEP(sp)
    lw   t3, 0(a1)
    lw   t4, F_IOFF(sp)
    lw   a2, F_MULT(sp)
    add  a1, a1, t2
    .insn r 0x2b, 3, 0x48, t3, t4, t1      /* cv.mac t3, t4, t1 */
    /* m and V = T / m */
    lw   t2, F_T(sp)
    lw   s5, 0(a2)
    sw   a1, F_BIAS(sp)
    sw   t3, F_FULL(sp)
    addi a2, a2, 4
    srai s5, s5, 11
    sw   a2, F_MULT(sp)
    divu s4, t2, s5
    lw   a4, F_X(sp)
    lw   t0, F_WORDS(sp)
    lw   a6, F_Y(sp)
    /* row 0's words into the buffer: pairs + 1 whole words, then the last pair's B (a4 then at
       row 0's end: the first unit's rows follow from it as the next units' from row 4's) */
    addi a0, sp, F_BUF
    SETUP 5, 9f
    BUILD4T t3, a4
    SWBUF t3
9:  lw   t1, F_SPAN(sp)
    lw   t2, F_ODDCOL(sp)
    LB   t3, a4                            /* an even width: one byte */
    add  t1, a6, t1
    beqz t2, 11f
    LB   ra, a4                            /* an odd one: three */
    LB   gp, a4
    PACKLO t3, ra, t3
    PACKHI t3, gp, gp
11: sw   t3, 0(a0)
    sw   t1, F_YEND(sp)
    beq  a6, t1, .Lsingle                  /* no row pair: only the odd row */
    /* the row pairs (units), while a6 is before F_YEND; the odd last row after them as a pair
       of that row twice */
.Lunit:
    lw   t0, F_SKIP(sp)                    /* (a4 at the last row's end: row 0 is in the buffer) */
    lw   t2, F_RSIN(sp)
    lw   t3, F_RSOUT(sp)
    lw   t4, F_ODDP(sp)
    addi a0, sp, F_BUF
    add  a1, a4, t0
    add  a2, a1, t2
    add  a7, a6, t3
    add  a3, a2, t2
    add  a4, a3, t2
7:  beqz t4, 8f
    INIT5 s11, t3, t4, t5, t6              /* an odd count: A in s11.., one pair, then the loop */
    PAIR s11, t3, t4, t5, t6, s6, s7, s8, s9, s10, 1
1:  beqz t2, 3f                            /* (t2: the loop's passes) */
    SETUP 7, 2f
    PAIR s6, s7, s8, s9, s10, s11, t3, t4, t5, t6
    PAIR s11, t3, t4, t5, t6, s6, s7, s8, s9, s10
2:
3:  lw   t2, F_ODDCOL(sp)
    lw   s11, 0(a0)                        /* (row 0's B: the buffer's last word) */
    bnez t2, 4f
    LB   t6, a4                            /* an even width: the last pair's B is one byte a row */
    LB   t3, a1
    LB   t4, a2
    LB   t5, a3
    sw   t6, 0(a0)
    PAIR_FROM s6, s7, s8, s9, s10, s11, t3, t4, t5, t6
5:  lw   t2, F_YEND(sp)
    mv   a6, a7                            /* (a6 at the next row, a7 past it) */
    bltu a6, t2, .Lunit
    beq  a6, t2, .Lsingle                  /* (past F_YEND: the odd row ran, or there is none) */
    /* the next channel */
    lw   t2, F_X(sp)
    lw   t3, F_Y(sp)
    lw   a0, F_W(sp)
    lw   t5, F_WEND(sp)
    addi t2, t2, 1
    addi t3, t3, 1
    addi a0, a0, 1
    sw   t2, F_X(sp)
    sw   t3, F_Y(sp)
    sw   a0, F_W(sp)
    bne  a0, t5, .Lchannel
    RESTORE_REGS
    addi sp, sp, F_SIZE
    ret
4:  TAIL3 t3, a1                           /* an odd width: three bytes a row, the pair, then */
    TAIL3 t4, a2                           /* the last output from them */
    TAIL3 t5, a3
    TAIL3 t6, a4
    sw   t6, 0(a0)
    PAIR_FROM s6, s7, s8, s9, s10, s11, t3, t4, t5, t6
    OUTPUT s11, t3, t4, t5, t6
    j    5b
8:  INIT5 s6, s7, s8, s9, s10              /* an even count: A in s6.. */
    lw   t2, F_LOOPS(sp)
    j    1b
.Lsingle:
    lw   t0, F_SKIP(sp)                    /* the odd last row: its rows 3, 4 are 1, 2, and the */
    lw   t2, F_RSIN(sp)                    /* second row's stores land first, then the first's */
    lw   t4, F_ODDP(sp)
    addi a0, sp, F_BUF
    add  a1, a4, t0
    add  a2, a1, t2
    mv   a3, a1
    mv   a4, a2
    mv   a7, a6
    j    7b
    .size etmcu_xpulp_dw_s2_words, . - etmcu_xpulp_dw_s2_words
    .option pop
