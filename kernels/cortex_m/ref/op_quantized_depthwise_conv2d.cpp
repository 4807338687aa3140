// cortex_m::quantized_depthwise_conv2d.out: int8 NHWC depthwise convolution with a channel
// multiplier and per-output-channel requantization, as arm_depthwise_conv_wrapper_s8 computes it.
// The reference: one multiply-accumulate at a time (util/depthwise_conv2d.h holds the checks and
// the loop).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DwJob job;
  const Error e = int8::parse_depthwise_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  int8::depthwise_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
