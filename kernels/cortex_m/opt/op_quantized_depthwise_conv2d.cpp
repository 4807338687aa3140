// cortex_m::quantized_depthwise_conv2d.out, optimised variants: the same results as ref/ (bit for
// bit). Undilated layers with a channel multiplier of 1 (the MLPerf Tiny models' depthwise layers)
// or a multiple of 4 (KWS's first layer, 1 -> 64 channels) run the ISA's micro-kernel
// (isa/<isa>/depthwise.h, picked by the variant's include path); other layers the reference loop.
#include "depthwise.h"  // isa/<isa>/depthwise.h
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DwJob job;
  const Error e = int8::parse_depthwise_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  const bool undilated = job.dil.h == 1 && job.dil.w == 1;
  if (!undilated || !int8::depthwise_fast(job)) int8::depthwise_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
