// aten::sigmoid.out: out = 1 / (1 + exp(-self)), as PyTorch's CPU kernel computes it. Float result;
// integer and bool inputs are promoted to float.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// sigmoid.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_sigmoid_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "sigmoid.out: expected (self, out, out) tensors");
  return util::float_unary(
      ctx, *in, *out, [](float x) { return 1.0f / (1.0f + expf(-x)); },
      [](double x) { return 1.0 / (1.0 + exp(-x)); });
}

}  // namespace kernels
}  // namespace etmcu
