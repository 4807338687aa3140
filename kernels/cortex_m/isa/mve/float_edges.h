// quantize_per_tensor / dequantize_per_tensor with the core's FPU: the float32 loops, and int8
// quantization in Helium lanes (four floats per step: VMUL by the reciprocal, VCVTN (round to
// nearest, ties to even, as nearbyintf), the zero point added saturating, the range, one narrowing
// store). MVE's floating-point arithmetic flushes subnormals to zero (the Standard FPSCR value):
// the lanes serve only reciprocals in [2^-126, 2^100], where a subnormal input or product rounds
// to 0 either way, so the results are the scalar loop's bit for bit. NaN converts to 0 (the zero
// point, as the loop's), values past int32 saturate, then clamp like the loop's +-2^30 cases.
#pragma once
#include <arm_mve.h>
#include <stdint.h>

#include "kernels/cortex_m/util/quantize_io.h"

namespace etmcu {
namespace kernels {
namespace int8 {

inline void quantize_all(const QuantizeJob& j) {
  const float a = j.inv_scale < 0 ? -j.inv_scale : j.inv_scale;
  if (j.q8 == nullptr || !(a >= 1.17549435e-38f && a <= 1.2676506e30f)) {
    quantize_floats(j);
    return;
  }
  const int32x4_t lo = vdupq_n_s32(j.qmin), hi = vdupq_n_s32(j.qmax);
  const int32_t n = static_cast<int32_t>(j.n);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    const float32x4_t r = vmulq_n_f32(vldrwq_z_f32(j.x + i, p), j.inv_scale);
    const int32x4_t q = vqaddq_n_s32(vcvtnq_s32_f32(r), j.zp);
    vstrbq_p_s32(j.q8 + i, vminq_s32(vmaxq_s32(q, lo), hi), p);
  }
}
inline void dequantize_all(const DequantizeJob& j) { dequantize_floats(j); }

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
