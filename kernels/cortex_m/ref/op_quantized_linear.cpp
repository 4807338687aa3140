// cortex_m::quantized_linear.out: int8 fully connected layer (arm_fully_connected_s8) with one
// per-tensor requantization; bias (scalar/DSP exports) or precomputed kernel_sum (MVE exports).
// The reference: one multiply-accumulate at a time (util/linear.h holds the checks and the loop).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/linear.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_linear_out(KernelContext& ctx, Span<EValue*> args) {
  int8::LinearJob job;
  const Error e = int8::parse_linear(ctx, args, &job);
  if (e != Error::Ok) return e;
  int8::linear_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
