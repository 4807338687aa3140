// aten::rsqrt.out: out = 1 / sqrt(self). Float result; integer and bool inputs are promoted to
// float.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// rsqrt.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_rsqrt_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "rsqrt.out: expected (self, out, out) tensors");
  return util::float_unary(
      ctx, *in, *out, [](float x) { return 1.0f / sqrtf(x); },
      [](double x) { return 1.0 / sqrt(x); });
}

}  // namespace kernels
}  // namespace etmcu
