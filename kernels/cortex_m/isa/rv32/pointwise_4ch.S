/* etmcu_rv32_pointwise_4ch: one block of four output channels of a 1x1 int8 convolution on a plain
   RV32IMC core (the CV32E40P without its PULP extensions), dot products and CMSIS-NN
   requantization together. The contract and argument block are kernels/cortex_m/util/pointwise.h
   (the same as the Xpulp kernel's); isa/rv32/pointwise.h calls it.

   Three pixels by four channels per pass while three or more are left (receptive fields of `rows`
   runs, as the Xpulp kernel's): for each byte of a run, three input loads and four weight loads
   feed twelve mul + add (31 instructions for 12 multiply-accumulates, sixteen bytes per loop
   iteration with immediate offsets, so the seven pointer steps and the branch cost 10 cycles
   per 192 multiply-accumulates; other run lengths enter the step part-way, below; every load
   at least one instruction ahead of its use; the twelve sums in s0..s11). The last one or two
   pixels go as a pair: two input loads and four weight loads for eight mul + add (22 for 8).
   Each sum is then requantized in the 4v form of cmsis_math.h (requantize_offset_4v,
   |v| < 2^29):
     H = hi(4v * m);  y = (H + (v < 0 ? -1 : 1) + (offset << (r+1)) + 2^r) >> (r+1)
   and clamped to [amin, amax], the out-of-range results through fixups placed after the return
   (two branches not taken in the common case). A block with a fused ReLU (its floor 0) takes a
   copy of that code without the sign term and the lower bound (REQ3R: 12 cycles a sum at or
   above 0 against 16); the general copy sits after the return. Blocks whose channels are dyadic
   and whose set-up is once per layer (the convolution's interior: util/pointwise.h
   set_dyadic_block gives them a floor of 1 or above INT32_MIN) call etmcu_rv32_requant3_relu_dy
   (two flows: 6 cycles a sum above 0, 2 one of 0 or less, 3 more where the sign changes) or
   etmcu_rv32_requant3_clamp_dy (the same two flows, 6 cycles a sum either way) instead. An odd
   last pixel is computed as a pair with itself, and the pair's outputs go through the triple's
   requantization as three pixels (the second one twice): four more requantizations once per
   call instead of 500 B of code.

   With a PointwiseRows (a1; null: one row) the pixels are out_rows rows of `pixels`, row r's
   first receptive field x + r * x_row_jump and its outputs y + r * y_row_jump, each row's passes
   as above: the convolution's interior in one call a block instead of one a block and row (a
   call left out saved about 80 cycles: ResNet-8's layer 7, 120 calls fewer, 9,637 cycles).

   The triple loop has one copy of its 16-byte step for every run length (run_bytes, any length:
   the loads are bytes, so a 3-channel layer's 9-byte window rows need no widening to whole
   words): a run whose length is not a multiple of 16 enters the step D = (-length) mod 16 bytes
   in (at BYTE3 D, by branches: a register jump would read as an indirect call to the firmware's
   stack bound; the entries that are not whole words behind one more test), with its pointers D
   bytes before the run, so that the step's immediate offsets land on the run's bytes (the
   pointers stay D bytes back for the whole pass: the row skips are less D). A separate 4-byte
   loop for the tail was 380 B more. The pairs' 4-byte step is entered the same way, at
   D2 = (-length) mod 4. Runs of 9 bytes over several kernel rows (3x3 windows on 3 channels)
   hand a pass's rows to etmcu_rv32_pointwise_runs9 (below) where the block names it. */
#include "requant_range.inc"

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
#define A_OFFH 68
#define A_RIGHT 84
#define A_ROUND 100
#define A_ROUND4 152
#define A_RIGHT4 168
#define A_ROWS 116
#define A_ROWSKIP 120
#define A_WSTRIDE 124
#define A_FLOOR 128
#define A_WROWSKIP 132
#define A_REQFN 192
#define A_RUN 204

/* frame: the rows, pixels left, the pass's first outputs, the pass's first row (less D, below);
   saved registers; the triple loop's run entry and skips (D = the bytes of the run's first
   16-byte step that lie before it) */
#define F_RP 0  /* util/pointwise.h PointwiseRows, or null: one row */
#define F_LEFT 4
#define F_Y 8
#define F_X 12
#define F_ROWD 68
#define F_D 72
#define F_RSKIP 76
#define F_WRSKIP 80
#define F_W 84
#define F_D2 88
#define F_DSEL 92
#define F_SIZE 96
#define A_ROWSFN 188
/* F_DSEL's value for runs of 9 bytes that etmcu_rv32_pointwise_runs9 takes (no run has D = 16) */
#define DSEL_RUNS9 -16

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

/* the out-of-range results of REQ3 instance id: the bound (lo / hi), then back */
.macro CLAMP_FIXUP id, lo, hi
.Llo\id:
    mv   t0, \lo
    j    .Lst\id
.Lhi\id:
    mv   t0, \hi
    j    .Lst\id
.endm

/* byte i of three pixels' runs (a1, a2, a3) and of the four weight rows (t2, then w1..w3 at
   o1..o3 bytes past the row: t3..t5, or t2 and the channels' stride): 7 loads and 12 mul + add,
   each loaded value used two or more instructions later; a7/t0 the weights, t1 the product */
.macro BYTE3 i, w1=t3, o1=0, w2=t4, o2=0, w3=t5, o3=0
    lb   a4, \i(a1)
    lb   a5, \i(a2)
    lb   a6, \i(a3)
    lb   a7, \i(t2)
    lb   t0, (\o1 + \i)(\w1)
    mul  t1, a4, a7
    add  s0, s0, t1
    mul  t1, a5, a7
    add  s4, s4, t1
    mul  t1, a6, a7
    add  s8, s8, t1
    lb   a7, (\o2 + \i)(\w2)
    mul  t1, a4, t0
    add  s1, s1, t1
    mul  t1, a5, t0
    add  s5, s5, t1
    mul  t1, a6, t0
    add  s9, s9, t1
    lb   t0, (\o3 + \i)(\w3)
    mul  t1, a4, a7
    add  s2, s2, t1
    mul  t1, a5, a7
    add  s6, s6, t1
    mul  t1, a6, a7
    add  s10, s10, t1
    mul  t1, a4, t0
    add  s3, s3, t1
    mul  t1, a5, t0
    add  s7, s7, t1
    mul  t1, a6, t0
    add  s11, s11, t1
.endm

/* requantize acc into byte k at ybase in the 4v form (cmsis_math.h's requantize_offset_4v):
   a4 = m, a5 = offset << (r+1) + 2^r, a6 = r + 1, t5/t6 the activation range; t0, t1
   temporaries; a sum below t2 (neg_floor) is amin without the arithmetic; out-of-range results
   take their fixup (CLAMP_FIXUP id) */
.macro REQ3 k, acc, ybase, id
    mv   t0, t5
    blt  \acc, t2, .Lst\id
    slli t0, \acc, 2
    mulh t0, t0, a4
    srai t1, \acc, 31
    ori  t1, t1, 1
    add  t0, t0, t1
    add  t0, t0, a5
    sra  t0, t0, a6
    blt  t0, t5, .Llo\id
    blt  t6, t0, .Lhi\id
.Lst\id:
    sb   t0, \k(\ybase)
.endm

/* REQ3 for a block with a fused ReLU (its floor 0: amin is the output offset). A negative sum
   stores amin; a sum at or above 0 has the sign term +1 (folded into a5 by REQ3R_CHANNEL) and a
   result of at least amin, so only the upper bound is tested: `mv, bltz, slli, mulh, add, sra,
   blt, sb`, 12 cycles (mulh 5) against REQ3's 16, a negative sum 5 as there. */
.macro REQ3R k, acc, ybase, id
    mv   t0, t5
    bltz \acc, .Lst\id
    slli t0, \acc, 2
    mulh t0, t0, a4
    add  t0, t0, a5
    sra  t0, t0, a6
    blt  t6, t0, .Lhi\id
.Lst\id:
    sb   t0, \k(\ybase)
.endm

.macro CLAMP_FIXUP_HI id, hi
.Lhi\id:
    mv   t0, \hi
    j    .Lst\id
.endm

.macro REQ3R_CHANNEL k, acc0, acc1, acc2
    lw   a4, (A_MULT + 4 * \k)(a0)
    lw   a5, (A_ROUND4 + 4 * \k)(a0)
    lw   a6, (A_RIGHT4 + 4 * \k)(a0)
    addi a5, a5, 1
    REQ3R \k, \acc0, a1, r\k\()a
    REQ3R \k, \acc1, a2, r\k\()b
    REQ3R \k, \acc2, a3, r\k\()c
.endm

/* channel k of the three pixels (sums acc0..acc2, outputs at a1, a2, a3) */
.macro REQ3_CHANNEL k, acc0, acc1, acc2
    lw   a4, (A_MULT + 4 * \k)(a0)
    lw   a5, (A_ROUND4 + 4 * \k)(a0)
    lw   a6, (A_RIGHT4 + 4 * \k)(a0)
    REQ3 \k, \acc0, a1, t\k\()a
    REQ3 \k, \acc1, a2, t\k\()b
    REQ3 \k, \acc2, a3, t\k\()c
.endm

    .text
    .globl etmcu_rv32_pointwise_4ch
    .type etmcu_rv32_pointwise_4ch, @function
    .p2align 2
etmcu_rv32_pointwise_4ch:          /* a0 the block, a1 its PointwiseRows or null */
    addi sp, sp, -F_SIZE
    sw   a1, F_RP(sp)
    sw   ra, 64(sp)
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
    lw   t0, A_RUN(a0)            /* the run's bytes (any length >= 1: byte loads) */
    neg  t1, t0
    andi t2, t1, 3
    sw   t2, F_D2(sp)             /* the pairs' D2 = (-row) mod 4 */
    andi t1, t1, 15               /* D = (-row) mod 16 */
    sw   t1, F_D(sp)
    mv   t3, t1                   /* the entry's selector: D, or -D when not whole words */
    beqz t2, 1f
    neg  t3, t1
    addi t2, t0, -9               /* runs of 9 bytes with the rows subroutine: its marker */
    bnez t2, 1f
    lw   t2, A_ROWS(a0)           /* (rows_fn is read only where rows > 1, pointwise.h) */
    addi t2, t2, -2
    bltz t2, 1f
    lw   t2, A_WSTRIDE(a0)        /* (27: the subroutine's offsets; set_rows_kernel checked */
                                  /* it too, but without these 8 bytes the kernel's code moves */
                                  /* and MobileNetV1 plain measured +6,912 cycles) */
    addi t2, t2, -27
    bnez t2, 1f
    lw   t2, A_ROWSFN(a0)
    beqz t2, 1f
    li   t3, DSEL_RUNS9
1:  sw   t3, F_DSEL(sp)
    add  t2, t0, t1
    sw   t2, F_ROWD(sp)           /* a run's bytes from the entry: D + row */
    lw   t2, A_ROWSKIP(a0)
    sub  t2, t2, t1
    sw   t2, F_RSKIP(sp)
    lw   t2, A_WROWSKIP(a0)
    sub  t2, t2, t1
    sw   t2, F_WRSKIP(sp)
    lw   t2, A_W(a0)
    sub  t2, t2, t1
    sw   t2, F_W(sp)
    lw   t0, A_PIXELS(a0)
    sw   t0, F_LEFT(sp)
    lw   t0, A_Y(a0)
    sw   t0, F_Y(sp)
    lw   t0, A_X(a0)
    sub  t0, t0, t1
    sw   t0, F_X(sp)
.Ltriple:                         /* three pixels by four channels while three are left */
    lw   t0, F_LEFT(sp)
    li   t1, 3
    blt  t0, t1, .Lpairs
    lw   t1, A_XSTEP(a0)          /* (loads ordered so that none is used by the next */
    lw   a1, F_X(sp)              /* instruction: a load-use costs a cycle) */
    lw   t2, F_W(sp)              /* the three receptive fields and four weight rows (less D) */
    lw   t6, A_WSTRIDE(a0)
    add  a2, a1, t1
    add  a3, a2, t1
    add  t3, t2, t6
    add  t4, t3, t6
    add  t5, t4, t6
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
    lw   ra, A_ROWS(a0)           /* kernel rows left */
7:  lw   t6, F_ROWD(sp)
    lw   t1, F_DSEL(sp)
    add  t6, a1, t6               /* the end of the run (less D) */
    bnez t1, .Lentry              /* the entry BYTE3 D (D = 0 falls through, not taken) */
    .p2align 2                    /* (the step's entries on words: a taken branch to a 32-bit
                                     instruction at a 2-byte offset costs a fetch cycle) */
8:
    BYTE3 0
.Lenter1:
    BYTE3 1
.Lenter2:
    BYTE3 2
.Lenter3:
    BYTE3 3
.Lenter4:
    BYTE3 4
.Lenter5:
    BYTE3 5
.Lenter6:
    BYTE3 6
.Lenter7:
    BYTE3 7
.Lenter8:
    BYTE3 8
.Lenter9:
    BYTE3 9
.Lenter10:
    BYTE3 10
.Lenter11:
    BYTE3 11
.Lenter12:
    BYTE3 12
.Lenter13:
    BYTE3 13
.Lenter14:
    BYTE3 14
.Lenter15:
    BYTE3 15
    addi a1, a1, 16
    addi a2, a2, 16
    addi a3, a3, 16
    addi t2, t2, 16
    addi t3, t3, 16
    addi t4, t4, 16
    addi t5, t5, 16
    bne  a1, t6, 8b
    addi ra, ra, -1
    beqz ra, .Ltriple_sums        /* (1x1 layers: one row, no skips) */
    lw   t1, F_RSKIP(sp)          /* the next kernel row of the three receptive fields */
    lw   t0, F_WRSKIP(sp)         /* and of the weights (t0 free after the loop) */
    add  a1, a1, t1
    add  a2, a2, t1
    add  a3, a3, t1
    add  t2, t2, t0
    add  t3, t3, t0
    add  t4, t4, t0
    add  t5, t5, t0
    j    7b
.Lentry:                          /* D (t1) in 4, 8, 12, or -D */
    bltz t1, .Lbytes              /* (a run that is not whole words) */
    addi t1, t1, -8
    bltz t1, .Lenter4
    beqz t1, .Lenter8
    j    .Lenter12
.Lbytes_d:                        /* -D (t1), D in 1..15 and not a multiple of 4 */
    neg  t1, t1
    andi t0, t1, 3
    srli t1, t1, 2                /* D / 4: which quarter of the step */
    addi t0, t0, -2               /* D mod 4: 1, 2 or 3 -> < 0, 0, > 0 */
    beqz t1, .Lbytes0
    addi t1, t1, -2
    bltz t1, .Lbytes4
    beqz t1, .Lbytes8
    bltz t0, .Lenter13
    beqz t0, .Lenter14
    j    .Lenter15
.Lbytes0:
    bltz t0, .Lenter1
    beqz t0, .Lenter2
    j    .Lenter3
.Lbytes4:
    bltz t0, .Lenter5
    beqz t0, .Lenter6
    j    .Lenter7
.Lbytes8:
    bltz t0, .Lenter9
    beqz t0, .Lenter10
    j    .Lenter11
.Lbytes:                          /* -D, or the 9-byte rows' marker (falls through) */
    addi t0, t1, -DSEL_RUNS9
    bnez t0, .Lbytes_d
.Lruns9:                          /* every kernel row of the pass in the subroutine (ra: rows) */
    lw   t1, A_ROWSFN(a0)
    mv   t6, ra
    jalr ra, t1, 0
.Ltriple_sums:
    lw   t1, A_YSTEP(a0)
    lw   a1, F_Y(sp)              /* outputs: y_step apart */
    lw   t2, A_FLOOR(a0)
    add  a2, a1, t1
    add  a3, a2, t1
    RQ_BEGIN
.Lrequant3:                       /* (also the last pair's; t2 the floor) */
    lw   t5, A_AMIN(a0)
    lw   t6, A_AMAX(a0)
    bnez t2, .Lrequant3_general   /* (a fused ReLU's floor is 0: its form falls through) */
    REQ3R_CHANNEL 0, s0, s4, s8
    REQ3R_CHANNEL 1, s1, s5, s9
    REQ3R_CHANNEL 2, s2, s6, s10
    REQ3R_CHANNEL 3, s3, s7, s11
    RQ_END
.Lnext3:
    lw   t1, A_YSTEP(a0)          /* the next three pixels */
    lw   t0, F_LEFT(sp)
    add  a1, a3, t1
    sw   a1, F_Y(sp)
    lw   t1, A_XSTEP(a0)
    lw   a1, F_X(sp)
    addi t0, t0, -3
    sw   t0, F_LEFT(sp)
    add  a1, a1, t1
    add  a1, a1, t1
    add  a1, a1, t1
    sw   a1, F_X(sp)
    j    .Ltriple
.Lpairs:                          /* the last one or two pixels (t0 of them) */
    blez t0, .Lrow_end            /* (after a pair's pass through the triple's outputs: < 0) */
    lw   a1, F_X(sp)              /* the pair's two input rows (less D2: F_X + D - D2) */
    lw   t1, F_D(sp)
    add  a1, a1, t1
    lw   t1, F_D2(sp)
    sub  a1, a1, t1
    lw   t1, A_XSTEP(a0)
    add  a2, a1, t1
    li   t1, 1
    bne  t0, t1, 3f
    mv   a2, a1                   /* the last, odd pixel: a pair with itself */
3:  lw   s8, F_D2(sp)             /* s8..s11 (free here): D2, the run's bytes from its entry, */
    lw   s9, A_RUN(a0)            /* and the two row skips less D2 */
    add  s9, s9, s8
    lw   s10, A_ROWSKIP(a0)
    sub  s10, s10, s8
    lw   s11, A_WROWSKIP(a0)
    sub  s11, s11, s8
    lw   t2, A_W(a0)              /* the four weight rows (less D2) */
    sub  t2, t2, s8
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
7:  add  t6, a1, s9               /* the end of this run (less D2) */
    bnez s8, .Lpair_bytes         /* the entry BYTE D2 */
    .p2align 2
4:  BYTE 0
.Lpair1:
    BYTE 1
.Lpair2:
    BYTE 2
.Lpair3:
    BYTE 3
    addi a1, a1, 4
    addi a2, a2, 4
    addi t2, t2, 4
    addi t3, t3, 4
    addi t4, t4, 4
    addi t5, t5, 4
    bne  a1, t6, 4b
    addi t0, t0, -1
    beqz t0, 9f
    add  a1, a1, s10              /* the next kernel row of both receptive fields */
    add  a2, a2, s10
    add  t2, t2, s11              /* and of the weights */
    add  t3, t3, s11
    add  t4, t4, s11
    add  t5, t5, s11
    j    7b
.Lpair_bytes:                     /* D2 (s8) in 1..3 */
    addi t1, s8, -2
    bltz t1, .Lpair1
    beqz t1, .Lpair2
    j    .Lpair3
9:
    /* the outputs through the triple's requantization, as three pixels: the first at F_Y, the
       second y_step further and again as the third (all three at F_Y when odd); its pass then
       leaves F_LEFT below zero */
    lw   a1, F_Y(sp)
    lw   t1, A_YSTEP(a0)
    add  a2, a1, t1
    lw   t0, F_LEFT(sp)
    li   t1, 1
    bne  t0, t1, 5f
    mv   a2, a1
5:  mv   a3, a2
    lw   t2, A_FLOOR(a0)
    mv   s8, s4
    mv   s9, s5
    mv   s10, s6
    mv   s11, s7
    j    .Lrequant3
.Lrow_end:
    lw   t0, F_RP(sp)
    lw   ra, 64(sp)
    bnez t0, .Lnext_row
.Ldone:
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
    addi sp, sp, F_SIZE
    ret
.Lnext_row:                       /* t0 the PointwiseRows: row r from the block's first pixel */
    lw   t3, 12(t0)               /* the rows done before the last one (0 from the caller) */
    lw   t1, 0(t0)                /* out_rows */
    lw   t4, 4(t0)                /* x_row_jump */
    addi t3, t3, 1
    beq  t3, t1, .Ldone
    lw   t5, 8(t0)                /* y_row_jump */
    sw   t3, 12(t0)
    lw   t1, A_X(a0)
    lw   t6, F_D(sp)
    mul  t4, t4, t3
    mul  t5, t5, t3
    sub  t1, t1, t6               /* (the passes' pointers are D bytes back) */
    add  t1, t1, t4
    sw   t1, F_X(sp)
    lw   t1, A_Y(a0)
    lw   t0, A_PIXELS(a0)
    add  t1, t1, t5
    sw   t1, F_Y(sp)
    sw   t0, F_LEFT(sp)
    j    .Ltriple
    RQ_BEGIN
.Lrequant3_general:               /* a floor other than 0: */
    lw   t1, A_REQFN(a0)          /* (read for every block: its use is a cycle later) */
    slli t0, t2, 1                /* the floor 1 (a ReLU's) or above INT32_MIN: a dyadic */
    beqz t0, .Lrequant3_frexp     /* block's subroutine (util/pointwise.h set_dyadic_block) */
    jalr ra, t1, 0
    j    .Lnext3
.Lrequant3_frexp:                 /* the three pixels' outputs in the general form */
    REQ3_CHANNEL 0, s0, s4, s8
    REQ3_CHANNEL 1, s1, s5, s9
    REQ3_CHANNEL 2, s2, s6, s10
    REQ3_CHANNEL 3, s3, s7, s11
    j    .Lnext3
    .irp id, t0a, t0b, t0c, t1a, t1b, t1c, t2a, t2b, t2c, t3a, t3b, t3c
    CLAMP_FIXUP \id, t5, t6
    .endr
    .irp id, r0a, r0b, r0c, r1a, r1b, r1c, r2a, r2b, r2c, r3a, r3b, r3c
    CLAMP_FIXUP_HI \id, t6
    .endr
    RQ_END
    .size etmcu_rv32_pointwise_4ch, . - etmcu_rv32_pointwise_4ch

/* void etmcu_rv32_pointwise_runs9(): every kernel row of a three-pixel pass whose runs are 9 bytes
   and whose four channels' weights are 27 bytes apart (a 3x3 window on 3 channels: the first
   layers of MobileNetV1 and ResNet-8), called from the pass of etmcu_rv32_pointwise_4ch (its
   registers and frame, sp unchanged: pointers D = 7 bytes before the runs, t6 the rows, at least
   2) where PointwiseBlock::rows_fn names it (isa/rv32/pointwise.h sets it behind
   kPathMicroMultiRun, so only programs with such layers link it). The nine steps of a run
   straight, the four weight rows from t2 alone (immediate offsets 27 apart), then the pointers'
   steps to the next kernel row (t3, t4: the row skips F_RSKIP, F_WRSKIP and the 16 bytes that the
   kernel's own loop steps): the pass's entry dispatch into the 16-byte step runs once, not once
   per row, and a row step is four adds, not seven and two loads.
   Returns with the twelve sums; clobbers a1..a7, t0..t6. */
    .section .text.etmcu_rv32_pointwise_runs9, "ax", @progbits
    .globl etmcu_rv32_pointwise_runs9
    .type etmcu_rv32_pointwise_runs9, @function
    .p2align 2
etmcu_rv32_pointwise_runs9:
    lw   t3, F_RSKIP(sp)
    lw   t4, F_WRSKIP(sp)
    addi t6, t6, -1
    addi t3, t3, 16
    addi t4, t4, 16
    mul  t6, t6, t3
    add  t6, t6, a1               /* a1 at the last row: no step after it */
    .p2align 2
1:  .irp i, 7, 8, 9, 10, 11, 12, 13, 14, 15
    BYTE3 \i, t2, 27, t2, 54, t2, 81
    .endr
    beq  a1, t6, 2f
    add  a1, a1, t3
    add  a2, a2, t3
    add  a3, a3, t3
    add  t2, t2, t4
    j    1b
2:  ret
    .size etmcu_rv32_pointwise_runs9, . - etmcu_rv32_pointwise_runs9

/* void etmcu_rv32_pointwise_runs9s1(): etmcu_rv32_pointwise_runs9 for a stride-1 layer (x_step 3:
   the three pixels' windows overlap, pixel q's tap j reading byte 3q + j of the pass's 15). Each
   weight byte still meets three input bytes, but each input byte is loaded once a row, not once
   per pixel: the taps go by j mod 3 (0, 3, 6; 1, 4, 7; 2, 5, 8), whose three steps read the bytes
   j, j + 3, ... j + 12 of one residue, four registers in rotation (a2..a5), one load a step.
   A row: 15 input and 36 weight loads for 108 mul + add, 267 instructions against runs9's 279,
   and a row step of two adds (a2, a3 are not read). The same registers, frame and contract as
   runs9 (pointers D = 7 bytes before the runs, t6 the rows, at least 2; the twelve sums). */
/* tap j of the four channels (weights at t2 + 7 + j + 27 ch) on the three pixels' input bytes in
   xa, xb, xc (bytes j, j + 3, j + 6), with input byte u loaded into `ld` on the way (ld = none:
   no load) */
.macro STEP1 j, xa, xb, xc, ld=none, u=0
    lb   a6, (7 + \j)(t2)
    lb   a7, (34 + \j)(t2)
    .ifnc \ld, none
    lb   \ld, (7 + \u)(a1)
    .endif
    mul  t0, \xa, a6
    add  s0, s0, t0
    mul  t0, \xb, a6
    add  s4, s4, t0
    mul  t0, \xc, a6
    add  s8, s8, t0
    lb   a6, (61 + \j)(t2)
    mul  t0, \xa, a7
    add  s1, s1, t0
    mul  t0, \xb, a7
    add  s5, s5, t0
    mul  t0, \xc, a7
    add  s9, s9, t0
    lb   a7, (88 + \j)(t2)
    mul  t0, \xa, a6
    add  s2, s2, t0
    mul  t0, \xb, a6
    add  s6, s6, t0
    mul  t0, \xc, a6
    add  s10, s10, t0
    mul  t0, \xa, a7
    add  s3, s3, t0
    mul  t0, \xb, a7
    add  s7, s7, t0
    mul  t0, \xc, a7
    add  s11, s11, t0
.endm
    .section .text.etmcu_rv32_pointwise_runs9s1, "ax", @progbits
    .globl etmcu_rv32_pointwise_runs9s1
    .type etmcu_rv32_pointwise_runs9s1, @function
    .p2align 2
etmcu_rv32_pointwise_runs9s1:
    lw   t3, F_RSKIP(sp)
    lw   t4, F_WRSKIP(sp)
    addi t6, t6, -1
    addi t3, t3, 16
    addi t4, t4, 16
    mul  t6, t6, t3
    add  t6, t6, a1               /* a1 at the last row: no step after it */
    .p2align 2
1:  lb   a2, 7(a1)                /* input bytes 0, 3, 6 */
    lb   a3, 10(a1)
    lb   a4, 13(a1)
    STEP1 0, a2, a3, a4, a5, 9
    STEP1 3, a3, a4, a5, a2, 12
    STEP1 6, a4, a5, a2, a3, 1
    lb   a4, 11(a1)               /* bytes 4, 7 */
    lb   a5, 14(a1)
    STEP1 1, a3, a4, a5, a2, 10
    STEP1 4, a4, a5, a2, a3, 13
    STEP1 7, a5, a2, a3, a4, 2
    lb   a5, 12(a1)               /* bytes 5, 8 */
    lb   a2, 15(a1)
    STEP1 2, a4, a5, a2, a3, 11
    STEP1 5, a5, a2, a3, a4, 14
    STEP1 8, a2, a3, a4
    beq  a1, t6, 2f
    add  a1, a1, t3
    add  t2, t2, t4
    j    1b
2:  ret
    .size etmcu_rv32_pointwise_runs9s1, . - etmcu_rv32_pointwise_runs9s1

/* void etmcu_rv32_requant3_relu_dy(): the three-pixel pass's twelve outputs in the dyadic ReLU
   form, called from the pass of etmcu_rv32_pointwise_4ch where the block's
   floor is 1 (util/pointwise.h set_dyadic_block, which names it in PointwiseBlock::requant_fn
   behind kPathDyadic: only programs with such blocks link it). Its registers: the sums in
   s0..s11, the outputs at a1..a3, t5/t6 amin/amax; clobbers a4..a6, t0.
   Two copies of the twelve outputs, as the Xpulp kernel's ReLU flows (isa/xpulp/pointwise_4ch.S
   RELU_POS / RELU_NEG): in the positive flow (the last sum was above 0) an output's test falls
   through to its arithmetic and store (6 cycles: a sum above V stores amax through its fixup,
   any other (v * m + offset * 2^21 + 3 * 2^19) >> 21, cmsis_math.h requantize_offset_dyadic with
   the sign term and 2^19 folded), in the negative flow to the store of amin (2);
   a change of sign branches (3 cycles) into the other flow at the same output. One flow spent a
   `mv` of amin and a taken branch on every sum of 0 or less (7 / 5 cycles; about half the sums
   of a ReLU layer are below 0). */
/* output n of the flows: channel k's sum acc, its output at k(ybase) */
.macro RD_POS n, k, acc, ybase
.Ldpc\n:
    blez \acc, .Ldns\n
.Ldpb\n:
    blt  a6, \acc, .Ldhi\n
    mul  t0, \acc, a4
    add  t0, t0, a5
    srai t0, t0, 21
.Ldst\n:
    sb   t0, \k(\ybase)
.endm
.macro RD_NEG n, k, acc, ybase
.Ldnc\n:
    bgtz \acc, .Ldpb\n
.Ldns\n:
    sb   t5, \k(\ybase)
.endm
/* channel k's m, offset term and V (both flows, before its first output) */
.macro RD_PARAMS k
    lw   a4, (A_ROUND + 4 * \k)(a0)
    lw   a5, (A_OFFH + 4 * \k)(a0)
    lw   a6, (A_RIGHT + 4 * \k)(a0)
.endm
/* one flow's twelve outputs (\out: a flow's output macro, \params: its channels' parameters
   before channels 1..3), then the return; the ReLU's and the other activations' flows */
.macro FLOW12 out, params
    \out 0, 0, s0, a1
    \out 1, 0, s4, a2
    \out 2, 0, s8, a3
    \params 1
    \out 3, 1, s1, a1
    \out 4, 1, s5, a2
    \out 5, 1, s9, a3
    \params 2
    \out 6, 2, s2, a1
    \out 7, 2, s6, a2
    \out 8, 2, s10, a3
    \params 3
    \out 9, 3, s3, a1
    \out 10, 3, s7, a2
    \out 11, 3, s11, a3
    ret
.endm
/* the ReLU's flows (\out: RD_NEG or RD_POS); channel 0's parameters only where a flow is entered
   at its start (the negative one: the positive flow is entered from the other at some output,
   its channel's parameters loaded) */
.macro RD_FLOW out, params0
    .if \params0
    RD_PARAMS 0
    .endif
    FLOW12 \out, RD_PARAMS
.endm
    .section .text.etmcu_rv32_requant3_relu_dy, "ax", @progbits
    .globl etmcu_rv32_requant3_relu_dy
    .type etmcu_rv32_requant3_relu_dy, @function
    .p2align 2
etmcu_rv32_requant3_relu_dy:
    RQ_BEGIN
    RD_FLOW RD_NEG, 1                      /* the negative flow first (the more common sign) */
    RD_FLOW RD_POS, 0
    /* a sum above V: amax, stored in the positive flow */
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
.Ldhi\n:
    mv   t0, t6
    j    .Ldst\n
    .endr
    RQ_END
    .size etmcu_rv32_requant3_relu_dy, . - etmcu_rv32_requant3_relu_dy

/* void etmcu_rv32_requant3_clamp_dy(): the same for a block of any other activation in the dyadic
   form (kDyadicClamp, behind kPathDwLanes3x3 on this ISA), in two flows by the sums' sign as the
   ReLU's: in the positive flow a sum above V stores amax through its fixup, any other
   (v * m + offset * 2^21 + 3 * 2^19) >> 21; in the negative flow a sum below Vlo stores amin,
   any other (v * m + offset * 2^21 + 3 * 2^19 - 2^20) >> 21 (requantize_offset_dyadic's sign term
   taken by the flow: one test, `mul, add, srai, sb`, 6 cycles either way against the 9 of one
   flow with the sign term's three instructions; a change of sign 3 more). V >= 0 > Vlo
   (dyadic_relu_bound, set_dyadic_block), so each flow needs only its own side's test. The offset term is the block's (set_dyadic_block's is the
   same for its four channels): a5 and t1 once a call. Clobbers a4..a7, t0, t1. */
.macro CG_POS n, k, acc, ybase
.Lgpc\n:
    bltz \acc, .Lgns\n
.Lgpb\n:
    blt  a6, \acc, .Lghi\n
    mul  t0, \acc, a4
    add  t0, t0, a5
    srai t0, t0, 21
.Lgpst\n:
    sb   t0, \k(\ybase)
.endm
.macro CG_NEG n, k, acc, ybase
.Lgnc\n:
    bgez \acc, .Lgpb\n
.Lgns\n:
    blt  \acc, a7, .Lglo\n
    mul  t0, \acc, a4
    add  t0, t0, t1
    srai t0, t0, 21
.Lgnst\n:
    sb   t0, \k(\ybase)
.endm
/* channel k's m, V and Vlo (both flows, before its first output) */
.macro CG_PARAMS k
    lw   a4, (A_ROUND + 4 * \k)(a0)
    lw   a6, (A_RIGHT + 4 * \k)(a0)
    lw   a7, (A_ROUND4 + 4 * \k)(a0)
.endm
/* the other activations' flows (channel 0's parameters and the offset terms where the call
   enters, the negative flow's start) */
.macro CG_FLOW out, entry
    .if \entry
    lw   a5, A_OFFH(a0)
    lui  t1, 0x100                         /* 2^20 */
    CG_PARAMS 0
    sub  t1, a5, t1
    .endif
    FLOW12 \out, CG_PARAMS
.endm
    .section .text.etmcu_rv32_requant3_clamp_dy, "ax", @progbits
    .globl etmcu_rv32_requant3_clamp_dy
    .type etmcu_rv32_requant3_clamp_dy, @function
    .p2align 2
etmcu_rv32_requant3_clamp_dy:
    RQ_BEGIN
    CG_FLOW CG_NEG, 1
    CG_FLOW CG_POS, 0
    /* a sum above V: amax, stored in the positive flow; below Vlo: amin, in the negative one */
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
.Lghi\n:
    mv   t0, t6
    j    .Lgpst\n
.Lglo\n:
    mv   t0, t5
    j    .Lgnst\n
    .endr
    RQ_END
    .size etmcu_rv32_requant3_clamp_dy, . - etmcu_rv32_requant3_clamp_dy
