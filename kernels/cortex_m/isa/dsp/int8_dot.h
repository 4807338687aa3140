// int8 dot products with the Arm DSP extension (Cortex-M4/M7/M33): four bytes per load,
// multiplied in 16-bit pairs (SXTB16 + SMLAD), as CMSIS-NN's DSP kernels do.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/isa/dsp/smlad.h"
#include "kernels/cortex_m/util/dot_common.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// Output channels per pass: two, the register budget of Thumb-2 with the unpacked pairs.
constexpr int kOc = 2;

// d[k] += sum(x[i] * w[k][i]) over n bytes, k < kOc (callers keep n under kMaxDotLength).
inline void dot(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d) {
  int32_t a[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) a[k] = d[k];
  const int32_t i = dot_smlad<kOc>(x, w, 0, n, a);
  dot_tail<kOc>(x, w, i, n, a);
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) d[k] = a[k];
}

// The sum of n weight bytes (the offset folding's sum(w)).
inline int32_t row_sum(const int8_t* w, int32_t n) { return byte_sum(w, n); }

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
