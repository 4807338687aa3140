// The quantized add's long same-shape loop (util/add.h AddTableShift) with Xpulp: one hardware
// loop of 14 instructions an element, no branch. Post-increment byte loads (cv.lb rd, 1(rs1!)),
// the table entry by a register-offset load (cv.lw rd, rs2(rs1)) placed so that no load feeds the
// next instruction, the product (mulh: five cycles), the sign term and the rounding shift in one
// cv.addRNr, the clamp as cv.max and cv.min, and a post-increment store: 18 cycles an element
// against 31 for GCC's code of the C loop (which has no hardware loop, indexes each array and
// clamps with branches). A fused ReLU's adds take a shorter loop (below: 11 instructions an
// element).
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/add.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The first six instructions of both loops' bodies: the two inputs (post-increment loads), the
// table entry by a register-offset load placed so that no load feeds the next instruction, and
// 4v = table[t] + (s << left4) in z.
#define ETMCU_XPULP_ADD_4V                                                  \
  ".insn i 0x0b, 0, %[x], %[t], 1\n\t" /* cv.lb x, 1(t!) */                 \
  ".insn i 0x0b, 0, %[z], %[s], 1\n\t" /* cv.lb z, 1(s!) */                 \
  "slli %[x], %[x], 2\n\t"                                                  \
  ".insn r 0x2b, 3, 0x06, %[x], %[table], %[x]\n\t" /* cv.lw x, x(table) */ \
  "sll %[z], %[z], %[left4]\n\t"                                            \
  "add %[z], %[z], %[x]\n\t"

inline void add_table_shift(const AddTableShift& a) {
#if defined(__riscv)
  const int8_t *t = a.t, *s = a.s;
  int8_t* y = a.y;
  int32_t x, z, h;
  if (a.relu) {
    // The ReLU form (util/add.h add_relu_of_4v): the sum clamped at 0 by cv.max, so the sign term
    // is the constant +1 (in oh1) and cv.max / cv.min become one cv.min. 11 instructions, 15
    // cycles an element.
    const int32_t oh1 = a.q.offset_high + 1;
    __asm__ volatile(
        ".p2align 2\n\t"
        ".option push\n\t"
        ".option norvc\n\t"
        ".insn i 0x2b, 4, x15, %[n], 12\n\t"  // cv.setup 1: 11 instructions
        ETMCU_XPULP_ADD_4V
        ".insn r 0x2b, 3, 0x2d, %[z], %[z], x0\n\t"          // cv.max z, z, zero
        "mulh %[h], %[z], %[mult]\n\t"                       //
        ".insn r 0x2b, 3, 0x42, %[h], %[oh1], %[right]\n\t"  // cv.addRNr h, oh1, right
        ".insn r 0x2b, 3, 0x2b, %[h], %[h], %[amax]\n\t"     // cv.min
        ".insn s 0x2b, 0, %[h], 1(%[y])\n\t"                 // cv.sb h, 1(y!)
        ".option pop\n\t"
        : [t] "+r"(t), [s] "+r"(s), [y] "+r"(y), [x] "=&r"(x), [z] "=&r"(z), [h] "=&r"(h)
        : [n] "r"(a.n), [table] "r"(a.table), [left4] "r"(a.left4), [mult] "r"(a.q.multiplier),
          [oh1] "r"(oh1), [right] "r"(a.q.right), [amax] "r"(a.amax)
        : "memory");
    return;
  }
  __asm__ volatile(
      ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
      ".option push\n\t"
      ".option norvc\n\t"                   // the loop end counts 4-byte words
      ".insn i 0x2b, 4, x15, %[n], 15\n\t"  // cv.setup 1: 14 instructions
      ETMCU_XPULP_ADD_4V
      "mulh %[h], %[z], %[mult]\n\t"                     //
      "srai %[z], %[z], 31\n\t"                          //
      "ori %[z], %[z], 1\n\t"                            // the sign term
      "add %[z], %[z], %[oh]\n\t"                        //
      ".insn r 0x2b, 3, 0x42, %[h], %[z], %[right]\n\t"  // cv.addRNr h, z, right
      ".insn r 0x2b, 3, 0x2d, %[h], %[h], %[amin]\n\t"   // cv.max
      ".insn r 0x2b, 3, 0x2b, %[h], %[h], %[amax]\n\t"   // cv.min
      ".insn s 0x2b, 0, %[h], 1(%[y])\n\t"               // cv.sb h, 1(y!)
      ".option pop\n\t"
      : [t] "+r"(t), [s] "+r"(s), [y] "+r"(y), [x] "=&r"(x), [z] "=&r"(z), [h] "=&r"(h)
      : [n] "r"(a.n), [table] "r"(a.table), [left4] "r"(a.left4), [mult] "r"(a.q.multiplier),
        [oh] "r"(a.q.offset_high), [right] "r"(a.q.right), [amin] "r"(a.amin), [amax] "r"(a.amax)
      : "memory");
#else
  add_table_shift_c(a);
#endif
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu

#undef ETMCU_XPULP_ADD_4V
