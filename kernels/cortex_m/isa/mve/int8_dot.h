// int8 dot products with Helium (MVE, Cortex-M55/M85): VMLADAVA.S8 adds the sixteen byte products
// of two vectors to a scalar accumulator; the last n % 16 bytes go through SMLAD (every MVE core
// has the DSP extension).
#pragma once
#include <arm_acle.h>
#include <arm_mve.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/util/dot_common.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// Output channels per pass: four (the SMLAD pairs are only a tail here).
constexpr int kOc = 4;

// d[k] += sum(x[i] * w[k][i]) over n bytes, k < kOc (callers keep n under kMaxDotLength).
inline void dot(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d) {
  int32_t a[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) a[k] = d[k];
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const int8x16_t xv = vld1q_s8(x + i);
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) a[k] = vmladavaq_s8(a[k], xv, vld1q_s8(w[k] + i));
  }
  auto ror8 = [](uint32_t v) { return (v >> 8) | (v << 24); };
  for (; i + 4 <= n; i += 4) {
    uint32_t xv;
    memcpy(&xv, x + i, 4);
    const int16x2_t xe = __sxtb16(xv), xo = __sxtb16(ror8(xv));
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) {
      uint32_t v;
      memcpy(&v, w[k] + i, 4);
      a[k] = __smlad(xe, __sxtb16(v), a[k]);
      a[k] = __smlad(xo, __sxtb16(ror8(v)), a[k]);
    }
  }
  dot_tail<kOc>(x, w, i, n, a);
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) d[k] = a[k];
}

// The sum of n weight bytes (the offset folding's sum(w)).
inline int32_t row_sum(const int8_t* w, int32_t n) { return byte_sum(w, n); }

// No two-pixel micro-kernel here (the conv op then takes one pixel at a time); dot_4x2 is only
// declared so that the op's code for it compiles.
constexpr bool kPixelPairs = false;
void dot_4x2(const int8_t* x0, const int8_t* x1, const int8_t* w, int32_t w_stride, int32_t n,
             int32_t* acc);

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
