// cortex_m::quantize_per_tensor.out, optimised variants (the same results as ref/, bit for bit):
// the ISA's loop (isa/<isa>/float_edges.h: integer arithmetic on the IEEE bits without an FPU). f32
// -> int8/int16 with one float32 multiply by the float32 reciprocal of the scale, rounded to
// nearest even, plus the zero point, clamped to [qmin, qmax].
#include "float_edges.h"  // isa/<isa>/float_edges.h
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/quantize_io.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  int8::QuantizeJob job;
  const Error e = int8::parse_quantize_per_tensor(ctx, args, &job);
  if (e != Error::Ok) return e;
  int8::quantize_all(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
