// cortex_m::quantized_avg_pool2d.out: int8 NHWC average pool (arm_avgpool_s8): the mean of the
// in-bounds taps only, rounded half away from zero, clamped to int8; ceil_mode supported.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/avg_pool.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::AvgPoolJob j;
  const Error e = int8::parse_avg_pool(ctx, args, &j);
  if (e != Error::Ok) return e;
  for (int32_t n = 0; n < j.in.n; ++n)
    for (int32_t oy = 0; oy < j.out.h; ++oy)
      for (int32_t ox = 0; ox < j.out.w; ++ox) int8::avg_pool_pixel_ref(j, n, oy, ox);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
