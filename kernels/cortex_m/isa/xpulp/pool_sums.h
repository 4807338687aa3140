// The average pool's micro-kernel with Xpulp: the sums of four neighbouring channels over a
// pooling window, each channel in its own 32-bit accumulator through cv.sdotsp.b against a word
// whose only nonzero byte (1) is that channel's lane: a word load feeds four one-cycle dot
// products, with no biasing, masking or shifting (the plain C kernel of isa/scalar spends seven
// instructions on a word). Columns go in pairs through a hardware loop of register post-increment
// loads (cv.lw rd, rs2(rs1!)): two loads, then the eight dot products, five cycles a word with no
// load-use stall; a window of whole input rows is one line of taps.
#pragma once
#include <stdint.h>
#include <string.h>

#include "xpulp_insn.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// sums[k] = the sum over rows r < rows and columns i < cols of p[r * row_step + i * col_step + k]
// (k < 4; p word-aligned, row_step and col_step multiples of 4).
inline void window_sums4(const int8_t* p, int32_t rows, int32_t cols, int32_t row_step,
                         int32_t col_step, int32_t sums[4]) {
  if (row_step == cols * col_step) {  // the window spans whole rows: its taps are one line
    cols *= rows;
    rows = 1;
  }
  const uint32_t m0 = 0x1u, m1 = 0x100u, m2 = 0x10000u, m3 = 0x1000000u;
  const int32_t pairs = cols >> 1;
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int32_t r = 0; r < rows; ++r, p += row_step) {
    const int8_t* q = p;
    if (pairs != 0) {
#if defined(__riscv)
      uint32_t a, b;
      __asm__ volatile(
          ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
          ".option push\n\t"
          ".option norvc\n\t"  // the loop end is counted in four-byte instructions
          ".insn i 0x2b, 4, x15, %[pairs], 11\n\t"          // cv.setup: 10 instructions
          ".insn r 0x2b, 3, 0x02, %[a], %[q], %[step]\n\t"  // cv.lw a, step(q!)
          ".insn r 0x2b, 3, 0x02, %[b], %[q], %[step]\n\t"  // cv.lw b, step(q!)
          ".insn r 0x7b, 1, 0x54, %[s0], %[a], %[m0]\n\t"   // cv.sdotsp.b
          ".insn r 0x7b, 1, 0x54, %[s1], %[a], %[m1]\n\t"
          ".insn r 0x7b, 1, 0x54, %[s2], %[a], %[m2]\n\t"
          ".insn r 0x7b, 1, 0x54, %[s3], %[a], %[m3]\n\t"
          ".insn r 0x7b, 1, 0x54, %[s0], %[b], %[m0]\n\t"
          ".insn r 0x7b, 1, 0x54, %[s1], %[b], %[m1]\n\t"
          ".insn r 0x7b, 1, 0x54, %[s2], %[b], %[m2]\n\t"
          ".insn r 0x7b, 1, 0x54, %[s3], %[b], %[m3]\n\t"
          ".option pop\n\t"
          : [q] "+r"(q), [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [a] "=&r"(a),
            [b] "=&r"(b)
          : [pairs] "r"(pairs), [step] "r"(col_step), [m0] "r"(m0), [m1] "r"(m1), [m2] "r"(m2),
            [m3] "r"(m3)
          : "memory");
#else
      for (int32_t i = 0; i < 2 * pairs; ++i, q += col_step) {
        uint32_t v;
        memcpy(&v, q, 4);
        s0 = xpulp::sdotsp_b(s0, v, m0);
        s1 = xpulp::sdotsp_b(s1, v, m1);
        s2 = xpulp::sdotsp_b(s2, v, m2);
        s3 = xpulp::sdotsp_b(s3, v, m3);
      }
#endif
    }
    if (cols & 1) {
      uint32_t v;
      memcpy(&v, __builtin_assume_aligned(q, 4), 4);
      s0 = xpulp::sdotsp_b(s0, v, m0);
      s1 = xpulp::sdotsp_b(s1, v, m1);
      s2 = xpulp::sdotsp_b(s2, v, m2);
      s3 = xpulp::sdotsp_b(s3, v, m3);
    }
  }
  sums[0] = s0;
  sums[1] = s1;
  sums[2] = s2;
  sums[3] = s3;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
