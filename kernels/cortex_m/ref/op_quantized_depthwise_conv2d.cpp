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
  // One pixel at a time, first to last; an out that begins after its input (a plan below the
  // naive floor, kernels/api/alias_contract.h) slabs of rows last to first.
  if (int8::bytes_overlap(job.x, job.in, job.y, job.out) && job.y > job.x &&
      int8::row_slabs_apply(job)) {
    int8::by_row_slabs(job, true, [](const int8::DwJob& s) { int8::depthwise_nhwc_ref(s); });
    return Error::Ok;
  }
  int8::depthwise_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
