// int8 dot products with Helium (MVE, Cortex-M55/M85): VMLADAVA.S8 adds the sixteen byte products
// of two vectors to a scalar accumulator; the last n % 16 bytes go through SMLAD (every MVE core
// has the DSP extension).
#pragma once
#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/isa/dsp/smlad.h"
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
  i = dot_smlad<kOc>(x, w, i, n, a);
  dot_tail<kOc>(x, w, i, n, a);
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) d[k] = a[k];
}

// The sum of n weight bytes (the offset folding's sum(w)): VADDVA.S8 adds sixteen at a time, the
// last n % 16 in one predicated step. (Linear layers sum every feature's weights per call: byte by
// byte this was 0.9 M of the MLPerf autoencoder's 1.0 M instructions.)
inline int32_t row_sum(const int8_t* w, int32_t n) {
  int32_t s = 0, i = 0;
  for (; i + 16 <= n; i += 16) s = vaddvaq_s8(s, vldrbq_s8(w + i));
  if (i < n) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    s = vaddvaq_p_s8(s, vldrbq_z_s8(w + i, p), p);
  }
  return s;
}

// The sums of `rows` rows of n bytes each, back to back (a layer's weight rows): row_sum per row.
inline void row_sums(const int8_t* w, int32_t n, int32_t rows, int32_t* out) {
  for (int32_t r = 0; r < rows; ++r) out[r] = row_sum(w + static_cast<ptrdiff_t>(r) * n, n);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
