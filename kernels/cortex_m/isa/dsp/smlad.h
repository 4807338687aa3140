// The Arm DSP extension's int8 dot-product step, shared by isa/dsp and isa/mve (every MVE core has
// the DSP extension: there it is the tail after the 16-byte vector loop).
#pragma once
#include <arm_acle.h>
#include <stdint.h>
#include <string.h>

namespace etmcu {
namespace kernels {
namespace int8 {

// a[k] += sum(x[i] * w[k][i]) for i in [i, the last multiple of 4 <= n), four bytes per load,
// multiplied in 16-bit pairs (SXTB16 + SMLAD); returns where it stopped.
template <int kN>
inline int32_t dot_smlad(const int8_t* x, const int8_t* const* w, int32_t i, int32_t n,
                         int32_t* a) {
  // (a rotate the compiler folds into SXTB16's ROR operand; GCC 12's arm_acle.h has no __ror)
  auto ror8 = [](uint32_t v) { return (v >> 8) | (v << 24); };
  for (; i + 4 <= n; i += 4) {
    uint32_t xv;
    memcpy(&xv, x + i, 4);  // unaligned word loads are fine on these cores
    const int16x2_t xe = __sxtb16(xv), xo = __sxtb16(ror8(xv));
#pragma GCC unroll 4
    for (int k = 0; k < kN; ++k) {
      uint32_t v;
      memcpy(&v, w[k] + i, 4);
      a[k] = __smlad(xe, __sxtb16(v), a[k]);
      a[k] = __smlad(xo, __sxtb16(ror8(v)), a[k]);
    }
  }
  return i;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
