// int8 dot products for the CV32E40P with its PULP extensions: cv.sdotsp.b adds the four signed
// byte products of two words to a register in one cycle.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/isa/xpulp/xpulp_insn.h"
#include "kernels/cortex_m/util/dot_common.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// Output channels per pass (each input word loaded feeds kOc cv.sdotsp.b).
constexpr int kOc = 4;

// d[k] += sum(x[i] * w[k][i]) over n bytes, k < kOc (callers keep n under kMaxDotLength). Never
// inlined: inlined into the linear kernel's loop its sixteen-byte loop ran out of registers (8 %
// more cycles on the autoencoder).
__attribute__((noinline)) inline void dot(const int8_t* x, const int8_t* const* w, int32_t n,
                                          int32_t* d) {
  int32_t a[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) a[k] = d[k];
  int32_t i = 0;
  // Word loads where every row is 4-byte aligned (a misaligned load costs two accesses on the
  // CV32E40P), else the byte loop below does all.
  uintptr_t align = reinterpret_cast<uintptr_t>(x);
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) align |= reinterpret_cast<uintptr_t>(w[k]);
  if ((align & 3u) == 0) {
    // Sixteen bytes per iteration through moving pointers: the loads take immediate offsets, so
    // the pointer updates are paid once per 4 x kOc dot instructions instead of once per kOc.
    const int8_t* px = x;
    const int8_t* pw[kOc];
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) pw[k] = w[k];
    for (; i + 16 <= n; i += 16, px += 16) {
      uint32_t xv[4];
      memcpy(xv, __builtin_assume_aligned(px, 4), 16);
#pragma GCC unroll 4
      for (int k = 0; k < kOc; ++k) {
        uint32_t v[4];
        memcpy(v, __builtin_assume_aligned(pw[k], 4), 16);
        a[k] = xpulp::sdotsp_b(a[k], xv[0], v[0]);
        a[k] = xpulp::sdotsp_b(a[k], xv[1], v[1]);
        a[k] = xpulp::sdotsp_b(a[k], xv[2], v[2]);
        a[k] = xpulp::sdotsp_b(a[k], xv[3], v[3]);
        pw[k] += 16;
      }
    }
    for (; i + 4 <= n; i += 4) {
      uint32_t xv;
      memcpy(&xv, __builtin_assume_aligned(x + i, 4), 4);
#pragma GCC unroll 4
      for (int k = 0; k < kOc; ++k) {
        uint32_t v;
        memcpy(&v, __builtin_assume_aligned(w[k] + i, 4), 4);
        a[k] = xpulp::sdotsp_b(a[k], xv, v);
      }
    }
  }
  const int8_t* q[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) q[k] = w[k] + i;
  const int8_t* p = x + i;
  for (; i + 4 <= n; i += 4) {
    const int32_t x0 = p[0], x1 = p[1], x2 = p[2], x3 = p[3];
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) {
      a[k] += x0 * q[k][0] + x1 * q[k][1] + x2 * q[k][2] + x3 * q[k][3];
      q[k] += 4;
    }
    p += 4;
  }
  dot_tail<kOc>(x, w, i, n, a);
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) d[k] = a[k];
}

// The sum of n weight bytes (the offset folding's sum(w)): four per cv.sdotsp.b against 0x01010101
// where the row is word-aligned; on the core, eight bytes per pass of a hardware loop (two
// post-increment loads, then their two cv.sdotsp.b: 4 cycles, against 12 for the C loop's two
// passes with their branches: upstream KWS spent 24,000 cycles here, MobileNetV1 more). One
// copy (noinline): inlined at its five call sites it cost upstream KWS 456 B more.
__attribute__((noinline)) inline int32_t row_sum(const int8_t* w, int32_t n) {
  int32_t s = 0, i = 0;
#if defined(__riscv)
  if ((reinterpret_cast<uintptr_t>(w) & 3u) == 0 && n >= 8) {
    const int32_t pairs = n >> 3;
    const int8_t* p = w;
    uint32_t a, b;
    __asm__ volatile(
        ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
        ".option push\n\t"
        ".option norvc\n\t"  // the loop end is counted in four-byte instructions
        ".insn i 0x2b, 4, x14, %[pairs], 5\n\t"
        ".insn i 0x0b, 2, %[a], %[p], 4\n\t"
        ".insn i 0x0b, 2, %[b], %[p], 4\n\t"
        ".insn r 0x7b, 1, 0x54, %[s], %[a], %[ones]\n\t"
        ".insn r 0x7b, 1, 0x54, %[s], %[b], %[ones]\n\t"
        ".option pop\n\t"
        : [s] "+r"(s), [p] "+r"(p), [a] "=&r"(a), [b] "=&r"(b)
        : [pairs] "r"(pairs), [ones] "r"(0x01010101u)
        : "memory");
    i = pairs * 8;
  }
#endif
  if ((reinterpret_cast<uintptr_t>(w) & 3u) == 0) {
    for (; i + 4 <= n; i += 4) {
      uint32_t v;
      memcpy(&v, __builtin_assume_aligned(w + i, 4), 4);
      s = xpulp::sdotsp_b(s, v, 0x01010101u);
    }
  }
  for (; i < n; ++i) s += w[i];
  return s;
}

// The sums of `rows` rows of n bytes each, back to back (a layer's weight rows). On the core, with
// aligned rows of a multiple of 8 bytes, one call for all of them: the row loop is a second
// hardware loop around row_sum's (35 cycles per 64-byte row against about 54 for a call of
// row_sum each: upstream KWS's 64-channel pointwise layers spent 3,456 cycles a call on them).
__attribute__((noinline)) inline void row_sums(const int8_t* w, int32_t n, int32_t rows,
                                               int32_t* out) {
#if defined(__riscv)
  if ((reinterpret_cast<uintptr_t>(w) & 3u) == 0 && n >= 8 && n % 8 == 0 && rows >= 1) {
    const int8_t* p = w;
    int32_t* o = out;
    int32_t s;
    uint32_t a, b;
    __asm__ volatile(
        ".p2align 2\n\t"  // the loops' setups, starts and ends on words (hardware loop rule)
        ".option push\n\t"
        ".option norvc\n\t"  // the loop ends are counted in four-byte instructions
        ".insn i 0x2b, 4, x15, %[rows], 8\n\t"
        "li %[s], 0\n\t"
        ".insn i 0x2b, 4, x14, %[pairs], 5\n\t"
        ".insn i 0x0b, 2, %[a], %[p], 4\n\t"
        ".insn i 0x0b, 2, %[b], %[p], 4\n\t"
        ".insn r 0x7b, 1, 0x54, %[s], %[a], %[ones]\n\t"
        ".insn r 0x7b, 1, 0x54, %[s], %[b], %[ones]\n\t"
        ".insn s 0x2b, 2, %[s], 4(%[o])\n\t"  // cv.sw post-increment: the row's sum
        ".option pop\n\t"
        : [s] "=&r"(s), [p] "+r"(p), [o] "+r"(o), [a] "=&r"(a), [b] "=&r"(b)
        : [rows] "r"(rows), [pairs] "r"(n >> 3), [ones] "r"(0x01010101u)
        : "memory");
    return;
  }
#endif
  for (int32_t r = 0; r < rows; ++r) out[r] = row_sum(w + static_cast<ptrdiff_t>(r) * n, n);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
