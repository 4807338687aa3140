// cortex_m::quantized_conv2d.out: int8 NHWC convolution (grouped, strided, padded, dilated) with
// per-output-channel requantization, as arm_convolve_wrapper_s8 computes it. The reference: one
// multiply-accumulate at a time (util/conv2d.h holds the checks and the loop).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/conv2d.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::ConvJob job;
  const Error e = int8::parse_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  int8::conv_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
