// The weight-row sums of the offset folding (sum(w)) for cores without SIMD: the scalar dot
// products' (int8_dot.h) and the plain RV32IMC core's, whose dot products are its own.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/dot_common.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The sums of `rows` rows of n weight bytes each, back to back (the offset folding's sum(w)), n a
// multiple of 4 and w aligned: a word at a time, each byte biased to unsigned (b ^ 0x80 = b + 128),
// the even and odd bytes added in two 16-bit lanes each (at most 255 a word: 256 words before a
// lane could carry), the bias taken off at the end. Not inlined: its loop inlined into a caller's
// dot-product loop cost that loop registers (linear_rows: +2 %).
__attribute__((noinline)) inline void row_sums_words(const int8_t* w, int32_t n, int32_t rows,
                                                     int32_t* out) {
  typedef uint32_t __attribute__((__may_alias__)) Word;
  constexpr uint32_t kBias = 0x80808080u, kLanes = 0x00ff00ffu;
  const Word* p = reinterpret_cast<const Word*>(w);
  for (int32_t r = 0; r < rows; ++r) {
    uint32_t s = 0;
    for (int32_t left = n / 4; left > 0;) {
      const int32_t chunk = left < 256 ? left : 256;
      const Word* end = p + chunk;
      uint32_t even = 0, odd = 0;
      for (; p + 4 <= end; p += 4) {  // four words a step (GCC does not unroll this loop itself)
        const uint32_t u0 = p[0] ^ kBias, u1 = p[1] ^ kBias, u2 = p[2] ^ kBias, u3 = p[3] ^ kBias;
        even += (u0 & kLanes) + (u1 & kLanes) + (u2 & kLanes) + (u3 & kLanes);
        odd += ((u0 >> 8) & kLanes) + ((u1 >> 8) & kLanes) + ((u2 >> 8) & kLanes) +
               ((u3 >> 8) & kLanes);
      }
      for (; p < end; ++p) {
        const uint32_t u = *p ^ kBias;
        even += u & kLanes;
        odd += (u >> 8) & kLanes;
      }
      left -= chunk;
      s += (even & 0xffffu) + (even >> 16) + (odd & 0xffffu) + (odd >> 16);
    }
    out[r] = static_cast<int32_t>(s - 128u * static_cast<uint32_t>(n));
  }
}

inline bool words_aligned(const int8_t* w, int32_t n) {
  return (reinterpret_cast<uintptr_t>(w) & 3u) == 0 && n % 4 == 0;
}

// The sum of n weight bytes (the offset folding's sum(w)).
inline int32_t row_sum(const int8_t* w, int32_t n) {
  if (!words_aligned(w, n)) return byte_sum(w, n);
  int32_t s;
  row_sums_words(w, n, 1, &s);
  return s;
}

// The sums of `rows` rows of n bytes each, back to back (a layer's weight rows).
inline void row_sums(const int8_t* w, int32_t n, int32_t rows, int32_t* out) {
  if (words_aligned(w, n)) {
    row_sums_words(w, n, rows, out);
    return;
  }
  if (n == 3) {  // (a 3-channel layer's taps, the first convolutions': byte_sum's loop cost
                 // 27 cycles a tap on the CV32E40P, this 11.7)
    for (int32_t r = 0; r < rows; ++r, w += 3) out[r] = w[0] + w[1] + w[2];
    return;
  }
  for (int32_t r = 0; r < rows; ++r) out[r] = byte_sum(w + static_cast<ptrdiff_t>(r) * n, n);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
