// aten::exp.out: out = exp(self) via expf. Float result; integer and bool inputs are promoted to
// float.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// exp.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_exp_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "exp.out: expected (self, out, out) tensors");
  return util::float_unary(
      ctx, *in, *out, [](float x) { return expf(x); }, [](double x) { return exp(x); });
}

}  // namespace kernels
}  // namespace etmcu
