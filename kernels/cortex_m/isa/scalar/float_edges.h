// quantize_per_tensor / dequantize_per_tensor on cores without an FPU (plain RV32IMC, Armv6-M, and
// the CV32E40P with Xpulp): integer arithmetic on the IEEE bits (util/float_bits.h), bit-exact
// with the float loops for every scale the argument checks accept, so no float loop is linked.
#pragma once
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/util/float_bits.h"
#include "kernels/cortex_m/util/quantize_io.h"

namespace etmcu {
namespace kernels {
namespace int8 {

inline void quantize_all(const QuantizeJob& j) {
  const QuantizeBits q = quantize_bits_params(j.inv_scale, j.zp, j.qmin, j.qmax);
  const uint32_t* x = reinterpret_cast<const uint32_t*>(j.x);  // float32 storage, read as bits
  // One loop for both widths: a second copy of the inlined quantize_bits cost 436 B of code for
  // one branch per element saved (run once per inference, on the model's input).
  for (size_t i = 0; i < j.n; ++i) {
    const int32_t v = quantize_bits(x[i], q);
    if (j.q8)
      j.q8[i] = static_cast<int8_t>(v);
    else
      j.q16[i] = static_cast<int16_t>(v);
  }
}

inline void dequantize_all(const DequantizeJob& j) {
  uint32_t mant;
  int32_t exp;
  dequantize_bits_params(j.scale, &mant, &exp);
  for (size_t i = 0; i < j.n; ++i) {
    const uint32_t y = dequantize_bits((j.q8 ? j.q8[i] : j.q16[i]) - j.zp, mant, exp);
    memcpy(j.y + i, &y, 4);
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
