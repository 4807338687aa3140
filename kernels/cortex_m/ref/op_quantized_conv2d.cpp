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
  // One pixel at a time, first to last; an out that begins after its input (a plan below the
  // naive floor, kernels/api/alias_contract.h) last to first: pixels of a 1x1 stride-1 unpadded
  // layer, else slabs of rows.
  if (int8::bytes_overlap(job.x, job.in, job.y, job.out) && job.y > job.x) {
    if (job.kc == job.in.c && job.kh == 1 && job.kw == 1 && job.stride.h == 1 &&
        job.stride.w == 1 && job.pad.h == 0 && job.pad.w == 0 && job.dil.h == 1 && job.dil.w == 1)
      int8::conv_pixels_reverse(job);
    else if (int8::row_slabs_apply(job))
      int8::by_row_slabs(job, true, [](const int8::ConvJob& s) { int8::conv_nhwc_ref(s); });
    else
      int8::conv_nhwc_ref(job);  // (no contract covers it: the plan never puts it there)
    return Error::Ok;
  }
  int8::conv_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
