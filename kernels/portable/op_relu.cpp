// aten::relu.out: out = max(self, 0); NaN stays NaN. Real dtypes (not bool).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// relu.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_relu_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "relu.out: expected (self, out, out) tensors");
  return util::same_dtype_unary(ctx, *in, *out, false, [&](auto tag) {
    using T = decltype(tag);
    util::map_unary<T>(*in, *out,
                       [](T x) { return x < static_cast<T>(0) ? static_cast<T>(0) : x; });
  });
}

}  // namespace kernels
}  // namespace etmcu
