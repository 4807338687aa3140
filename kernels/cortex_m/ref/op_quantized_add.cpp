// cortex_m::quantized_add.out: int8 elementwise add (arm_elementwise_add_s8): both inputs shifted
// left by 20 and rescaled to a common scale, summed, requantized, offset and clamped.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/add.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_add_out(KernelContext& ctx, Span<EValue*> args) {
  int8::AddJob j;
  const Error e = int8::parse_quantized_add(ctx, args, &j);
  if (e != Error::Ok) return e;
  for (size_t i = 0; i < j.n; ++i) {
    const int32_t x1 = cmsis::requantize(
        (j.a[i % j.plan.a_mod] + j.off1) * (1 << int8::kAddLeftShift), j.m1, j.s1);
    const int32_t x2 = cmsis::requantize(
        (j.b[i % j.plan.b_mod] + j.off2) * (1 << int8::kAddLeftShift), j.m2, j.s2);
    const int32_t sum =
        cmsis::wrap_add(cmsis::requantize(cmsis::wrap_add(x1, x2), j.mo, j.so), j.ooff);
    j.y[i] = static_cast<int8_t>(cmsis::clamp(sum, j.amin, j.amax));
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
