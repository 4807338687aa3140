// aten::log.out: out = log(self) via logf. Float result; integer and bool inputs are promoted to
// float.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// log.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_log_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "log.out: expected (self, out, out) tensors");
  return util::float_unary(
      ctx, *in, *out, [](float x) { return logf(x); }, [](double x) { return log(x); });
}

}  // namespace kernels
}  // namespace etmcu
