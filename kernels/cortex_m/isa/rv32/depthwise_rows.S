/* etmcu_rv32_dw_row_k3: the depthwise row kernel for three window rows of up to three taps on a
   plain RV32IMC core (the contract and argument block: kernels/cortex_m/util/depthwise_planes.h,
   DwRowArgs; isa/rv32/depthwise.h calls it when the weight words' fourth bytes are zero).

   The nine weights are sign-extended into registers once. With stride 1 and a fused ReLU, four
   neighbouring outputs go together (ROW_QUAD: six byte loads a window row feed twelve mul + add);
   a row's last one to three, and the outputs of a layer without a ReLU, go in pairs, which share
   two of their three columns, so twelve byte loads feed their eighteen mul + add; otherwise (and
   a row's odd last one) an output is nine byte loads and nine mul + add (each load two or more
   instructions ahead of its use). Then the 4v requantization of cmsis_math.h
   (requantize_offset_4v: one mulh, no low word), clamped to [amin, amax]; with a fused ReLU
   without the sign term and the lower bound (REQ_K3R: 12 cycles a sum at or above 0 against 16),
   the general form after the return. etmcu_rv32_dw_row_k3_dy (below) is the same kernel for
   layers whose channels are all dyadic with a fused ReLU, requantizing with one mul (REQ_K3D). */
#include "requant_range.inc"
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
#define A_FLOOR 108
#define A_KOFF4 112
#define A_RIGHT4 116
#define A_ROWSFN 124

/* weight byte `byte` of word `word` into reg, sign-extended */
.macro WBYTE reg, word, byte
    lb   \reg, (A_W + 4 * \word + \byte)(a0)
.endm

/* one window row r of two neighbouring outputs (stride 1: they share two of their taps): four
   plane bytes from t2, weights w0..w2; sums t3 (first) and s11 (second); a5..a7, t0 temporaries */
.macro ROW_PAIR w0, w1, w2
    lb   a5, 0(t2)
    lb   a6, 1(t2)
    lb   a7, 2(t2)
    mul  t0, a5, \w0
    add  t3, t3, t0
    lb   a5, 3(t2)
    mul  t0, a6, \w1
    add  t3, t3, t0
    mul  t0, a6, \w0
    add  s11, s11, t0
    mul  t0, a7, \w2
    add  t3, t3, t0
    mul  t0, a7, \w1
    add  s11, s11, t0
    mul  t0, a5, \w2
    add  s11, s11, t0
.endm

/* one window row r of four neighbouring outputs (stride 1): six plane bytes from t2, each loaded
   two or more instructions before its first use and dead after its last (three registers, a5..a7),
   weights w0..w2; sums t3, s11, s1, a3; t0 the product. 30 instructions for 12 multiply-
   accumulates against ROW_PAIR's 16 for 6. */
.macro ROW_QUAD w0, w1, w2
    lb   a5, 0(t2)
    lb   a6, 1(t2)
    lb   a7, 2(t2)
    mul  t0, a5, \w0
    add  t3, t3, t0
    lb   a5, 3(t2)
    mul  t0, a6, \w1
    add  t3, t3, t0
    mul  t0, a6, \w0
    add  s11, s11, t0
    mul  t0, a7, \w2
    add  t3, t3, t0
    lb   a6, 4(t2)
    mul  t0, a7, \w1
    add  s11, s11, t0
    mul  t0, a7, \w0
    add  s1, s1, t0
    lb   a7, 5(t2)
    mul  t0, a5, \w2
    add  s11, s11, t0
    mul  t0, a5, \w1
    add  s1, s1, t0
    mul  t0, a5, \w0
    add  a3, a3, t0
    mul  t0, a6, \w2
    add  s1, s1, t0
    mul  t0, a6, \w1
    add  a3, a3, t0
    mul  t0, a7, \w2
    add  a3, a3, t0
.endm

/* The 4v form for a fused ReLU (the floor 0: amin is the output offset): a negative sum stores
   amin, one at or above 0 has the sign term +1 (in \koff with offset << (r+1) + 2^r) and a result
   of at least amin, so only the upper bound is tested: `mv, bltz, slli, mulh, add, sra, blt, sb`,
   12 cycles a sum at or above 0 against the general form's 16, a negative one 5. \v the result
   register, \m the multiplier, \r r + 1; an out-of-range result through CLAMP_FIXUP_HI id */
.macro REQ_RELU4V acc, v, amin, m, koff, r, amax, off, base, id
    RQ_BEGIN
    mv   \v, \amin
    bltz \acc, .Lst\id
    slli \v, \acc, 2
    mulh \v, \v, \m
    add  \v, \v, \koff
    sra  \v, \v, \r
    blt  \amax, \v, .Lhi\id
.Lst\id:
    sb   \v, \off(\base)
    RQ_END
.endm

/* REQ_K3's ReLU form (t5 holds the sign term +1, added at entry) */
.macro REQ_K3R acc, base, id
    REQ_RELU4V \acc, t2, ra, t4, t5, t6, s0, 0, \base, \id
.endm

.macro CLAMP_FIXUP_HI id, v, hi
    RQ_BEGIN
.Lhi\id:
    mv   \v, \hi
    j    .Lst\id
    RQ_END
.endm

/* REQ_K3R in the dyadic form (DwRowArgs::dyadic, etmcu_rv32_dw_row_k3_dy; cmsis_math.h
   requantize_offset_dyadic with the fused ReLU's clamp V, dyadic_relu_bound): a negative sum
   stores amin (ra), one above V (s0) amax (t6, in its fixup after the return), another
   (v * m + t5) >> 21, t4 = m, t5 = offset * 2^21 + 3 * 2^19: 7 cycles a sum at or above 0 against
   REQ_K3R's 12 (one mul against slli and mulh's five) */
.macro REQ_K3D acc, base, id
    RQ_BEGIN
    mv   t2, ra
    bltz \acc, .Lst\id
    blt  s0, \acc, .Lhi\id
    mul  t2, \acc, t4
    add  t2, t2, t5
    srai t2, t2, 21
.Lst\id:
    sb   t2, 0(\base)
    RQ_END
.endm

/* requantize acc in the 4v form of cmsis_math.h (requantize_offset_4v: t4 = m, t5 = offset <<
   (r+1) + 2^r, t6 = r + 1), clamp to [ra, s0], store at 0(base); t2, a5 temporaries. A sum below
   the floor (t0) is amin; a result outside the range takes its fixup after the return
   (CLAMP_FIXUP id), so the common case costs two branches not taken. */
.macro REQ_K3 acc, base, id
    RQ_BEGIN
    mv   t2, ra
    blt  \acc, t0, .Lst\id
    slli t2, \acc, 2
    mulh t2, t2, t4
    srai a5, \acc, 31
    ori  a5, a5, 1
    add  t2, t2, a5
    add  t2, t2, t5
    sra  t2, t2, t6
    blt  t2, ra, .Llo\id
    blt  s0, t2, .Lhi\id
.Lst\id:
    sb   t2, 0(\base)
    RQ_END
.endm

/* the out-of-range results of requantization id (value reg v): the bound lo / hi, then back */
.macro CLAMP_FIXUP id, v, lo, hi
    RQ_BEGIN
.Llo\id:
    mv   \v, \lo
    j    .Lst\id
.Lhi\id:
    mv   \v, \hi
    j    .Lst\id
    RQ_END
.endm

/* one window row r of two neighbouring outputs at stride 2 (they share one tap): five plane bytes
   from t2, weights w0..w2; sums t3 (first) and s11 (second); a5..a7, t0 temporaries. 17
   instructions for 6 multiply-accumulates, where two single outputs took 18 loads and their
   address steps. */
.macro ROW_PAIR_S2 w0, w1, w2
    lb   a5, 0(t2)
    lb   a6, 1(t2)
    lb   a7, 2(t2)
    mul  t0, a5, \w0
    add  t3, t3, t0
    lb   a5, 3(t2)
    mul  t0, a6, \w1
    add  t3, t3, t0
    mul  t0, a7, \w2
    add  t3, t3, t0
    lb   a6, 4(t2)
    mul  t0, a7, \w0
    add  s11, s11, t0
    mul  t0, a5, \w1
    add  s11, s11, t0
    mul  t0, a6, \w2
    add  s11, s11, t0
.endm

/* one window row r of five neighbouring outputs (stride 1: rows of five, etmcu_rv32_dw_quint5):
   ROW_QUAD for the first four, whose last plane bytes (4 and 5, in a6 and a7) are the fifth's
   first two, then its third from byte 6; the fifth sum in tp. 37 instructions for 15
   multiply-accumulates. */
.macro ROW_QUINT w0, w1, w2
    ROW_QUAD \w0, \w1, \w2
    lb   a5, 6(t2)
    mul  t0, a6, \w0
    add  tp, tp, t0
    mul  t0, a7, \w1
    add  tp, tp, t0
    mul  t0, a5, \w2
    add  tp, tp, t0
.endm

/* The two row kernels' shared pieces (etmcu_rv32_dw_row_k3 and etmcu_rv32_dw_row_k3_dy differ
   in their requantization constants and macros only). K3_ENTER: the frame (tp saved for the
   quint's fifth sum), the nine weights sign-extended into s2..s10, a1 the window, t1 the line
   stride, a2 the outputs, a4 their step, s1 full. */
.macro K3_ENTER
    addi sp, sp, -80
    sw   tp, 64(sp)
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
.endm
.macro K3_LEAVE
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
    lw   tp, 64(sp)
    addi sp, sp, 80
    ret
.endm
/* four neighbouring outputs (stride 1, a fused ReLU): their sums from full (reloaded: s1 is the
   third sum here; a3 the fourth, so the outputs left go to 4(sp)), three ROW_QUADs, each sum
   requantized by \req (ids \p a .. d) and stored y_step apart */
.macro K3_QUAD_PASS req, p
    lw   s1, A_FULL(a0)
    mv   t2, a1
    sw   a3, 4(sp)
    mv   t3, s1
    mv   s11, s1
    mv   a3, s1
    ROW_QUAD s2, s3, s4
    add  t2, t2, t1
    ROW_QUAD s5, s6, s7
    add  t2, t2, t1
    ROW_QUAD s8, s9, s10
    \req t3, a2, \p\()a
    add  a2, a2, a4
    \req s11, a2, \p\()b
    add  a2, a2, a4
    \req s1, a2, \p\()c
    add  a2, a2, a4
    \req a3, a2, \p\()d
    add  a2, a2, a4
.endm
/* two neighbouring outputs (stride 1): their sums t3, s11 from full (s1), three ROW_PAIRs */
.macro K3_PAIR_SUMS
    mv   t3, s1
    mv   s11, s1
    mv   t2, a1
    ROW_PAIR s2, s3, s4
    add  t2, t2, t1
    ROW_PAIR s5, s6, s7
    add  t2, t2, t1
    ROW_PAIR s8, s9, s10
.endm
/* one output's sum in a5 (nine loads, each two or more instructions ahead of its use); floor 1:
   t0 also gets the floor (A_FLOOR), in a slot where it costs no stall */
.macro K3_SINGLE_SUM floor
    add  t0, a1, t1               /* the window's second and third rows */
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
    .if \floor
    lw   t0, A_FLOOR(a0)
    .endif
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
.endm

    .text
    .globl etmcu_rv32_dw_row_k3
    .type etmcu_rv32_dw_row_k3, @function
    .p2align 2
etmcu_rv32_dw_row_k3:
    K3_ENTER
    lw   t4, A_MULT(a0)
    lw   t5, A_KOFF4(a0)          /* offset << (r+1), plus 2^r added below */
    lw   t6, A_RIGHT4(a0)
    lw   ra, A_AMIN(a0)
    lw   s0, A_AMAX(a0)
    li   t0, 1
    addi t2, t6, -1
    sll  t0, t0, t2
    add  t5, t5, t0               /* offset << (r+1) + 2^r */
    lw   t0, A_FLOOR(a0)
    seqz t0, t0
    add  t5, t5, t0               /* (a fused ReLU's sums that reach the arithmetic: + 1) */
    lw   t0, A_OUTROWS(a0)
    sw   t0, 0(sp)                /* output rows left */
    lw   t0, A_ROWSFN(a0)        /* rows of five outputs, or of stride 2: the subroutine */
    bnez t0, .Lk3_quints          /* DwRowArgs names */
    /* every row's passes, decided once a call (8(sp)): 0 quads (stride 1, a fused ReLU), 1 pairs
       (stride 1), -1 single outputs (stride 2 and more) */
    lw   t0, A_XSTEP(a0)
    li   t2, -1
    addi t0, t0, -1
    bnez t0, 3f
    lw   t2, A_FLOOR(a0)
    snez t2, t2
3:  sw   t2, 8(sp)
1:  lw   t0, 8(sp)
    lw   a3, A_OUTPUTS(a0)        /* outputs left in this row */
    bltz t0, 2f                   /* (stride 2 and more: one output at a time) */
    bnez t0, 7f                   /* (stride 1 without a fused ReLU: pairs) */
9:  li   t2, 4                    /* stride 1, a fused ReLU: four neighbouring outputs a pass */
    blt  a3, t2, 6f
    K3_QUAD_PASS REQ_K3R, k3q
    lw   a3, 4(sp)
    addi a1, a1, 4
    addi a3, a3, -4
    bnez a3, 9b
    j    8f
6:  lw   s1, A_FULL(a0)           /* (the quads' sums took s1) */
7:  li   t2, 2                    /* then two neighbouring outputs per pass */
    blt  a3, t2, 2f
    K3_PAIR_SUMS
    lw   t0, A_FLOOR(a0)
    bnez t0, .Lk3_pair_general    /* (a fused ReLU's floor is 0: its form falls through) */
    REQ_K3R t3, a2, k3ra
    add  a2, a2, a4
    REQ_K3R s11, a2, k3rb
.Lk3_pair_join:
    add  a2, a2, a4
    addi a1, a1, 2
    addi a3, a3, -2
    bnez a3, 7b
    j    8f
2:  K3_SINGLE_SUM 1                /* (and t0 the floor, loaded well before its test) */
    /* requantize a5 (4v form), clamp, store (a sum below the floor is amin) */
    bnez t0, .Lk3_single_general
    REQ_K3R a5, a2, k3rc
.Lk3_single_join:
    lw   t0, A_XSTEP(a0)
    add  a2, a2, a4
    add  a1, a1, t0
    addi a3, a3, -1
    bnez a3, 2b
8:  lw   t0, A_ROWJUMP(a0)
    add  a1, a1, t0
    lw   t0, 0(sp)
    addi t0, t0, -1
    sw   t0, 0(sp)
    bnez t0, 1b
.Lk3_done:
    K3_LEAVE
.Lk3_quints:                      /* every row in etmcu_rv32_dw_quint5 or _pairs_s2 (t0) */
    jalr ra, t0, 0
    j    .Lk3_done
.Lk3_pair_general:                /* the pair's sums in the general form */
    REQ_K3 t3, a2, k3a
    add  a2, a2, a4
    REQ_K3 s11, a2, k3b
    j    .Lk3_pair_join
    RQ_BEGIN
.Lk3_single_general:
    mv   t2, ra
    blt  a5, t0, .Lstk3c
    slli t2, a5, 2
    mulh t2, t2, t4
    srai t3, a5, 31
    ori  t3, t3, 1
    add  t2, t2, t3
    add  t2, t2, t5
    sra  t2, t2, t6
    blt  t2, ra, .Llok3c
    blt  s0, t2, .Lhik3c
.Lstk3c:
    sb   t2, 0(a2)
    j    .Lk3_single_join
    RQ_END
    .irp id, k3a, k3b, k3c
    CLAMP_FIXUP \id, t2, ra, s0
    .endr
    .irp id, k3ra, k3rb, k3rc, k3qa, k3qb, k3qc, k3qd
    CLAMP_FIXUP_HI \id, t2, s0
    .endr
    .size etmcu_rv32_dw_row_k3, . - etmcu_rv32_dw_row_k3

/* etmcu_rv32_dw_row_k3_dy: etmcu_rv32_dw_row_k3 for a layer whose channels are all dyadic with a
   fused ReLU (DwRowArgs::dyadic, set by isa/rv32/depthwise.h; mult holds m = multiplier >> 11,
   offset_high offset * 2^21 + 3 * 2^19, right the channel's V), its sums requantized by
   REQ_K3D: the same passes (quads, pairs and single outputs at stride 1, single outputs at
   stride 2 and more, or every row in the _dy subroutines DwRowArgs::rows_fn names), registers
   and frame, with s0 = V and t6 = amax. In a section of its own, behind kPathDyadic: a program
   without such layers links none of it. */
    .section .text.etmcu_rv32_dw_row_k3_dy, "ax", @progbits
    .globl etmcu_rv32_dw_row_k3_dy
    .type etmcu_rv32_dw_row_k3_dy, @function
    .p2align 2
etmcu_rv32_dw_row_k3_dy:
    K3_ENTER
    lw   t4, A_MULT(a0)           /* m */
    lw   t5, A_KOFF(a0)           /* offset * 2^21 + 3 * 2^19 */
    lw   ra, A_AMIN(a0)
    lw   s0, A_RIGHT(a0)          /* V (the dyadic form's) */
    lw   t6, A_AMAX(a0)
    lw   t0, A_OUTROWS(a0)
    sw   t0, 0(sp)                /* output rows left */
    lw   t0, A_ROWSFN(a0)
    bnez t0, .Ld_quints
    lw   t0, A_XSTEP(a0)
    addi t0, t0, -1
    sw   t0, 8(sp)                /* 0: stride 1 (quads, pairs), else single outputs */
1:  lw   t0, 8(sp)
    lw   a3, A_OUTPUTS(a0)        /* outputs left in this row */
    bnez t0, 2f
9:  li   t2, 4
    blt  a3, t2, 6f
    K3_QUAD_PASS REQ_K3D, dq
    lw   a3, 4(sp)
    addi a1, a1, 4
    addi a3, a3, -4
    bnez a3, 9b
    j    8f
6:  lw   s1, A_FULL(a0)
7:  li   t2, 2
    blt  a3, t2, 2f
    K3_PAIR_SUMS
    REQ_K3D t3, a2, dra
    add  a2, a2, a4
    REQ_K3D s11, a2, drb
    add  a2, a2, a4
    addi a1, a1, 2
    addi a3, a3, -2
    bnez a3, 7b
    j    8f
2:  K3_SINGLE_SUM 0
    REQ_K3D a5, a2, drc
    lw   t0, A_XSTEP(a0)
    add  a2, a2, a4
    add  a1, a1, t0
    addi a3, a3, -1
    bnez a3, 2b
8:  lw   t0, A_ROWJUMP(a0)
    add  a1, a1, t0
    lw   t0, 0(sp)
    addi t0, t0, -1
    sw   t0, 0(sp)
    bnez t0, 1b
.Ld_done:
    K3_LEAVE
.Ld_quints:                       /* every row in etmcu_rv32_dw_quint5_dy or _pairs_s2_dy */
    jalr ra, t0, 0
    j    .Ld_done
    .irp id, dqa, dqb, dqc, dqd, dra, drb, drc
    CLAMP_FIXUP_HI \id, t2, t6
    .endr
    .size etmcu_rv32_dw_row_k3_dy, . - etmcu_rv32_dw_row_k3_dy

/* etmcu_rv32_dw_quint5: every row of an etmcu_rv32_dw_row_k3 call whose rows are five outputs at
   stride 1 with a fused ReLU (DS-CNN's and KWS's 25 x 5 layers), five outputs a pass: seven plane
   bytes a window row for fifteen mul + add, where a quad and a single output took fifteen loads
   a row and the single its own pass. The row kernel's registers (weights s2..s10, requantization
   t4..t6, amin and amax, a1 the window, a2 the outputs) and frame (the rows left at 0(sp); sp
   unchanged, the return address at 68(sp), amin reloaded into ra for REQ_K3R); clobbers every
   other register but tp, its fifth sum, which the row kernel saved. In a section of its own:
   DwRowArgs::rows_fn names it (isa/rv32/depthwise.h, behind kPathDwK3Stride2), so only programs
   with such rows link it. */
.macro QUINT5_FN name, req, hi, sfx
    .section .text.\name, "ax", @progbits
    .globl \name
    .type \name, @function
    .p2align 2
\name:
    sw   ra, 68(sp)
    lw   ra, A_AMIN(a0)
1:  lw   s1, A_FULL(a0)
    mv   t2, a1
    mv   t3, s1
    mv   s11, s1
    mv   a3, s1
    mv   tp, s1
    ROW_QUINT s2, s3, s4
    add  t2, t2, t1
    ROW_QUINT s5, s6, s7
    add  t2, t2, t1
    ROW_QUINT s8, s9, s10
    \req t3, a2, k3va\sfx
    add  a2, a2, a4
    \req s11, a2, k3vb\sfx
    add  a2, a2, a4
    \req s1, a2, k3vc\sfx
    add  a2, a2, a4
    \req a3, a2, k3vd\sfx
    add  a2, a2, a4
    \req tp, a2, k3ve\sfx
    lw   t0, A_ROWJUMP(a0)
    lw   t2, 0(sp)                /* (rows left: each load a cycle ahead of its use) */
    add  a2, a2, a4
    addi a1, a1, 5
    add  a1, a1, t0
    addi t2, t2, -1
    sw   t2, 0(sp)
    bnez t2, 1b
    lw   ra, 68(sp)
    ret
    .irp id, k3va\sfx, k3vb\sfx, k3vc\sfx, k3vd\sfx, k3ve\sfx
    CLAMP_FIXUP_HI \id, t2, \hi
    .endr
    .size \name, . - \name
.endm
    QUINT5_FN etmcu_rv32_dw_quint5, REQ_K3R, s0, _r
    /* the dyadic form's (etmcu_rv32_dw_row_k3_dy's registers: amax in t6) */
    QUINT5_FN etmcu_rv32_dw_quint5_dy, REQ_K3D, t6, _d

/* etmcu_rv32_dw_pairs_s2: every row of an etmcu_rv32_dw_row_k3 call at stride 2 with a fused ReLU
   and an even number of outputs a row (MobileNetV1's stride-2 layers but its last), two
   neighbouring outputs a pass (ROW_PAIR_S2: five plane bytes a window row for six mul + add).
   Registers and frame as etmcu_rv32_dw_quint5's; in a section of its own, DwRowArgs::rows_fn naming it
   (isa/rv32/depthwise.h, behind kPathDwLanesTail, which names it on this ISA). */
.macro PAIRS_S2_FN name, req, hi, sfx
    .section .text.\name, "ax", @progbits
    .globl \name
    .type \name, @function
    .p2align 2
\name:
    sw   ra, 68(sp)
    lw   ra, A_AMIN(a0)
1:  lw   a3, A_OUTPUTS(a0)        /* outputs left in this row (even) */
2:  mv   t3, s1
    mv   s11, s1
    mv   t2, a1
    ROW_PAIR_S2 s2, s3, s4
    add  t2, t2, t1
    ROW_PAIR_S2 s5, s6, s7
    add  t2, t2, t1
    ROW_PAIR_S2 s8, s9, s10
    \req t3, a2, k3sa\sfx
    add  a2, a2, a4
    \req s11, a2, k3sb\sfx
    add  a2, a2, a4
    addi a3, a3, -2
    addi a1, a1, 4
    bnez a3, 2b
    lw   t0, A_ROWJUMP(a0)
    lw   t2, 0(sp)                /* (rows left: each load a cycle ahead of its use) */
    add  a1, a1, t0
    addi t2, t2, -1
    sw   t2, 0(sp)
    bnez t2, 1b
    lw   ra, 68(sp)
    ret
    .irp id, k3sa\sfx, k3sb\sfx
    CLAMP_FIXUP_HI \id, t2, \hi
    .endr
    .size \name, . - \name
.endm
    PAIRS_S2_FN etmcu_rv32_dw_pairs_s2, REQ_K3R, s0, _r
    PAIRS_S2_FN etmcu_rv32_dw_pairs_s2_dy, REQ_K3D, t6, _d

    .text

/* etmcu_rv32_dw_row4: four output channels that read the same plane (a channel multiplier that is
   a multiple of 4: KWS's 10x4 first layer, 1 -> 64 channels), DwRow4Args of
   util/depthwise_planes.h (the contract of dw_row4_c). Two output pixels per pass (the next in
   row-major order, across a row's end; an odd last one as a pair with itself): per window row,
   eight plane bytes and the sixteen weight bytes feed 32 mul + add (88 instructions, every load
   ahead of its use), then the eight sums are requantized in the 4v form as above. */
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
/* frame: the four channels' offset << (r+1) + 2^r, the pair's first window and outputs, outputs
   left in its row, pixels left */
#define F_ROUND 0
#define F_WIN 16
#define F_Y 20
#define F_OLEFT 24
#define F_LEFT 28

/* one window row of both pixels: eight plane bytes, then each of the 16 weight bytes (the
   next one loaded ahead of its use) times both pixels' bytes */
.macro ROW4_PAIR
    lb   t1, 0(t6)
    lb   a1, 0(t4)
    lb   a2, 1(t4)
    lb   a3, 2(t4)
    lb   a4, 3(t4)
    lb   a5, 0(t5)
    lb   a6, 1(t5)
    lb   a7, 2(t5)
    lb   t0, 3(t5)
    lb   t3, 1(t6)
    mul  t2, a1, t1
    add  s0, s0, t2
    mul  t2, a5, t1
    add  s4, s4, t2
    lb   t1, 2(t6)
    mul  t2, a2, t3
    add  s0, s0, t2
    mul  t2, a6, t3
    add  s4, s4, t2
    lb   t3, 3(t6)
    mul  t2, a3, t1
    add  s0, s0, t2
    mul  t2, a7, t1
    add  s4, s4, t2
    lb   t1, 4(t6)
    mul  t2, a4, t3
    add  s0, s0, t2
    mul  t2, t0, t3
    add  s4, s4, t2
    lb   t3, 5(t6)
    mul  t2, a1, t1
    add  s1, s1, t2
    mul  t2, a5, t1
    add  s5, s5, t2
    lb   t1, 6(t6)
    mul  t2, a2, t3
    add  s1, s1, t2
    mul  t2, a6, t3
    add  s5, s5, t2
    lb   t3, 7(t6)
    mul  t2, a3, t1
    add  s1, s1, t2
    mul  t2, a7, t1
    add  s5, s5, t2
    lb   t1, 8(t6)
    mul  t2, a4, t3
    add  s1, s1, t2
    mul  t2, t0, t3
    add  s5, s5, t2
    lb   t3, 9(t6)
    mul  t2, a1, t1
    add  s2, s2, t2
    mul  t2, a5, t1
    add  s6, s6, t2
    lb   t1, 10(t6)
    mul  t2, a2, t3
    add  s2, s2, t2
    mul  t2, a6, t3
    add  s6, s6, t2
    lb   t3, 11(t6)
    mul  t2, a3, t1
    add  s2, s2, t2
    mul  t2, a7, t1
    add  s6, s6, t2
    lb   t1, 12(t6)
    mul  t2, a4, t3
    add  s2, s2, t2
    mul  t2, t0, t3
    add  s6, s6, t2
    lb   t3, 13(t6)
    mul  t2, a1, t1
    add  s3, s3, t2
    mul  t2, a5, t1
    add  s7, s7, t2
    lb   t1, 14(t6)
    mul  t2, a2, t3
    add  s3, s3, t2
    mul  t2, a6, t3
    add  s7, s7, t2
    lb   t3, 15(t6)
    mul  t2, a3, t1
    add  s3, s3, t2
    mul  t2, a7, t1
    add  s7, s7, t2
    mul  t2, a4, t3
    add  s3, s3, t2
    mul  t2, t0, t3
    add  s7, s7, t2
.endm

/* requantize acc (4v form) with a1 = m, a2 = offset << (r+1) + 2^r, a3 = r + 1; clamp to
   [a5, a6]; store at off(base); a4, a7 temporaries; out-of-range results take CLAMP_FIXUP id */
.macro REQ4 acc, off, base, id
    RQ_BEGIN
    mv   a4, a5                   /* a sum below the floor (t0) is amin */
    blt  \acc, t0, .Lst\id
    slli a4, \acc, 2
    mulh a4, a4, a1
    srai a7, \acc, 31
    ori  a7, a7, 1
    add  a4, a4, a7
    add  a4, a4, a2
    sra  a4, a4, a3
    blt  a4, a5, .Llo\id
    blt  a6, a4, .Lhi\id
.Lst\id:
    sb   a4, \off(\base)
    RQ_END
.endm

/* REQ4's ReLU form (the sign term +1 in a2: the call's constants take it, F_ROUND) */
.macro REQ4R acc, off, base, id
    REQ_RELU4V \acc, a4, a5, a1, a2, a3, a6, \off, \base, \id
.endm

/* channel k of both pixels (outputs at ra and t5; \req REQ4 or REQ4R) */
.macro REQ4_CHANNEL k, acc0, acc1, req=REQ4
    RQ_BEGIN
    lw   a1, (B_MULT + 4 * \k)(a0)
    lw   a2, (F_ROUND + 4 * \k)(sp)
    lw   a3, (B_RIGHT4 + 4 * \k)(a0)
    RQ_END
    .ifc \req, REQ4
    REQ4 \acc0, \k, ra, r4\k\()a
    REQ4 \acc1, \k, t5, r4\k\()b
    .else
    REQ4R \acc0, \k, ra, r4r\k\()a
    REQ4R \acc1, \k, t5, r4r\k\()b
    .endif
.endm

/* the window after t4, row-major (t0: outputs left in t4's row, updated) */
.macro NEXT_WINDOW
    add  t4, t4, s10
    addi t0, t0, -1
    bnez t0, 3f
    add  t4, t4, s11
    lw   t0, B_OUTPUTS(a0)
3:
.endm

    /* (a section of its own: a program without multiplier-4 layers drops it, kPathDwLanesMult4) */
    .section .text.etmcu_rv32_dw_row4, "ax", @progbits
    .globl etmcu_rv32_dw_row4
    .type etmcu_rv32_dw_row4, @function
    .p2align 2
etmcu_rv32_dw_row4:
    addi sp, sp, -96
    sw   ra, 92(sp)
    sw   s0, 88(sp)
    sw   s1, 84(sp)
    sw   s2, 80(sp)
    sw   s3, 76(sp)
    sw   s4, 72(sp)
    sw   s5, 68(sp)
    sw   s6, 64(sp)
    sw   s7, 60(sp)
    sw   s8, 56(sp)
    sw   s9, 52(sp)
    sw   s10, 48(sp)
    sw   s11, 44(sp)
    li   t0, 1                    /* offset << (r+1) + 2^r per channel, and with a fused ReLU */
    lw   t1, B_FLOOR(a0)          /* (floor 0) REQ4R's sign term +1 */
    seqz t1, t1
    .irp k, 0, 1, 2, 3
    lw   a1, (B_RIGHT4 + 4 * \k)(a0)
    lw   a2, (B_KOFF4 + 4 * \k)(a0)
    addi a1, a1, -1
    sll  a1, t0, a1
    add  a1, a1, a2
    add  a1, a1, t1
    sw   a1, (F_ROUND + 4 * \k)(sp)
    .endr
    lw   t0, B_WINDOW(a0)
    sw   t0, F_WIN(sp)
    lw   t0, B_Y(a0)
    sw   t0, F_Y(sp)
    lw   t0, B_OUTPUTS(a0)
    sw   t0, F_OLEFT(sp)
    lw   t1, B_OUTROWS(a0)
    mul  t0, t0, t1
    sw   t0, F_LEFT(sp)
    lw   s9, B_LSTRIDE(a0)
    lw   s10, B_XSTEP(a0)
    lw   s11, B_ROWJUMP(a0)
.Lpair4:
    lw   t4, F_WIN(sp)            /* the pair's windows: t4, and the next one in t5 */
    lw   t0, F_OLEFT(sp)
    NEXT_WINDOW
    lw   t1, F_LEFT(sp)
    li   t2, 1
    mv   t5, t4
    lw   t4, F_WIN(sp)
    bne  t1, t2, 4f
    mv   t5, t4                   /* the last, odd pixel: a pair with itself */
4:  lw   s0, (B_FULL + 0)(a0)
    lw   s1, (B_FULL + 4)(a0)
    lw   s2, (B_FULL + 8)(a0)
    lw   s3, (B_FULL + 12)(a0)
    mv   s4, s0
    mv   s5, s1
    mv   s6, s2
    mv   s7, s3
    addi t6, a0, B_W
    lw   s8, B_ROWS(a0)
5:  ROW4_PAIR
    add  t4, t4, s9
    add  t5, t5, s9
    addi t6, t6, 16
    addi s8, s8, -1
    bnez s8, 5b
    lw   ra, F_Y(sp)              /* outputs: the first pixel's at F_Y, the second's y_step on */
    lw   t0, B_YSTEP(a0)
    lw   t1, F_LEFT(sp)
    add  t5, ra, t0
    li   t2, 1
    bne  t1, t2, 6f
    mv   t5, ra
6:  RQ_BEGIN
    lw   a5, B_AMIN(a0)
    lw   a6, B_AMAX(a0)
    lw   t0, B_FLOOR(a0)
    bnez t0, .Lreq4_general       /* (a fused ReLU's floor is 0: its form falls through) */
    RQ_END
    REQ4_CHANNEL 0, s0, s4, REQ4R
    REQ4_CHANNEL 1, s1, s5, REQ4R
    REQ4_CHANNEL 2, s2, s6, REQ4R
    REQ4_CHANNEL 3, s3, s7, REQ4R
.Lnext4:
    lw   t4, F_WIN(sp)            /* the next pair: two windows and two outputs on */
    lw   t0, F_OLEFT(sp)
    NEXT_WINDOW
    NEXT_WINDOW
    sw   t4, F_WIN(sp)
    sw   t0, F_OLEFT(sp)
    lw   t1, B_YSTEP(a0)
    lw   t2, F_Y(sp)
    add  t2, t2, t1
    add  t2, t2, t1
    sw   t2, F_Y(sp)
    lw   t1, F_LEFT(sp)
    addi t1, t1, -2
    sw   t1, F_LEFT(sp)
    bgtz t1, .Lpair4
    lw   ra, 92(sp)
    lw   s0, 88(sp)
    lw   s1, 84(sp)
    lw   s2, 80(sp)
    lw   s3, 76(sp)
    lw   s4, 72(sp)
    lw   s5, 68(sp)
    lw   s6, 64(sp)
    lw   s7, 60(sp)
    lw   s8, 56(sp)
    lw   s9, 52(sp)
    lw   s10, 48(sp)
    lw   s11, 44(sp)
    addi sp, sp, 96
    ret
.Lreq4_general:                   /* another floor: the general form */
    REQ4_CHANNEL 0, s0, s4
    REQ4_CHANNEL 1, s1, s5
    REQ4_CHANNEL 2, s2, s6
    REQ4_CHANNEL 3, s3, s7
    RQ_BEGIN
    j    .Lnext4
    RQ_END
    .irp id, r40a, r40b, r41a, r41b, r42a, r42b, r43a, r43b
    CLAMP_FIXUP \id, a4, a5, a6
    .endr
    .irp id, r4r0a, r4r0b, r4r1a, r4r1b, r4r2a, r4r2b, r4r3a, r4r3b
    CLAMP_FIXUP_HI \id, a4, a6
    .endr
    .size etmcu_rv32_dw_row4, . - etmcu_rv32_dw_row4
    .text
