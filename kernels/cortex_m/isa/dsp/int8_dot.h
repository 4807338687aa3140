// int8 dot products with the Arm DSP extension (Cortex-M4/M7/M33): four bytes per load,
// multiplied in 16-bit pairs (SXTB16 + SMLAD), as CMSIS-NN's DSP kernels do.
#pragma once
#include <stddef.h>
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

// The sum of n weight bytes (the offset folding's sum(w)), four per USADA8: with each byte's sign
// bit flipped a byte is its value + 128 as an unsigned byte, so sum(w) = USADA8 sums - 128 * n.
// (Linear layers sum every feature's weights per call: byte by byte it was most of the MLPerf
// autoencoder's instructions.)
inline int32_t row_sum(const int8_t* w, int32_t n) {
  uint32_t s = 0;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t v;
    memcpy(&v, w + i, 4);
    s = __usada8(v ^ 0x80808080u, 0, s);
  }
  return static_cast<int32_t>(s) - 128 * i + byte_sum(w + i, n - i);
}

// The sums of `rows` rows of n bytes each, back to back (a layer's weight rows): row_sum per row.
inline void row_sums(const int8_t* w, int32_t n, int32_t rows, int32_t* out) {
  for (int32_t r = 0; r < rows; ++r) out[r] = row_sum(w + static_cast<ptrdiff_t>(r) * n, n);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
