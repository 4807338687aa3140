/* Depthwise row kernels for the CV32E40P with its PULP extensions: one output channel along one
   output row, from a zero-point-padded plane of its input channel (isa/xpulp/depthwise.h builds
   the plane and the argument block, and documents the contract).

   void etmcu_xpulp_dw_row_k3(const DwRowArgs* a);   three window rows
   void etmcu_xpulp_dw_row(const DwRowArgs* a);      a->rows window rows (1 .. 12)
   void etmcu_xpulp_dw_k3_channels(const DwK3Channels* c);   a whole strip of a 3x3 layer of
                                                     stride 1 or 2 with the floor 0 (below)

   Output row q < a->out_rows, output o < a->outputs: its window starts at
   window + q * (outputs * x_step + row_jump) + o * x_step in the plane, and its output at
   y + (q * outputs + o) * y_step (+ q * y_row_jump in the k3 kernel, whose rows may be a
   transposed plane's: the layer's columns); window row r is line_stride bytes below row r - 1; each row is
   one word (kw <= 4 taps, the weight word zero past kw), so
     v = full + sum_r cv.sdotsp.b(plane word, w[r])
     y[o * y_step] = clamp(requantize(v) + offset, amin, amax)
   with the 4v requantization of cmsis_math.h (requantize_offset_4v: one mulh, no low word;
   offset << (r+1) and r + 1 from the block's 4v fields). The plane words are
   misaligned loads (two cycles each); a hardware loop runs over the outputs (k3: nine
   multiply-accumulates in 3 loads + 3 cv.sdotsp.b) or, in the general kernel, the rows inside it.
   Encodings (binutils 2.40 lacks the CORE-V mnemonics; as in sim/isa/instructions.def):
   cv.setup L, rs1, end (opcode 0x2b, funct3 4, rd field 14 + L), cv.lw rd, rs2(rs1) (0x2b,
   funct3 3, funct7 0x06), cv.lw.pr (0x2b, funct3 3, funct7 0x02: rd = M[rs1], rs1 += rs2),
   cv.lw post-increment immediate (0x0b, funct3 2),
   cv.sb.pr (0x2b, funct3 3, funct7 0x10, rs3 in the rd field: M[rs1] = rs2, rs1 += rs3),
   cv.sdotsp.b (0x7b, funct3 1, funct7 0x54), cv.addRNr (0x2b, funct3 3, funct7 0x42),
   cv.max / cv.min (funct7 0x2d / 0x2b), cv.shuffle2.b (0x7b, funct3 1, funct7 0x70),
   cv.insert.b (0x7b, funct3 5, funct7 0x5c | lane bit 0, rs2 field lane bit 1), cv.lb.pr /
   cv.lbu.pr (0x2b, funct3 3, funct7 0x00 / 0x08), cv.mac (0x2b, funct3 3, funct7 0x48). */
#include "../rv32/requant_range.inc"
#include "../rv32/saved_regs.inc"
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
#define A_ROWS 48
#define A_OUTROWS 52
#define A_ROWJUMP 56
#define A_W 60
#define A_KOFF4 112
#define A_RIGHT4 116
#define A_YROWJUMP 120

/* cv.setup L, a0 (x10), label: the loop count in a0 */
.macro SETUP_A0 L, lab
    .4byte (((\lab - .) >> 2) << 20) | (10 << 15) | (4 << 12) | ((14 + \L) << 7) | 0x2b
.endm

/* the argument block's registers (below) */
.macro LOAD_ARGS
    lw   a1, A_WINDOW(a0)
    lw   t1, A_LSTRIDE(a0)
    lw   a3, A_XSTEP(a0)
    lw   a2, A_Y(a0)
    lw   a4, A_YSTEP(a0)
    lw   s1, A_FULL(a0)
    lw   t4, A_MULT(a0)
    lw   t5, A_KOFF4(a0)
    lw   t6, A_RIGHT4(a0)
    lw   ra, A_AMIN(a0)
    lw   s0, A_AMAX(a0)
.endm

/* Registers: a1 window start, a2 y (cv.sb.pr), a3 x_step, a4 y_step, a5 the sum, a6/a7 plane
   words, t0 the row pointer, t1 line_stride, t2/t3 requantization temporaries, t4 multiplier,
   t5 offset << (r+1), t6 r + 1, ra amin, s0 amax, s1 full; k3: s2..s4 the weight words. */
.macro PROLOGUE
    addi sp, sp, -40
    sw   ra, 36(sp)
    sw   s0, 32(sp)
    sw   s1, 28(sp)
    sw   s2, 24(sp)
    sw   s3, 20(sp)
    sw   s4, 16(sp)
    sw   s5, 12(sp)
    LOAD_ARGS
.endm
.macro EPILOGUE
    lw   ra, 36(sp)
    lw   s0, 32(sp)
    lw   s1, 28(sp)
    lw   s2, 24(sp)
    lw   s3, 20(sp)
    lw   s4, 16(sp)
    lw   s5, 12(sp)
    addi sp, sp, 40
    ret
.endm
/* t2 = clamp(requantize(acc) + offset, amin (ra), amax (s0)) in the 4v form: \m the multiplier,
   \off offset << (r+1), \r r + 1; \tmp a temporary */
.macro REQ_ARITH acc, tmp, m, off, r
    slli \tmp, \acc, 2
    mulh t2, \tmp, \m
    srai \tmp, \acc, 31
    ori  \tmp, \tmp, 1
    add  t2, t2, \tmp
    .insn r 0x2b, 3, 0x42, t2, \off, \r     /* cv.addRNr */
    .insn r 0x2b, 3, 0x2d, t2, t2, ra      /* cv.max t2, t2, amin */
    .insn r 0x2b, 3, 0x2b, t2, t2, s0      /* cv.min t2, t2, amax */
.endm
/* REQ_ARITH where acc >= 0 and amin is the output offset (a fused ReLU's floor 0): the sign term's
   +1 already in \off, and no cv.max (the result is at least amin); amax in \amax */
.macro REQ_ARITH_NONNEG acc, tmp, m, off, r, amax=s0
    slli \tmp, \acc, 2
    mulh t2, \tmp, \m
    .insn r 0x2b, 3, 0x42, t2, \off, \r     /* cv.addRNr */
    .insn r 0x2b, 3, 0x2b, t2, t2, \amax    /* cv.min t2, t2, amax */
.endm
/* acc -> requantized, clamped, stored at a2; a2 += y_step */
.macro REQUANT_STORE acc
    RQ_BEGIN
    REQ_ARITH \acc, t3, t4, t5, t6
    .insn r 0x2b, 3, 0x10, a4, a2, t2      /* cv.sb.pr t2, (a2), a4 */
    RQ_END
.endm

    .text
    .option push
    .option norvc
    .option norelax

/* one output of the k3 kernel: its window rows 1 and 2 at a1 + t1 and a1 + t0 (register-offset
   loads), row 0 at a1 with a1 += x_step */
.macro K3_SINGLE
    K3_SINGLE_SUM
    REQUANT_STORE a5
.endm
.macro K3_SINGLE_SUM
    mv   a5, s1
    .insn r 0x2b, 3, 0x06, a6, a1, t1      /* row 1: cv.lw a6, t1(a1) */
    .insn r 0x2b, 3, 0x06, a7, a1, t0      /* row 2 */
    .insn r 0x7b, 1, 0x54, a5, a6, s3
    .insn r 0x2b, 3, 0x02, a6, a1, a3      /* row 0: cv.lw a6, (a1), a1 += a3 */
    .insn r 0x7b, 1, 0x54, a5, a7, s4
    .insn r 0x7b, 1, 0x54, a5, a6, s2
.endm

/* the two sums of a pair (below) from its three plane words (rows 1 and 2 as in K3_SINGLE, row 0
   with a1 += 2) */
.macro K3_PAIR
    mv   a5, s1
    mv   s9, s1
    .insn r 0x2b, 3, 0x06, a6, a1, t1      /* row 1 */
    .insn r 0x2b, 3, 0x06, a7, a1, t0      /* row 2 */
    .insn r 0x7b, 1, 0x54, a5, a6, s3
    .insn r 0x7b, 1, 0x54, s9, a6, s7
    .insn i 0x0b, 2, a6, a1, 2             /* row 0: cv.lw a6, 2(a1!) */
    .insn r 0x7b, 1, 0x54, a5, a7, s4
    .insn r 0x7b, 1, 0x54, s9, a7, s8
    .insn r 0x7b, 1, 0x54, a5, a6, s2
    .insn r 0x7b, 1, 0x54, s9, a6, s6
.endm


/* With stride 1 and taps in the first three bytes of each weight word, two neighbouring outputs
   share a plane word per window row: bytes o..o+3 give output o with the weight word and output
   o+1 with the word shifted one byte up (s6..s8), so a pair costs three loads and six cv.sdotsp.b
   (about 21 cycles per output with the requantization, against 25 alone). Where the floor is 0
   and the lines start on words (every plane's), the quads below instead (about 14). */
    .globl etmcu_xpulp_dw_row_k3
    .type etmcu_xpulp_dw_row_k3, @function
    .p2align 2
etmcu_xpulp_dw_row_k3:
    addi sp, sp, -80
    sw   ra, 76(sp)
    sw   s0, 72(sp)
    sw   s1, 68(sp)
    sw   s2, 64(sp)
    sw   s3, 60(sp)
    sw   s4, 56(sp)
    sw   s5, 52(sp)
    sw   s6, 48(sp)
    sw   s7, 44(sp)
    sw   s8, 40(sp)
    sw   s9, 36(sp)
    sw   s10, 32(sp)
    LOAD_ARGS
    lw   s10, A_YROWJUMP(a0)               /* y after each output row (transposed planes) */
    lw   s2, (A_W + 0)(a0)
    lw   s3, (A_W + 4)(a0)
    lw   s4, (A_W + 8)(a0)
    slli s6, s2, 8
    slli s7, s3, 8
    slli s8, s4, 8
    lw   s5, A_OUTROWS(a0)
    lw   t0, A_ROWJUMP(a0)
    sw   t0, 0(sp)
    lw   t0, A_OUTPUTS(a0)
    sw   t0, 4(sp)
    /* pairs when the stride is 1 and no weight word has a fourth tap */
    or   t0, s2, s3
    or   t0, t0, s4
    srli t0, t0, 24
    addi t2, a3, -1
    or   t0, t0, t2
    sw   t0, 8(sp)                         /* 0: pairs */
    add  t0, t1, t1                        /* window row 2's offset (row 1's: t1) */
3:  lw   t3, 8(sp)
    bnez t3, 5f
    lw   a0, 4(sp)
    srli a0, a0, 1                         /* pairs in this row */
    beqz a0, 6f
    SETUP_A0 0, 1f
    K3_PAIR
    REQUANT_STORE a5
    REQUANT_STORE s9
1:
6:  lw   t3, 4(sp)
    andi t3, t3, 1
    beqz t3, 2f                            /* an odd last output alone */
    K3_SINGLE_SUM
    REQUANT_STORE a5
    j    2f
5:  lw   a0, 4(sp)                         /* one output at a time */
    SETUP_A0 0, 4f
    K3_SINGLE
4:
2:  lw   t3, 0(sp)
    add  a1, a1, t3
    add  a2, a2, s10
    addi s5, s5, -1
    bnez s5, 3b
.Lk3_ret:
    lw   ra, 76(sp)
    lw   s0, 72(sp)
    lw   s1, 68(sp)
    lw   s2, 64(sp)
    lw   s3, 60(sp)
    lw   s4, 56(sp)
    lw   s5, 52(sp)
    lw   s6, 48(sp)
    lw   s7, 44(sp)
    lw   s8, 40(sp)
    lw   s9, 36(sp)
    lw   s10, 32(sp)
    addi sp, sp, 80
    ret

    .size etmcu_xpulp_dw_row_k3, . - etmcu_xpulp_dw_row_k3

    /* The quads: four neighbouring outputs o..o+3 of a line whose windows start on words (stride
       1, three taps, the floor 0). Per window row, the aligned word A (bytes o..o+3) gives outputs
       o and o+1 (weight words s2..s4 and s6..s8, as in the pairs); the aligned word B (o+4..o+7),
       loaded for the next quad, and A make C = bytes o+2..o+5 in one cv.shuffle2.b, which gives
       o+2 and o+3. Three aligned loads and three shuffles instead of six plane loads, half of
       them misaligned (two cycles each): 22 cycles per four sums against 25. The quads go in
       pairs with the roles of the two word sets swapped (A in a6, a7, t5 or s5, s10, ra), so each
       B stays where it was loaded and is the next quad's A; an odd count enters at the second.
       Sums a5, s9, a3, s1 (from full at 20(sp)); amin at 16(sp) (REQ_Q), t3 the selector; a line's
       last outputs past the quads from A (and one more B for a third). */
.macro REQ_Q acc
    RQ_BEGIN
    lw   t2, 16(sp)                        /* amin: a sum below zero stores it */
    blt  \acc, zero, .Lq\@
    slli \acc, \acc, 2
    mulh t2, \acc, t4
    .insn r 0x2b, 3, 0x42, t2, s11, t6     /* cv.addRNr t2, s11, t6 */
    .insn r 0x2b, 3, 0x2b, t2, t2, s0      /* cv.min t2, t2, amax */
.Lq\@:
    .insn r 0x2b, 3, 0x10, a4, a2, t2      /* cv.sb.pr t2, (a2), a4 */
    RQ_END
.endm
/* REQ_Q for a dyadic channel, without a branch: the sum clamped to [0, V] (s0, which the
   frexp form's amax holds: the channel loop sets it per dyadic channel, so the lines load
   nothing per group of sums; a negative sum gives the offset, amin), one mul, then cv.addRN
   adds offset * 2^21 + 2^19 and 2^20 and shifts by 21 (cmsis_math.h requantize_offset_dyadic,
   v >= 0; the shift an immediate, so the dyadic lines leave t6 free). V is the channel's
   largest sum whose result is at most amax (.Lc_dyadic): its result is amax itself (m < 2^20:
   consecutive sums' results differ by 0 or 1), so the clamp to V is also the one to amax,
   without a cv.min (4 instructions and the store, against 5 with the overflow bound
   2^(30-L) - 1 and a cv.min). */
.macro REQ_DY acc
    RQ_BEGIN
    .insn r 0x2b, 3, 0x3b, \acc, \acc, s0   /* cv.clipur \acc, \acc, s0 */
    mul  \acc, \acc, t4
    .insn r 0x5b, 2, 0x55, \acc, \acc, s11  /* cv.addRN \acc, \acc, s11, 21 */
    .insn r 0x2b, 3, 0x10, a4, a2, \acc      /* cv.sb.pr \acc, (a2), a4 */
    RQ_END
.endm
/* a quad's four sums: REQ_DY each */
.macro REQ_DY4 r0, r1, r2, r3
    REQ_DY \r0
    REQ_DY \r1
    REQ_DY \r2
    REQ_DY \r3
.endm
/* a quad's four sums in the frexp form, in two flows as the pointwise kernel's ReLU outputs: the
   positive one (a sum at or above 0: its test falls through to the arithmetic, in the sum's own
   register, and the store, 10 cycles with mulh's five) and the negative one (the store of amin,
   t2 for the quad: its test falls through, 2 cycles); a change of sign branches into the other
   flow at the same output (3 cycles). REQ_Q per sum: 11 and 5 (amin loaded for each, a taken
   branch for each negative one). The quad enters the positive flow. */
.macro REQ_Q4 r0, r1, r2, r3
    RQ_BEGIN
    lw   t2, 16(sp)                        /* amin */
    RQ_END
    REQ_QP \r0, 0, \@
    REQ_QP \r1, 1, \@
    REQ_QP \r2, 2, \@
    REQ_QP \r3, 3, \@
    j    .Lq4end\@
    REQ_QN \r0, 0, \@
    REQ_QN \r1, 1, \@
    REQ_QN \r2, 2, \@
    REQ_QN \r3, 3, \@
.Lq4end\@:
.endm
.macro REQ_QP acc, n, tag
    RQ_BEGIN
    blt  \acc, zero, .Lqs\tag\()_\n
.Lqa\tag\()_\n:
    slli \acc, \acc, 2
    mulh \acc, \acc, t4
    .insn r 0x2b, 3, 0x42, \acc, s11, t6   /* cv.addRNr \acc, s11, t6 */
    .insn r 0x2b, 3, 0x2b, \acc, \acc, s0   /* cv.min \acc, \acc, amax */
    .insn r 0x2b, 3, 0x10, a4, a2, \acc      /* cv.sb.pr \acc, (a2), a4 */
    RQ_END
.endm
.macro REQ_QN acc, n, tag
    RQ_BEGIN
    bge  \acc, zero, .Lqa\tag\()_\n
.Lqs\tag\()_\n:
    .insn r 0x2b, 3, 0x10, a4, a2, t2      /* cv.sb.pr amin, (a2), a4 */
    RQ_END
.endm
/* the pair of sums \s0r (weights s2..s4), \s1r (s6..s8) of the words \r0, \r1, \r2 */
.macro PAIR_SUMS s0r, s1r, r0, r1, r2
    .insn r 0x7b, 1, 0x54, \s0r, \r0, s2
    .insn r 0x7b, 1, 0x54, \s1r, \r0, s6
    .insn r 0x7b, 1, 0x54, \s0r, \r1, s3
    .insn r 0x7b, 1, 0x54, \s1r, \r1, s7
    .insn r 0x7b, 1, 0x54, \s0r, \r2, s4
    .insn r 0x7b, 1, 0x54, \s1r, \r2, s8
.endm
/* \r = bytes 2, 3 of \r and 0, 1 of \b: cv.shuffle2.b \r, \b, t3 (0x7b, funct3 1, funct7 0x70) */
.macro SHIFT2 r, b
    .insn r 0x7b, 1, 0x70, \r, \b, t3
.endm
/* one quad: A in \a0r..\a2r (window rows 0..2, becoming C), the next B into \b0r..\b2r. (Testing
   the four sums' signs once, to store amin four times or requantize without a test each, gained
   on the all-ones input, whose quads are all of one sign, but lost on the ten real keyword
   inputs, where a third of the quads are mixed.) */
.macro QUAD a0r, a1r, a2r, b0r, b1r, b2r, req
    lw   a5, 20(sp)
    lw   s9, 20(sp)
    lw   a3, 20(sp)
    lw   s1, 20(sp)
    .insn r 0x2b, 3, 0x06, \b1r, a1, t1    /* B, row 1: cv.lw \b1r, t1(a1) */
    .insn r 0x2b, 3, 0x06, \b2r, a1, t0    /* row 2 */
    .insn i 0x0b, 2, \b0r, a1, 4           /* row 0: cv.lw \b0r, 4(a1!) */
    PAIR_SUMS a5, s9, \a0r, \a1r, \a2r
    SHIFT2 \a0r, \b0r
    SHIFT2 \a1r, \b1r
    SHIFT2 \a2r, \b2r
    PAIR_SUMS a3, s1, \a0r, \a1r, \a2r
    \req\()4 a5, s9, a3, s1
.endm
/* The slots of etmcu_xpulp_dw_k3_lines that depend on the layer only (once per strip): from
   outputs per line (4(sp)), window to the next line's (32(sp)), y after a line (24(sp)), lines
   (36(sp)) and y_step (a4): 36(sp) y from the first line's first output to past the last line,
   12(sp) 0 when the line's entry is .Lq_even, 44(sp) the entry (.Lq_even / .Lq_odd / .Lq_none),
   48(sp) 4 x quads (a1 past the A loads to past the last quad: the quads' loop ends there),
   52(sp) the tail's entry (by outputs % 4), 56(sp) a1 past a line's last B to the next window.
   Clobbers t2, a0, a3, a5. */
.macro LINES_PREP sfx
    lw   t2, 4(sp)
    mul  a0, t2, a4
    lw   a3, 24(sp)
    add  a0, a0, a3                        /* y from one line's first output to the next's */
    lw   a3, 36(sp)
    mul  a0, a0, a3
    sw   a0, 36(sp)                        /* ... times the lines: y from the first to past the last */
    srli a0, t2, 2                         /* quads */
    slli a5, a0, 2
    sw   a5, 48(sp)                        /* a1 past the A loads to a1 past the last quad */
    addi a3, a0, 1
    slli a3, a3, 2
    lw   a5, 32(sp)
    sub  a5, a5, a3
    sw   a5, 56(sp)
    lla  a5, .Lq_none\sfx
    beqz a0, 1f
    andi a0, a0, 1
    lla  a5, .Lq_odd\sfx
    bnez a0, 1f
    lla  a5, .Lq_even\sfx
1:
    .ifc \sfx, _dy                         /* (the frexp form has no six-output loop) */
    lw   a3, 4(sp)                         /* lines of six outputs: their own loop */
    addi a3, a3, -6
    bnez a3, 7f
    lla  a5, .Lq_six\sfx
    lw   a3, 24(sp)
    bnez a3, 7f
    lla  a5, .Lq_six0\sfx                  /* (y runs on from line to line) */
7:
    .endif
    sw   a5, 44(sp)
    lla  a3, .Lq_even\sfx
    sub  a3, a5, a3
    sw   a3, 12(sp)                        /* 0: the entry is .Lq_even (.Lq_next falls into it) */
    andi t2, t2, 3
    lla  a5, .Lq_next\sfx
    beqz t2, 2f
    lla  a5, .Lq_one\sfx
    addi t2, t2, -2
    bltz t2, 2f
    lla  a5, .Lq_two\sfx
    beqz t2, 2f
    lla  a5, .Lq_three\sfx
2:  sw   a5, 52(sp)
.endm

/* The lines of one channel (etmcu_xpulp_dw_k3_lines: the subroutine of etmcu_xpulp_dw_k3_channels,
   in its frame): a1 the first line's window, t1 / t0 line_stride and twice it, a2 y, a4
   y_step, t4 the multiplier, s11 offset << (r+1) plus 1, t6 r + 1, s0 amax (the dyadic form:
   V), s2..s4 / s6..s8 the weight words and their one-byte shifts, t3 the selector; 16(sp) amin,
   20(sp) full, 24(sp) y from a line's end to the next line's first output, and LINES_PREP's
   slots. Every other register is clobbered; t0, t1, t3, s0 and a4 are only read. */
/* K3_LINES' lines of six outputs (MobileNetV1's 6x6 layers): the whole line in one pass and the
   next line without the dispatch. Per window row the aligned words A (outputs 0, 1), B (4, 5)
   and C = bytes 2..5 (2, 3); B's row-0 load steps a1 to the next window (t6). \yjump 0: the
   lines' outputs follow each other (an upright plane: y from one line's end to the next is 0),
   so no step of y between lines. Ends at .Lq_ret. */
.macro SIX_LINES sfx, req, yjump
    lw   a0, 60(sp)                        /* y past the last line (the loop's end) */
    lw   t6, 56(sp)
    addi t6, t6, 4                         /* a1 past a line's A to the next window */
.Lq_six_line\@:
    lw   a5, 20(sp)
    lw   s9, 20(sp)
    lw   a3, 20(sp)
    lw   s1, 20(sp)
    .insn r 0x2b, 3, 0x06, a7, a1, t1      /* A, row 1 */
    .insn r 0x2b, 3, 0x06, t5, a1, t0      /* row 2 */
    .insn i 0x0b, 2, a6, a1, 4             /* row 0, a1 += 4 */
    .insn r 0x2b, 3, 0x06, s10, a1, t1     /* B */
    .insn r 0x2b, 3, 0x06, ra, a1, t0
    .insn r 0x2b, 3, 0x02, s5, a1, t6      /* row 0: cv.lw s5, (a1), a1 += t6: the next window */
    PAIR_SUMS a5, s9, a6, a7, t5
    SHIFT2 a6, s5
    SHIFT2 a7, s10
    SHIFT2 t5, ra
    PAIR_SUMS a3, s1, a6, a7, t5
    .if \yjump
    lw   t5, 24(sp)                        /* y from a line's end to the next line */
    .endif
    \req a5
    \req s9
    lw   a5, 20(sp)
    lw   s9, 20(sp)
    \req a3
    \req s1
    PAIR_SUMS a5, s9, s5, s10, ra
    \req a5
    \req s9
    .if \yjump
    add  a2, a2, t5
    .endif
    bne  a2, a0, .Lq_six_line\@
    j    .Lq_ret\sfx
.endm

/* The lines' body, once per requantization form: \sfx names its labels, \req requantizes and
   stores one sum (REQ_Q / REQ_DY). */
.macro K3_LINES sfx, req
    sw   ra, 40(sp)
    lw   t2, 36(sp)
    add  t2, t2, a2
    sw   t2, 60(sp)                        /* y past the last line: the lines' end */
    lw   t2, 12(sp)
    j    .Lq_first_line\sfx
.Lq_three\sfx:                  /* A in a6, a7, t5; a1 at B; a5 full. The pair, then C's first */
    lw   s9, 20(sp)
    lw   a3, 20(sp)
    .insn r 0x2b, 3, 0x06, s10, a1, t1
    .insn r 0x2b, 3, 0x06, ra, a1, t0
    lw   s5, 0(a1)
    PAIR_SUMS a5, s9, a6, a7, t5
    SHIFT2 a6, s5
    SHIFT2 a7, s10
    SHIFT2 t5, ra
    .insn r 0x7b, 1, 0x54, a3, a6, s2
    .insn r 0x7b, 1, 0x54, a3, a7, s3
    .insn r 0x7b, 1, 0x54, a3, t5, s4
    \req a5
    \req s9
    \req a3
    j    .Lq_next\sfx
.Lq_two\sfx:
    lw   s9, 20(sp)
    PAIR_SUMS a5, s9, a6, a7, t5
    \req a5
    \req s9
    j    .Lq_next\sfx
.Lq_one\sfx:
    .insn r 0x7b, 1, 0x54, a5, a6, s2
    .insn r 0x7b, 1, 0x54, a5, a7, s3
    .insn r 0x7b, 1, 0x54, a5, t5, s4
    \req a5
.Lq_next\sfx:
    lw   t2, 56(sp)                        /* a1 (past the line's last B) to the next window */
    lw   a0, 60(sp)
    lw   t5, 24(sp)
    add  a1, a1, t2
    lw   t2, 12(sp)
    add  a2, a2, t5
    beq  a2, a0, .Lq_ret\sfx
.Lq_first_line\sfx:                            /* (t2: 12(sp)) */
    lw   a0, 48(sp)
    bnez t2, .Lq_jump\sfx                      /* the next line */
.Lq_even\sfx:
    .insn r 0x2b, 3, 0x06, a7, a1, t1      /* A */
    .insn r 0x2b, 3, 0x06, t5, a1, t0
    .insn i 0x0b, 2, a6, a1, 4
    add  a0, a0, a1
.Lq_first\sfx:
    QUAD a6, a7, t5, s5, s10, ra, \req
.Lq_second\sfx:
    QUAD s5, s10, ra, a6, a7, t5, \req
    bne  a1, a0, .Lq_first\sfx                 /* (a0: a1 past the line's last quad) */
    lw   t2, 52(sp)                        /* the outputs past the quads: by their count */
    lw   a5, 20(sp)                        /* (the first of their sums) */
    jr   t2
.Lq_odd\sfx:
    .insn r 0x2b, 3, 0x06, s10, a1, t1
    .insn r 0x2b, 3, 0x06, ra, a1, t0
    .insn i 0x0b, 2, s5, a1, 4
    add  a0, a0, a1
    j    .Lq_second\sfx
.Lq_none\sfx:
    .insn r 0x2b, 3, 0x06, a7, a1, t1
    .insn r 0x2b, 3, 0x06, t5, a1, t0
    .insn i 0x0b, 2, a6, a1, 4
    lw   t2, 52(sp)
    lw   a5, 20(sp)
    jr   t2
.Lq_jump\sfx:
    lw   t2, 44(sp)
    jr   t2
    /* Lines of six outputs (SIX_LINES), the dyadic form's only (kept out of the frexp form's
       code: upstream KWS has no such lines) */
    .ifc \sfx, _dy
.Lq_six\sfx:
    SIX_LINES \sfx, \req, 1
.Lq_six0\sfx:                             /* (the same where y runs on from line to line) */
    SIX_LINES \sfx, \req, 0
    .endif
.Lq_ret\sfx:
    lw   ra, 40(sp)
    ret
.endm

    /* (the frexp form's pair in a section of its own, behind kPathFrexp) */
    .section .text.etmcu_xpulp_dw_k3_4v, "ax", @progbits
    .globl etmcu_xpulp_dw_k3_prep
    .type etmcu_xpulp_dw_k3_prep, @function
etmcu_xpulp_dw_k3_prep:                    /* LINES_PREP as a subroutine of the channel loop */
    LINES_PREP _4v
    ret
    .size etmcu_xpulp_dw_k3_prep, . - etmcu_xpulp_dw_k3_prep

    .globl etmcu_xpulp_dw_k3_lines
    .type etmcu_xpulp_dw_k3_lines, @function
etmcu_xpulp_dw_k3_lines:
    K3_LINES _4v, REQ_Q
    .size etmcu_xpulp_dw_k3_lines, . - etmcu_xpulp_dw_k3_lines

/* The same for dyadic channels (DwK3Channels::dyadic; cmsis_math.h requant_dyadic): t4 the
   multiplier >> 11, s11 offset * 2^21 + 2^19, s0 the sums' clamp V (t6 unused: the
   lines of six outputs keep their window step there). In their own
   section, behind kernel path kPathDyadic: a program without dyadic layers links neither. */
    .section .text.etmcu_xpulp_dw_k3_dy, "ax", @progbits
    .globl etmcu_xpulp_dw_k3_prep_dy
    .type etmcu_xpulp_dw_k3_prep_dy, @function
etmcu_xpulp_dw_k3_prep_dy:
    LINES_PREP _dy
    ret
    .size etmcu_xpulp_dw_k3_prep_dy, . - etmcu_xpulp_dw_k3_prep_dy

    .globl etmcu_xpulp_dw_k3_lines_dy
    .type etmcu_xpulp_dw_k3_lines_dy, @function
etmcu_xpulp_dw_k3_lines_dy:
    K3_LINES _dy, REQ_DY
    .size etmcu_xpulp_dw_k3_lines_dy, . - etmcu_xpulp_dw_k3_lines_dy
    .text

/* The stride-2 form: pairs of neighbouring outputs 2k, 2k + 1 of a line, whose windows start at
   bytes 4k and 4k + 2 of each window row's plane line (lines start on words). Per window row the
   aligned word A (bytes 4k..4k+3) gives output 2k with the weight word; the next aligned word B,
   loaded for this pair and kept as the next pair's A, and A make bytes 4k+2..4k+5 in one
   cv.shuffle2.b (SHIFT2), which give output 2k + 1 with the same weight word. Three aligned
   loads, three shuffles and six cv.sdotsp.b per pair, against six misaligned loads (two cycles
   each) in the row kernel. The pairs go in twos with the two register sets' roles swapped (as the
   quads); an odd count enters at the second; a line's odd last output from the A left in a6, a7,
   t5. LINES_PREP_S2's slots: 44(sp) the entry (.Ls_even / .Ls_odd / .Ls_none), 48(sp) 4 x pairs,
   52(sp) the tail (.Ls_one / .Ls_next), 56(sp) a1 past a line's last B to the next window, 36(sp)
   y from the first line's first output to past the last line. Registers as the stride-1
   subroutine's (t3 the SHIFT2 selector; the one-byte shifts s6..s8 unused). */
.macro PAIR_S2 a0r, a1r, a2r, b0r, b1r, b2r, req
    lw   a5, 20(sp)
    lw   s9, 20(sp)
    .insn r 0x2b, 3, 0x06, \b1r, a1, t1    /* B, row 1: cv.lw \b1r, t1(a1) */
    .insn r 0x2b, 3, 0x06, \b2r, a1, t0    /* row 2 */
    .insn i 0x0b, 2, \b0r, a1, 4           /* row 0: cv.lw \b0r, 4(a1!) */
    .insn r 0x7b, 1, 0x54, a5, \a0r, s2
    .insn r 0x7b, 1, 0x54, a5, \a1r, s3
    .insn r 0x7b, 1, 0x54, a5, \a2r, s4
    SHIFT2 \a0r, \b0r
    SHIFT2 \a1r, \b1r
    SHIFT2 \a2r, \b2r
    .insn r 0x7b, 1, 0x54, s9, \a0r, s2
    .insn r 0x7b, 1, 0x54, s9, \a1r, s3
    .insn r 0x7b, 1, 0x54, s9, \a2r, s4
    \req a5
    \req s9
.endm
/* LINES_PREP for the stride-2 subroutine (its slots above; reads 4(sp), 24(sp), 32(sp), 36(sp) and
   a4 as LINES_PREP). Clobbers t2, a0, a3, a5. */
.macro LINES_PREP_S2 sfx
    lw   t2, 4(sp)
    mul  a0, t2, a4
    lw   a3, 24(sp)
    add  a0, a0, a3
    lw   a3, 36(sp)
    mul  a0, a0, a3
    sw   a0, 36(sp)
    srli a0, t2, 1                         /* pairs */
    slli a5, a0, 2
    sw   a5, 48(sp)
    addi a3, a5, 4
    lw   a5, 32(sp)
    sub  a5, a5, a3
    sw   a5, 56(sp)                        /* line step - 4 (the first A) - 4 x pairs */
    lla  a5, .Ls_none\sfx
    beqz a0, 1f
    andi a0, a0, 1
    lla  a5, .Ls_odd\sfx
    bnez a0, 1f
    lla  a5, .Ls_even\sfx
1:  sw   a5, 44(sp)
    andi t2, t2, 1
    lla  a5, .Ls_next\sfx
    beqz t2, 2f
    lla  a5, .Ls_one\sfx
2:  sw   a5, 52(sp)
.endm

    /* The stride-2 subroutines in a section of their own: only programs with such layers link
       them (their addresses are taken behind the path bit kPathDwK3Stride2). */
    .section .text.etmcu_xpulp_dw_k3s2, "ax", @progbits
/* The stride-2 lines' body, once per requantization form (as K3_LINES) */
.macro S2_LINES sfx, req
    sw   ra, 40(sp)
    lw   t2, 36(sp)
    add  t2, t2, a2
    sw   t2, 60(sp)                        /* y past the last line */
.Ls_line\sfx:
    lw   a0, 48(sp)
    lw   t2, 44(sp)
    jr   t2
.Ls_even\sfx:
    .insn r 0x2b, 3, 0x06, a7, a1, t1      /* A */
    .insn r 0x2b, 3, 0x06, t5, a1, t0
    .insn i 0x0b, 2, a6, a1, 4
    add  a0, a0, a1                        /* a1 past the line's last B */
.Ls_first\sfx:
    PAIR_S2 a6, a7, t5, s5, s10, ra, \req
.Ls_second\sfx:
    PAIR_S2 s5, s10, ra, a6, a7, t5, \req
    bne  a1, a0, .Ls_first\sfx
    lw   t2, 52(sp)
    jr   t2
.Ls_odd\sfx:
    .insn r 0x2b, 3, 0x06, s10, a1, t1
    .insn r 0x2b, 3, 0x06, ra, a1, t0
    .insn i 0x0b, 2, s5, a1, 4
    add  a0, a0, a1
    j    .Ls_second\sfx
.Ls_none\sfx:                                  /* one output in the line */
    .insn r 0x2b, 3, 0x06, a7, a1, t1
    .insn r 0x2b, 3, 0x06, t5, a1, t0
    .insn i 0x0b, 2, a6, a1, 4
.Ls_one\sfx:                                   /* the odd last output, from A in a6, a7, t5 */
    lw   a5, 20(sp)
    .insn r 0x7b, 1, 0x54, a5, a6, s2
    .insn r 0x7b, 1, 0x54, a5, a7, s3
    .insn r 0x7b, 1, 0x54, a5, t5, s4
    \req a5
.Ls_next\sfx:
    lw   t2, 56(sp)
    lw   a0, 60(sp)
    lw   t5, 24(sp)
    add  a1, a1, t2
    add  a2, a2, t5
    bne  a2, a0, .Ls_line\sfx
    lw   ra, 40(sp)
    ret
.endm

    .globl etmcu_xpulp_dw_k3s2_prep
    .type etmcu_xpulp_dw_k3s2_prep, @function
    .p2align 2
etmcu_xpulp_dw_k3s2_prep:
    LINES_PREP_S2 _4v
    ret
    .size etmcu_xpulp_dw_k3s2_prep, . - etmcu_xpulp_dw_k3s2_prep

    .globl etmcu_xpulp_dw_k3s2_lines
    .type etmcu_xpulp_dw_k3s2_lines, @function
etmcu_xpulp_dw_k3s2_lines:
    S2_LINES _4v, REQ_Q
    .size etmcu_xpulp_dw_k3s2_lines, . - etmcu_xpulp_dw_k3s2_lines

    /* the dyadic form's (etmcu_xpulp_dw_k3_lines_dy's registers), behind kPathDyadic too */
    .section .text.etmcu_xpulp_dw_k3s2_dy, "ax", @progbits
    .globl etmcu_xpulp_dw_k3s2_prep_dy
    .type etmcu_xpulp_dw_k3s2_prep_dy, @function
    .p2align 2
etmcu_xpulp_dw_k3s2_prep_dy:
    LINES_PREP_S2 _dy
    ret
    .size etmcu_xpulp_dw_k3s2_prep_dy, . - etmcu_xpulp_dw_k3s2_prep_dy

    .globl etmcu_xpulp_dw_k3s2_lines_dy
    .type etmcu_xpulp_dw_k3s2_lines_dy, @function
etmcu_xpulp_dw_k3s2_lines_dy:
    S2_LINES _dy, REQ_DY
    .size etmcu_xpulp_dw_k3s2_lines_dy, . - etmcu_xpulp_dw_k3s2_lines_dy
    .text

/* void etmcu_xpulp_dw_k3_channels(const DwK3Channels* c): the channels of one strip of a 3x3
   depthwise layer of stride 1 or 2 with channel multiplier 1 and the floor 0 (isa/xpulp/depthwise.h
   documents the block and decides when). Once per strip, the stride's prep subroutine
   (etmcu_xpulp_dw_k3_prep / etmcu_xpulp_dw_k3s2_prep, named by the block) fills the lines' slots.
   Per input channel: its plane gathered (as xpulp::gather_rows: nested hardware loops of byte
   loads and stores, two cycles per byte), its three weight words packed and their taps summed
   (cv.dotsp.b / cv.sdotsp.b with 0x01010101), full and the 4v requantization constants, then its
   lines through the stride's lines subroutine (etmcu_xpulp_dw_k3_lines / etmcu_xpulp_dw_k3s2_lines);
   one call per strip instead of the C loop's row-kernel call, argument block and prologue per
   channel. The subroutines are called through registers, so that a program without stride-2
   layers links none of the stride-2 code (the stack bound knows the four callees). */
#define C_SRC 0
#define C_DST 4
#define C_ALONG 8
#define C_SRCSKIP 12
#define C_DSTSKIP 16
#define C_LINES 20
#define C_PAIRS 24
#define C_ODD 28
#define C_W 32
#define C_WSTEP 36
#define C_TSTEP 40
#define C_BIAS 44
#define C_BIASSTEP 48
#define C_MULT 52
#define C_SHIFT 56
#define C_IOFF 60
#define C_AMIN 64
#define C_AMAX 68
#define C_Y 72
#define C_CHANNELS 76
#define C_WINDOW 80
#define C_LS 84
#define C_OUTPUTS 88
#define C_LINESOUT 92
#define C_LINESTEP 96
#define C_YSTEP 100
#define C_YLINEJUMP 104
#define C_PREPFN 112
#define C_LINESFN 116
#define C_DYADIC 120

/* cv.setup L, x\reg, label (the loop count in x\reg) */
.macro SETUP_R L, reg, lab
    .4byte (((\lab - .) >> 2) << 20) | (\reg << 15) | (4 << 12) | ((14 + \L) << 7) | 0x2b
.endm
/* \rd = \p's three taps \t apart (a weight word: tap 0 in the low byte, byte 3 zero); \p += 2 \t */
.macro TAPS rd, p, t
    .insn r 0x2b, 3, 0x08, \rd, \p, \t     /* cv.lbu.pr: tap 0, zero-extended */
    .insn r 0x2b, 3, 0x00, t2, \p, \t      /* cv.lb.pr: tap 1 */
    lb   a3, 0(\p)                         /* tap 2 */
    .insn r 0x7b, 5, 0x5d, \rd, t2, x0     /* cv.insert.b \rd, t2, 1 */
    .insn r 0x7b, 5, 0x5c, \rd, a3, x1     /* cv.insert.b \rd, a3, 2 */
.endm

    .globl etmcu_xpulp_dw_k3_channels
    .type etmcu_xpulp_dw_k3_channels, @function
    .p2align 2
etmcu_xpulp_dw_k3_channels:
    addi sp, sp, -160                      /* 0..60 as etmcu_xpulp_dw_k3_lines reads them, 116.. */
    sw   ra, 112(sp)
    sw   s0, 108(sp)
    sw   s1, 104(sp)
    sw   s2, 100(sp)
    sw   s3, 96(sp)
    sw   s4, 92(sp)
    sw   s5, 88(sp)
    sw   s6, 84(sp)
    sw   s7, 80(sp)
    sw   s8, 76(sp)
    sw   s9, 72(sp)
    sw   s10, 68(sp)
    sw   s11, 64(sp)
    sw   a0, 116(sp)                       /* the block */
    sw   zero, 120(sp)                     /* the channel */
    lw   t2, C_OUTPUTS(a0)
    sw   t2, 4(sp)
    lw   t2, C_AMIN(a0)
    sw   t2, 16(sp)
    lw   t2, C_YLINEJUMP(a0)
    sw   t2, 24(sp)
    lw   t2, C_LINESTEP(a0)
    sw   t2, 32(sp)
    lw   t2, C_LINESOUT(a0)
    sw   t2, 36(sp)
    lw   a4, C_YSTEP(a0)
    lw   t2, C_LINESFN(a0)
    sw   t2, 124(sp)                       /* the lines' subroutine (the stride's) */
    lw   t2, C_DYADIC(a0)
    beqz t2, 1f
    lw   t2, 16(sp)                        /* the dyadic form's constants (.Lc_dyadic) */
    slli t6, t2, 21
    lui  t5, 0x80
    add  t6, t6, t5
    sw   t6, 136(sp)                       /* amin (the offset) * 2^21 + 2^19 */
    lw   t6, C_AMAX(a0)                    /* T = (amax - amin + 1) * 2^21 - 3 * 2^19 - 1: */
    sub  t6, t6, t2                        /* a sum v >= 0 gives at most amax while v * m <= T */
    addi t6, t6, 1                         /* (cmsis_math.h dyadic_relu_bound) */
    slli t6, t6, 21
    lui  t5, 0x180
    addi t5, t5, 1
    sub  t6, t6, t5
    sw   t6, 132(sp)
1:  lw   t2, C_PREPFN(a0)
    jalr ra, t2, 0                         /* and its once-per-strip slots */
    li   t2, 0x01010101
    sw   t2, 8(sp)
    li   s3, 0                             /* the channel (s3 until its weights, then 120(sp)) */
    /* what the lines read and neither they nor the channels' code below write: set once */
    lw   a0, 116(sp)                       /* (LINES_PREP clobbered it) */
    li   t3, 0x05040302                    /* the selector of SHIFT2 */
    lw   s0, C_AMAX(a0)
    lw   t1, C_LS(a0)
    add  t0, t1, t1
.Lc_channel:                               /* (a0: the block, s3: the channel) */
    lw   t2, C_ODD(a0)                     /* 0: pairs, 1: pairs and an odd last byte */
    lw   a6, C_SRC(a0)
    lw   a5, C_DST(a0)
    lw   a3, C_ALONG(a0)
    lw   t4, C_SRCSKIP(a0)
    lw   t5, C_DSTSKIP(a0)
    lw   t6, C_LINES(a0)
    lw   a7, C_PAIRS(a0)
    add  a6, a6, s3
    beqz t2, .Lc_even
    SETUP_R 1, 31, 1f                      /* lines (t6) */
    SETUP_R 0, 17, 2f                      /* pairs (a7) */
    .insn r 0x2b, 3, 0x00, s1, a6, a3      /* cv.lb.pr s1, (a6), a3 */
    .insn r 0x2b, 3, 0x00, s2, a6, a3
    .insn s 0x2b, 0, s1, 1(a5)             /* cv.sb s1, 1(a5!) */
    .insn s 0x2b, 0, s2, 1(a5)
2:  .insn r 0x2b, 3, 0x00, s1, a6, a3      /* the odd last byte */
    add  a6, a6, t4
    .insn s 0x2b, 0, s1, 1(a5)
    add  a5, a5, t5
1:  j    .Lc_weights
.Lc_even:
    SETUP_R 1, 31, 1f
    SETUP_R 0, 17, 2f
    .insn r 0x2b, 3, 0x00, s1, a6, a3
    .insn r 0x2b, 3, 0x00, s2, a6, a3
    .insn s 0x2b, 0, s1, 1(a5)
    .insn s 0x2b, 0, s2, 1(a5)
2:  add  a6, a6, t4
    add  a5, a5, t5
1:
.Lc_weights:
    lw   a6, C_W(a0)
    lw   t4, C_WSTEP(a0)
    lw   t5, C_TSTEP(a0)
    lw   s1, C_BIAS(a0)
    lw   t2, C_BIASSTEP(a0)
    add  a6, a6, s3
    mul  t2, t2, s3
    slli s10, s3, 2                        /* (s10: 4 x the channel) */
    add  s1, s1, t2                        /* (TAPS clobbers t2 and a3) */
    TAPS s2, a6, t5
    add  a6, a6, t4                        /* (t4: word_step - 2 tap_step) */
    TAPS s9, a6, t5                        /* (s9: word 1 while s3 is the channel) */
    add  a6, a6, t4
    TAPS s4, a6, t5
    lw   a2, C_Y(a0)
    mv   s3, s9
    lw   t2, 8(sp)                         /* 0x01010101 */
    .insn r 0x7b, 1, 0x48, a5, s2, t2      /* the taps' sum: cv.dotsp.b, then cv.sdotsp.b */
    .insn r 0x7b, 1, 0x54, a5, s3, t2
    .insn r 0x7b, 1, 0x54, a5, s4, t2
    lw   s1, 0(s1)                         /* full = bias + input offset * the taps' sum */
    lw   t2, C_IOFF(a0)
    lw   t4, C_MULT(a0)
    lw   t6, C_SHIFT(a0)
    lw   a3, 120(sp)
    .insn r 0x2b, 3, 0x48, s1, t2, a5      /* cv.mac s1, t2, a5 */
    add  t4, t4, s10
    add  t6, t6, s10
    sw   s1, 20(sp)
    lw   t4, 0(t4)                         /* the multiplier */
    add  a2, a2, a3
    lw   a3, C_DYADIC(a0)
    slli s6, s2, 8
    slli s7, s3, 8
    slli s8, s4, 8
    bnez a3, .Lc_dyadic                    /* (below: the frexp form's constants) */
    lw   t6, 0(t6)
    lw   s11, 16(sp)
    li   t2, 1
    sub  t6, t2, t6                        /* r + 1 = 1 - shift */
    sll  s11, s11, t6
    addi s11, s11, 1                       /* offset << (r+1), plus the sign term of a sum >= 0 */
.Lc_lines:
    lw   t2, 124(sp)
    lw   a1, C_WINDOW(a0)
    jalr ra, t2, 0
    lw   a0, 116(sp)                       /* the next channel */
    lw   s3, 120(sp)
    lw   t4, C_CHANNELS(a0)
    addi s3, s3, 1
    sw   s3, 120(sp)
    bne  s3, t4, .Lc_channel
    lw   ra, 112(sp)
    lw   s0, 108(sp)
    lw   s1, 104(sp)
    lw   s2, 100(sp)
    lw   s3, 96(sp)
    lw   s4, 92(sp)
    lw   s5, 88(sp)
    lw   s6, 84(sp)
    lw   s7, 80(sp)
    lw   s8, 76(sp)
    lw   s9, 72(sp)
    lw   s10, 68(sp)
    lw   s11, 64(sp)
    addi sp, sp, 160
    ret
.Lc_dyadic:                                /* the dyadic lines' parameters (REQ_DY) */
    srai t4, t4, 11                        /* m */
    lw   t2, 132(sp)                       /* T */
    lw   s11, 136(sp)                      /* offset * 2^21 + 2^19 */
    divu s0, t2, t4                        /* V = T / m: the sums' clamp (REQ_DY) */
    j    .Lc_lines
    .size etmcu_xpulp_dw_k3_channels, . - etmcu_xpulp_dw_k3_channels

    .globl etmcu_xpulp_dw_row
    .type etmcu_xpulp_dw_row, @function
    .p2align 2
etmcu_xpulp_dw_row:
    PROLOGUE
    lw   s2, A_ROWS(a0)
    addi s3, a0, A_W                       /* the weight words */
    lw   t0, A_ROWJUMP(a0)
    sw   t0, 0(sp)
    lw   t0, A_OUTPUTS(a0)
    sw   t0, 4(sp)
    lw   t0, A_OUTROWS(a0)
    sw   t0, 8(sp)                         /* output rows left (s5 is the weight pointer) */
4:  lw   s4, 4(sp)
    mv   a0, s2
2:  mv   t0, a1
    mv   s5, s3
    mv   a5, s1
    .insn i 0x0b, 2, a7, s5, 4             /* w[0] */
    .insn r 0x2b, 3, 0x02, a6, t0, t1      /* row 0 */
    /* rows: the sum of this row, then the next row's words (one row past the last is read, not
       used: the plane has a spare line) */
    SETUP_A0 0, 1f
    .insn r 0x7b, 1, 0x54, a5, a6, a7
    .insn i 0x0b, 2, a7, s5, 4
    .insn r 0x2b, 3, 0x02, a6, t0, t1
1:  add  a1, a1, a3
    REQUANT_STORE a5
    mv   a0, s2
    addi s4, s4, -1
    bnez s4, 2b
    lw   t0, 0(sp)
    add  a1, a1, t0
    lw   t0, 8(sp)
    addi t0, t0, -1
    sw   t0, 8(sp)
    bnez t0, 4b
    EPILOGUE
    .size etmcu_xpulp_dw_row, . - etmcu_xpulp_dw_row

/* void etmcu_xpulp_dw_row4(const DwRow4Args* a): four output channels that read the same plane
   (a channel multiplier that is a multiple of 4: KWS's first layer), so each plane word loaded
   feeds four cv.sdotsp.b. Output o of row q: its four sums start at full[0..3]; window row r adds
   cv.sdotsp.b(plane word, w[4r + k]); the four outputs are stored at y + ... + k. A hardware loop
   over the window rows: two neighbouring outputs at a time, 16 cycles per row for 32
   multiply-accumulates (each weight word feeding both), a last odd one alone in 10 for 16. */
#define B_WINDOW 0
#define B_LSTRIDE 4
#define B_XSTEP 8
#define B_OUTPUTS 12
#define B_Y 16
#define B_YSTEP 20
#define B_FULL 24
#define B_MULT 40
#define B_KOFF 56
#define B_RIGHT 72
#define B_AMIN 88
#define B_AMAX 92
#define B_ROWS 96
#define B_OUTROWS 100
#define B_ROWJUMP 104
#define B_W 108
#define B_FLOOR 300
#define B_KOFF4 304
#define B_RIGHT4 320

/* channel k: requantize acc, store at k(a2); t2, t3 temporaries, t4/t5/t6 the parameters; a sum
   below the floor (s6) is amin without the arithmetic (outside the hardware loop: its body may
   not branch) */
.macro REQUANT4 k, acc
    RQ_BEGIN
    mv   t2, ra
    blt  \acc, s6, .Lr4\@
    lw   t4, (B_MULT + 4 * \k)(s1)
    lw   t5, (B_KOFF4 + 4 * \k)(s1)
    lw   t6, (B_RIGHT4 + 4 * \k)(s1)
    REQ_ARITH \acc, t3, t4, t5, t6
.Lr4\@:
    sb   t2, \k(a2)
    RQ_END
.endm

/* the pair's: channel k's parameters once (t0, t4, t5), its two sums into k(a2) and k(a6);
   temporaries t2, a7 */
.macro REQUANT4_ONE k, acc, ybase
    RQ_BEGIN
    mv   t2, ra
    blt  \acc, s6, .Lr4p\@
    REQ_ARITH \acc, a7, t0, t4, t5
.Lr4p\@:
    sb   t2, \k(\ybase)
    RQ_END
.endm
.macro REQUANT4_PAIR k, acc0, acc1
    RQ_BEGIN
    lw   t0, (B_MULT + 4 * \k)(s1)
    lw   t4, (B_KOFF4 + 4 * \k)(s1)
    lw   t5, (B_RIGHT4 + 4 * \k)(s1)
    RQ_END
    REQUANT4_ONE \k, \acc0, a2
    REQUANT4_ONE \k, \acc1, a6
.endm

/* REQUANT4 where the floor is 0 (below) */
.macro REQUANT4_NONNEG k, acc
    RQ_BEGIN
    mv   t2, ra
    blt  \acc, zero, .Lr4s\@
    lw   t4, (B_MULT + 4 * \k)(s1)
    lw   t5, (B_KOFF4 + 4 * \k)(s1)
    lw   t6, (B_RIGHT4 + 4 * \k)(s1)
    addi t5, t5, 1
    REQ_ARITH_NONNEG \acc, t3, t4, t5, t6
.Lr4s\@:
    sb   t2, \k(a2)
    RQ_END
.endm

/* REQUANT4_ONE / REQUANT4_PAIR where the floor is 0 (amin is the output offset): a sum at or above
   it has the sign term +1 (folded into t4) and a result of at least amin (no cv.max) */
.macro REQUANT4_ONE_NONNEG k, acc, ybase
    RQ_BEGIN
    mv   t2, ra
    blt  \acc, zero, .Lr4n\@
    REQ_ARITH_NONNEG \acc, a7, t0, t4, t5
.Lr4n\@:
    sb   t2, \k(\ybase)
    RQ_END
.endm
.macro REQUANT4_PAIR_NONNEG k, acc0, acc1
    RQ_BEGIN
    lw   t0, (B_MULT + 4 * \k)(s1)
    lw   t4, (B_KOFF4 + 4 * \k)(s1)
    lw   t5, (B_RIGHT4 + 4 * \k)(s1)
    addi t4, t4, 1
    RQ_END
    REQUANT4_ONE_NONNEG \k, \acc0, a2
    REQUANT4_ONE_NONNEG \k, \acc1, a6
.endm

/* The five-window pass's twenty outputs in the frexp form, in two flows as the pointwise kernel's
   ReLU outputs: the positive one (a sum at or above 0: its test falls through to the arithmetic,
   slli, mulh, cv.addRNr with the sign term's +1 folded into the offset term, cv.min of amax, and
   the store: 10 cycles with mulh's five) and the negative one (amin stored: its test falls
   through, 2 cycles); a change of sign branches into the other flow at the same output (3 cycles).
   One flow with a `mv` of amin per sum and a taken branch per negative one took 11 and 5.
   Output n of channel k = n / 5: its sum acc, stored at a1, a1 += y_step (t1); each flow loads
   a channel's parameters (a3 = m, a5 = offset << (r+1) plus 1, a6 = r + 1; a0 the block) before
   its first output and moves a1 to it from the last channel's fifth (a7 = 1 - 5 y_step); t0
   amin, s3 amax, t2 the result. */
.macro R5_POS n, acc
    blt  \acc, zero, .Lr5ns\n
.Lr5pb\n:
    slli t2, \acc, 2
    mulh t2, t2, a3
    .insn r 0x2b, 3, 0x42, t2, a5, a6      /* cv.addRNr */
    .insn r 0x2b, 3, 0x2b, t2, t2, s3      /* cv.min t2, t2, amax */
    .insn r 0x2b, 3, 0x10, t1, a1, t2      /* cv.sb.pr t2, (a1), t1 */
.endm
.macro R5_NEG n, acc
    bge  \acc, zero, .Lr5pb\n
.Lr5ns\n:
    .insn r 0x2b, 3, 0x10, t1, a1, t0      /* cv.sb.pr amin, (a1), t1 */
.endm
/* channel k's parameters (\step: the outputs' pointer from the last channel's fifth first) */
.macro R5_PARAMS k, step=1
    lw   a3, (B_MULT + 4 * \k)(a0)
    lw   a5, (B_KOFF4 + 4 * \k)(a0)
    lw   a6, (B_RIGHT4 + 4 * \k)(a0)
    .if \step
    add  a1, a1, a7
    .endif
    addi a5, a5, 1
.endm
/* one flow (\out: R5_POS or R5_NEG) over the twenty sums, channel by channel */
.macro R5_FLOW out
    R5_PARAMS 0, 0
    \out 0, ra
    \out 1, s2
    \out 2, s7
    \out 3, s11
    \out 4, t6
    R5_PARAMS 1
    \out 5, gp
    \out 6, s4
    \out 7, s8
    \out 8, t3
    \out 9, a2
    R5_PARAMS 2
    \out 10, tp
    \out 11, s5
    \out 12, s9
    \out 13, t4
    \out 14, a4
    R5_PARAMS 3
    \out 15, s0
    \out 16, s6
    \out 17, s10
    \out 18, t5
    \out 19, s1
.endm

/* The five-window pass's dot products (the frexp and dyadic row4 kernels'): the twenty sums
   from the four channels' biases at B_FULL(\blk) (\blk read before s1 becomes a sum), then the
   window rows (a3 of them) in a hardware loop; a1 the window, t1 the line stride, s3 the
   weights. Sums, plane and weight words as listed at .Lr4_five_try. */
.macro R4_FIVE_DOTS blk
    lw   ra, (B_FULL + 0)(\blk)
    lw   gp, (B_FULL + 4)(\blk)
    lw   tp, (B_FULL + 8)(\blk)
    lw   s0, (B_FULL + 12)(\blk)
    mv   s2, ra
    mv   s4, gp
    mv   s5, tp
    mv   s6, s0
    mv   s7, ra
    mv   s8, gp
    mv   s9, tp
    mv   s10, s0
    mv   s11, ra
    mv   t3, gp
    mv   t4, tp
    mv   t5, s0
    mv   t6, ra
    mv   a2, gp
    mv   a4, tp
    mv   s1, s0
    SETUP_R 0, 13, 1f                      /* window rows (a3) */
    lw   a5, 8(a1)                         /* window 4's plane word */
    lw   a6, 6(a1)                         /* 3 */
    lw   a7, 4(a1)                         /* 2 */
    lw   t0, 2(a1)                         /* 1 */
    .insn r 0x2b, 3, 0x02, a3, a1, t1      /* 0: cv.lw a3, (a1), t1: the next window row */
    .insn i 0x0b, 2, t2, s3, 4             /* w[4r + 0] */
    .insn i 0x0b, 2, a0, s3, 4             /* w[4r + 1] */
    .insn r 0x7b, 1, 0x54, ra, a3, t2
    .insn r 0x7b, 1, 0x54, s2, t0, t2
    .insn r 0x7b, 1, 0x54, s7, a7, t2
    .insn r 0x7b, 1, 0x54, s11, a6, t2
    .insn r 0x7b, 1, 0x54, t6, a5, t2
    .insn i 0x0b, 2, t2, s3, 4             /* w[4r + 2] */
    .insn r 0x7b, 1, 0x54, gp, a3, a0
    .insn r 0x7b, 1, 0x54, s4, t0, a0
    .insn r 0x7b, 1, 0x54, s8, a7, a0
    .insn r 0x7b, 1, 0x54, t3, a6, a0
    .insn r 0x7b, 1, 0x54, a2, a5, a0
    .insn i 0x0b, 2, a0, s3, 4             /* w[4r + 3] */
    .insn r 0x7b, 1, 0x54, tp, a3, t2
    .insn r 0x7b, 1, 0x54, s5, t0, t2
    .insn r 0x7b, 1, 0x54, s9, a7, t2
    .insn r 0x7b, 1, 0x54, t4, a6, t2
    .insn r 0x7b, 1, 0x54, a4, a5, t2
    .insn r 0x7b, 1, 0x54, s0, a3, a0
    .insn r 0x7b, 1, 0x54, s6, t0, a0
    .insn r 0x7b, 1, 0x54, s10, a7, a0
    .insn r 0x7b, 1, 0x54, t5, a6, a0
    .insn r 0x7b, 1, 0x54, s1, a5, a0
1:
.endm

    /* (a section of its own: a program without multiplier-4 layers drops it, kPathDwLanesMult4) */
    .section .text.etmcu_xpulp_dw_row4, "ax", @progbits
    .globl etmcu_xpulp_dw_row4
    .type etmcu_xpulp_dw_row4, @function
    .p2align 2
etmcu_xpulp_dw_row4:
    addi sp, sp, -96                       /* (64..84: the five-window passes' slots) */
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
    mv   s1, a0
    lw   a1, B_WINDOW(s1)
    lw   t1, B_LSTRIDE(s1)
    lw   a3, B_XSTEP(s1)
    lw   a2, B_Y(s1)
    lw   a4, B_YSTEP(s1)
    lw   ra, B_AMIN(s1)
    lw   s0, B_AMAX(s1)
    lw   s2, B_ROWS(s1)
    lw   s6, B_FLOOR(s1)
    addi s3, s1, B_W
    lw   t0, B_OUTROWS(s1)
    sw   t0, 8(sp)                         /* output rows left */
5:  lw   s4, B_OUTPUTS(s1)                 /* outputs left in this row */
    /* Two neighbouring outputs while two are left: each weight word loaded feeds both windows'
       sums (16 cycles per window row for 32 multiply-accumulates). t0 / t5 the two windows,
       a6 / t4 their plane words, a7 / t2 the weight words; sums s7..s10 and t3, s11, a5, t6. */
7:  li   t0, 5
    bge  s4, t0, .Lr4_five_try
.Lr4_pairs:
    li   t0, 2
    blt  s4, t0, 6f
    mv   t0, a1
    add  t5, a1, a3
    mv   s5, s3
    lw   s7, (B_FULL + 0)(s1)
    lw   s8, (B_FULL + 4)(s1)
    lw   s9, (B_FULL + 8)(s1)
    lw   s10, (B_FULL + 12)(s1)
    mv   t3, s7
    mv   s11, s8
    mv   a5, s9
    mv   t6, s10
    mv   a0, s2
    SETUP_A0 0, 2f
    .insn r 0x2b, 3, 0x02, a6, t0, t1      /* the first window's plane word */
    .insn r 0x2b, 3, 0x02, t4, t5, t1      /* the second's */
    .insn i 0x0b, 2, a7, s5, 4             /* w[4r + 0] */
    .insn i 0x0b, 2, t2, s5, 4             /* w[4r + 1] */
    .insn r 0x7b, 1, 0x54, s7, a6, a7
    .insn r 0x7b, 1, 0x54, t3, t4, a7
    .insn i 0x0b, 2, a7, s5, 4             /* w[4r + 2] */
    .insn r 0x7b, 1, 0x54, s8, a6, t2
    .insn r 0x7b, 1, 0x54, s11, t4, t2
    .insn i 0x0b, 2, t2, s5, 4             /* w[4r + 3] */
    .insn r 0x7b, 1, 0x54, s9, a6, a7
    .insn r 0x7b, 1, 0x54, a5, t4, a7
    .insn r 0x7b, 1, 0x54, s10, a6, t2
    .insn r 0x7b, 1, 0x54, t6, t4, t2
2:  add  a6, a2, a4                        /* the second window's outputs */
    bnez s6, 3f
    REQUANT4_PAIR_NONNEG 0, s7, t3          /* (a fused ReLU: 4 cycles less per sum that */
    REQUANT4_PAIR_NONNEG 1, s8, s11         /* reaches the requantization) */
    REQUANT4_PAIR_NONNEG 2, s9, a5
    REQUANT4_PAIR_NONNEG 3, s10, t6
    j    4f
3:  REQUANT4_PAIR 0, s7, t3
    REQUANT4_PAIR 1, s8, s11
    REQUANT4_PAIR 2, s9, a5
    REQUANT4_PAIR 3, s10, t6
4:  add  a1, a1, a3
    add  a1, a1, a3
    add  a2, a6, a4
    addi s4, s4, -2
    bnez s4, 7b
    j    8f
    /* one output */
6:  mv   t0, a1
    mv   s5, s3
    lw   s7, (B_FULL + 0)(s1)
    lw   s8, (B_FULL + 4)(s1)
    lw   s9, (B_FULL + 8)(s1)
    lw   s10, (B_FULL + 12)(s1)
    mv   a0, s2
    SETUP_A0 0, 1f
    .insn r 0x2b, 3, 0x02, a6, t0, t1      /* plane word of this window row */
    .insn i 0x0b, 2, a7, s5, 4             /* w[4r + 0..3] */
    .insn i 0x0b, 2, t2, s5, 4
    .insn r 0x7b, 1, 0x54, s7, a6, a7
    .insn i 0x0b, 2, t3, s5, 4
    .insn r 0x7b, 1, 0x54, s8, a6, t2
    .insn i 0x0b, 2, s11, s5, 4
    .insn r 0x7b, 1, 0x54, s9, a6, t3
    .insn r 0x7b, 1, 0x54, s10, a6, s11
1:  add  a1, a1, a3
    bnez s6, 3f
    REQUANT4_NONNEG 0, s7
    REQUANT4_NONNEG 1, s8
    REQUANT4_NONNEG 2, s9
    REQUANT4_NONNEG 3, s10
    j    4f
3:  REQUANT4 0, s7
    REQUANT4 1, s8
    REQUANT4 2, s9
    REQUANT4 3, s10
4:  add  a2, a2, a4
    addi s4, s4, -1
    bnez s4, 6b
8:  lw   t0, B_ROWJUMP(s1)
    add  a1, a1, t0
    lw   t0, 8(sp)
    addi t0, t0, -1
    sw   t0, 8(sp)
    bnez t0, 5b
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
    addi sp, sp, 96
    ret
    /* Five neighbouring outputs while five are left, at stride 2 with a fused ReLU (KWS's and
       DS-CNN's 10x4 first layers: 1 -> 64 channels, five outputs a row): per window row five
       plane words (offsets 0, 2, .., 8 from the window; two or three misaligned) and the four
       weight words feed twenty cv.sdotsp.b, 31 cycles per 80 multiply-accumulates against the
       pairs' 15 per 32. The twenty sums, five plane words, two weight words and three pointers take
       every register but sp (gp and tp saved here; the fatal-trap entry reloads gp): the block,
       window, y and outputs left wait at 64..76(sp) and the rest is reloaded from the block.
       Sums: channel k of window i in A_ik = ra gp tp s0 | s2 s4 s5 s6 | s7 s8 s9 s10 |
       s11 t3 t4 t5 | t6 a2 a4 s1; plane words a3 t0 a7 a6 a5 (windows 0..4); weight words t2, a0;
       the window row a1 (+= the line stride t1), the weights s3. */
.Lr4_five_try:
    bnez s6, .Lr4_pairs                    /* (a floor other than 0: the pairs' general form) */
    li   t0, 2
    bne  a3, t0, .Lr4_pairs
    sw   s1, 64(sp)
    sw   a1, 68(sp)
    sw   a2, 72(sp)
    sw   s4, 76(sp)
    sw   gp, 80(sp)
    sw   tp, 84(sp)
    mv   a3, s2                            /* the window rows: the loop's count */
    R4_FIVE_DOTS s1                        /* (the block's pointer is at 64(sp)) */
    lw   a0, 64(sp)                        /* the block */
    lw   t1, B_YSTEP(a0)
    lw   t0, B_AMIN(a0)
    lw   s3, B_AMAX(a0)
    lw   a1, 72(sp)                        /* window 0's outputs */
    slli a7, t1, 2
    add  a7, a7, t1
    sub  a7, zero, a7
    addi a7, a7, 1                         /* 1 - 5 y_step */
    RQ_BEGIN
    R5_FLOW R5_POS                         /* (entered at its first output's test) */
    j    1f
    R5_FLOW R5_NEG
1:
    RQ_END
    lw   gp, 80(sp)
    lw   tp, 84(sp)
    lw   s1, 64(sp)
    lw   a1, 68(sp)
    lw   a2, 72(sp)
    lw   s4, 76(sp)
    lw   t1, B_LSTRIDE(s1)
    lw   a3, B_XSTEP(s1)
    lw   a4, B_YSTEP(s1)
    lw   ra, B_AMIN(s1)
    lw   s0, B_AMAX(s1)
    lw   s2, B_ROWS(s1)
    lw   s6, B_FLOOR(s1)
    addi s3, s1, B_W
    addi a1, a1, 10                        /* five windows on (x_step 2) */
    slli t0, a4, 2
    add  t0, t0, a4
    add  a2, a2, t0                        /* and their outputs */
    addi s4, s4, -5
    beqz s4, 8b
    j    7b
    .size etmcu_xpulp_dw_row4, . - etmcu_xpulp_dw_row4

/* void etmcu_xpulp_dw_row4_dy(const DwRow4Args* a): the five-window passes of etmcu_xpulp_dw_row4
   for four dyadic channels with a fused ReLU (planes_rows4 gives it only rows of
   a multiple of five outputs at stride 2 with the floor 0, DS-CNN's 10x4 first layer): the same
   dot products (R4_FIVE_DOTS), then each sum clamped to [0, V] (cv.clipur: a negative sum gives
   the offset, amin; V the channel's largest sum whose result is at most amax, so no cv.min),
   one mul and cv.addRN (offset * 2^21 + 2^19, and 2^20, >> 21: cmsis_math.h
   requantize_offset_dyadic, as REQ_DY). 4 cycles a sum against the frexp form's two flows (11 a
   sum at or above 0 with mulh's five, 5 below) and 24 a channel's five instead of about 48.
   The block's mult, offset_high and right hold m, offset * 2^21 + 2^19 and V (planes_rows4).
   In a section of its own behind kPathDyadic: a program of frexp layers links none of it. */
.macro REQ5D_ONE acc
    .insn r 0x2b, 3, 0x3b, \acc, \acc, a6   /* cv.clipur \acc, \acc, V */
    mul  \acc, \acc, a3
    .insn r 0x5b, 2, 0x55, \acc, \acc, a5   /* cv.addRN \acc, \acc, a5, 21 */
    .insn r 0x2b, 3, 0x10, t1, a1, \acc     /* cv.sb.pr \acc, (a1), t1 */
.endm
/* channel k's five sums (its parameters: a6 = V, a3 = m, a5 = the offset term), stored y_step
   (t1) apart from a1; then a1 to channel k + 1's first output (t0 = 1 - 5 y_step) */
.macro REQ5D_CHANNEL k, s0r, s1r, s2r, s3r, s4r
    RQ_BEGIN
    lw   a6, (B_RIGHT + 4 * \k)(a0)
    lw   a3, (B_MULT + 4 * \k)(a0)
    lw   a5, (B_KOFF + 4 * \k)(a0)
    REQ5D_ONE \s0r
    REQ5D_ONE \s1r
    REQ5D_ONE \s2r
    REQ5D_ONE \s3r
    REQ5D_ONE \s4r
    add  a1, a1, t0
    RQ_END
.endm

    .section .text.etmcu_xpulp_dw_row4_dy, "ax", @progbits
    .globl etmcu_xpulp_dw_row4_dy
    .type etmcu_xpulp_dw_row4_dy, @function
    .p2align 2
etmcu_xpulp_dw_row4_dy:
    addi sp, sp, -96                       /* the saved registers at 0..56, the state at 60..76 */
    SAVE_REGS
    sw   a0, 64(sp)                        /* the block */
    lw   a1, B_WINDOW(a0)
    lw   a2, B_Y(a0)
    lw   t0, B_OUTROWS(a0)
    sw   t0, 60(sp)                        /* output rows left */
.Ld5_row:
    lw   t0, B_OUTPUTS(a0)
    sw   t0, 76(sp)                        /* outputs left in this row (a multiple of 5) */
.Ld5_pass:
    sw   a1, 68(sp)                        /* window 0 */
    sw   a2, 72(sp)                        /* its outputs */
    lw   t1, B_LSTRIDE(a0)
    lw   a3, B_ROWS(a0)                    /* the window rows: the loop's count */
    addi s3, a0, B_W
    R4_FIVE_DOTS a0
    lw   a0, 64(sp)
    lw   t1, B_YSTEP(a0)
    lw   a1, 72(sp)
    slli t0, t1, 2
    add  t0, t0, t1
    sub  t0, zero, t0
    addi t0, t0, 1                         /* 1 - 5 y_step */
    REQ5D_CHANNEL 0, ra, s2, s7, s11, t6
    REQ5D_CHANNEL 1, gp, s4, s8, t3, a2
    REQ5D_CHANNEL 2, tp, s5, s9, t4, a4
    REQ5D_CHANNEL 3, s0, s6, s10, t5, s1
    lw   a1, 68(sp)
    lw   a2, 72(sp)
    lw   t0, 76(sp)
    addi a1, a1, 10                        /* five windows on (x_step 2) */
    slli t2, t1, 2
    add  t2, t2, t1
    add  a2, a2, t2                        /* and their outputs */
    addi t0, t0, -5
    sw   t0, 76(sp)
    bnez t0, .Ld5_pass
    lw   t0, B_ROWJUMP(a0)
    add  a1, a1, t0
    lw   t0, 60(sp)
    addi t0, t0, -1
    sw   t0, 60(sp)
    bnez t0, .Ld5_row
    RESTORE_REGS
    addi sp, sp, 96
    ret
    .size etmcu_xpulp_dw_row4_dy, . - etmcu_xpulp_dw_row4_dy
    .text
    .option pop
