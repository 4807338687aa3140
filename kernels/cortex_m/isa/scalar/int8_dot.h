// int8 dot products for cores without SIMD (plain RV32IMC, Armv6-M): several weight rows against
// one input, so that each input byte loaded feeds kOc multiply-accumulates.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/isa/scalar/row_sums.h"
#include "kernels/cortex_m/util/dot_common.h"

namespace etmcu {
namespace kernels {
namespace int8 {

#if defined(__ARM_ARCH_6M__)
// Armv6-M (Cortex-M0/M0+): dot4_m0.S, the four accumulators in r8-r11 (in C they spilled out of
// r0-r7: 7.7 instructions per MAC with four channels, 5 with two), 3.75 per MAC.
extern "C" void etmcu_m0_dot4(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d);

constexpr int kOc = 4;

inline void dot(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d) {
  etmcu_m0_dot4(x, w, n, d);
}
#else
// Output channels per pass (each input byte loaded feeds kOc multiply-accumulates).
constexpr int kOc = 4;

// d[k] += sum(x[i] * w[k][i]) over n bytes, k < kOc (callers keep a whole sum under kMaxDotLength
// bytes, so the int32 sums stay in range). Four bytes per step through moving pointers: RV32 and
// Thumb-1 have no indexed loads, so each load takes an immediate offset instead of an address
// addition. The k loops are unrolled so that a[] and the pointers live in registers.
inline void dot(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d) {
  int32_t a[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) a[k] = d[k];
  const int8_t* q[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) q[k] = w[k];
  const int8_t* p = x;
  int32_t i = 0;
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

#endif

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
