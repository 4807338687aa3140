// aten::sqrt.out: out = sqrt(self) via sqrtf. Float result; integer and bool inputs are promoted to
// float.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// sqrt.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_sqrt_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "sqrt.out: expected (self, out, out) tensors");
  return util::float_unary(
      ctx, *in, *out, [](float x) { return sqrtf(x); }, [](double x) { return sqrt(x); });
}

}  // namespace kernels
}  // namespace etmcu
