/* etmcu_xpulp_dot_4x2: two pixels by four output channels of int8 dot products on the CV32E40P
   with its PULP extensions (kernels/cortex_m/isa/xpulp/int8_dot.h declares and documents it).

   void etmcu_xpulp_dot_4x2(const int8_t* x0, const int8_t* x1, const int8_t* w,
                            int32_t w_stride, int32_t words, int32_t acc[8]);
   acc[4p + k] += sum over 4 * words bytes of x_p[i] * (w + k * w_stride)[i]; words >= 1; all rows
   4-byte aligned.

   One hardware-loop iteration loads one word of each of the six rows (post-increment) and feeds
   eight cv.sdotsp.b: 14 cycles for 32 multiply-accumulates, every load two instructions ahead of
   its first use. Instructions binutils 2.40 does not know are written with .insn (encodings as in
   sim/isa/instructions.def): cv.setup 0, rs1, uimm (opcode 0x2b, funct3 4, rd field 14: lpend =
   pc + 4 * uimm), cv.lw rd, (rs1), imm with post-increment (opcode 0x0b, funct3 2), cv.sdotsp.b
   (opcode 0x7b, funct3 1, funct7 0x54). */
    .text
    .option push
    .option norvc
    .globl etmcu_xpulp_dot_4x2
    .type etmcu_xpulp_dot_4x2, @function
    .p2align 2
etmcu_xpulp_dot_4x2:
    addi sp, sp, -16
    sw s0, 12(sp)
    sw s1, 8(sp)
    sw s2, 4(sp)
    sw s3, 0(sp)
    /* weight rows w0..w3 in a2, t6, a6, a7; x rows in a0, a1; a3 and a4 (after cv.setup has read
       the count) hold the x words, t4 and t5 the weight words */
    add t6, a2, a3
    add a6, t6, a3
    add a7, a6, a3
    lw t0, 0(a5)
    lw t1, 4(a5)
    lw t2, 8(a5)
    lw t3, 12(a5)
    lw s0, 16(a5)
    lw s1, 20(a5)
    lw s2, 24(a5)
    lw s3, 28(a5)
    .insn i 0x2b, 4, x14, a4, 15
    .insn i 0x0b, 2, a3, a0, 4          /* xa = *x0++ */
    .insn i 0x0b, 2, a4, a1, 4          /* xb = *x1++ */
    .insn i 0x0b, 2, t4, a2, 4          /* wa = *w0++ */
    .insn i 0x0b, 2, t5, t6, 4          /* wb = *w1++ */
    .insn r 0x7b, 1, 0x54, t0, a3, t4   /* acc[0] += xa . wa */
    .insn r 0x7b, 1, 0x54, s0, a4, t4   /* acc[4] += xb . wa */
    .insn i 0x0b, 2, t4, a6, 4          /* wa = *w2++ */
    .insn r 0x7b, 1, 0x54, t1, a3, t5   /* acc[1] += xa . wb */
    .insn r 0x7b, 1, 0x54, s1, a4, t5   /* acc[5] += xb . wb */
    .insn i 0x0b, 2, t5, a7, 4          /* wb = *w3++ */
    .insn r 0x7b, 1, 0x54, t2, a3, t4   /* acc[2] += xa . wa */
    .insn r 0x7b, 1, 0x54, s2, a4, t4   /* acc[6] += xb . wa */
    .insn r 0x7b, 1, 0x54, t3, a3, t5   /* acc[3] += xa . wb */
    .insn r 0x7b, 1, 0x54, s3, a4, t5   /* acc[7] += xb . wb */
    sw t0, 0(a5)
    sw t1, 4(a5)
    sw t2, 8(a5)
    sw t3, 12(a5)
    sw s0, 16(a5)
    sw s1, 20(a5)
    sw s2, 24(a5)
    sw s3, 28(a5)
    lw s0, 12(sp)
    lw s1, 8(sp)
    lw s2, 4(sp)
    lw s3, 0(sp)
    addi sp, sp, 16
    ret
    .size etmcu_xpulp_dot_4x2, . - etmcu_xpulp_dot_4x2
    .option pop
