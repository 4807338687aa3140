/* void etmcu_rv32_dot4(const int8_t* x, const int8_t* const w[4], int32_t n, int32_t d[4]):
   d[k] += sum(x[i] * w[k][i]) for i < n on a plain RV32IMC core (isa/rv32/int8_dot.h's dot: the
   linear layers' rows, the convolution's clipped border windows). The C loop (isa/scalar/
   int8_dot.h, which the host runs for the same sums) spilled three of its sums a step at GCC's
   register allocation: 72 instructions per 16 multiply-accumulates. Here each input byte is one
   load feeding the four rows' load, mul and add, 13 instructions, every loaded value used two or
   more instructions later (a load-use costs a cycle); eight bytes per loop iteration with
   immediate offsets, so the five pointer steps and the branch are paid once per 32
   multiply-accumulates (3.44 cycles each by the count; 3.56 measured on the autoencoder with
   the calls, 941,288 cycles for its 264,192); the last n mod 8 bytes one at a time. (Sixteen bytes
   a step measured 3.3 % fewer cycles on the autoencoder for 352 B more in every firmware: each
   zoo model ends in a linear layer, so each links this.)
   The loops are dot4.inc's DOT4_RUN (shared with linear_row.S). Registers: a0 the input, a4..a7
   the four weight rows, t3..t6 the sums, t0..t2 loaded bytes and products; a1 and a2 the loops'
   ends. Clobbers a1..a7, t0..t6 (no stack). */

#include "dot4.inc"

    .section .text.etmcu_rv32_dot4, "ax", @progbits
    .globl etmcu_rv32_dot4
    .type etmcu_rv32_dot4, @function
    .p2align 2
etmcu_rv32_dot4:
    lw   a4, 0(a1)
    lw   a5, 4(a1)
    lw   a6, 8(a1)
    lw   a7, 12(a1)
    lw   t3, 0(a3)
    lw   t4, 4(a3)
    lw   t5, 8(a3)
    lw   t6, 12(a3)
    andi a1, a2, -8
    add  a1, a0, a1               /* the end of the 8-byte steps */
    andi a2, a2, 7
    add  a2, a1, a2               /* the end of the input */
    DOT4_RUN
    sw   t3, 0(a3)
    sw   t4, 4(a3)
    sw   t5, 8(a3)
    sw   t6, 12(a3)
    ret
    .size etmcu_rv32_dot4, . - etmcu_rv32_dot4
