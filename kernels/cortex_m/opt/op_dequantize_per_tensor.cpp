// cortex_m::dequantize_per_tensor.out, optimised variants (the same results as ref/, bit for bit):
// the ISA's loop (isa/<isa>/float_edges.h). int8/int16 -> f32 as one float32 multiply,
// out = float(q - zero_point) * float(scale).
#include "float_edges.h"  // isa/<isa>/float_edges.h
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/quantize_io.h"

namespace etmcu {
namespace kernels {

Error cortex_m_dequantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DequantizeJob job;
  const Error e = int8::parse_dequantize_per_tensor(ctx, args, &job);
  if (e != Error::Ok) return e;
  int8::dequantize_all(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
