// aten::neg.out: out = -self. Real dtypes (not bool, as in PyTorch).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// neg.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_neg_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "neg.out: expected (self, out, out) tensors");
  return util::same_dtype_unary(ctx, *in, *out, false, [&](auto tag) {
    using T = decltype(tag);
    util::map_unary<T>(*in, *out, [](T x) {
      if constexpr (util::IsFloat<T>::value)
        return static_cast<T>(-x);  // keeps -0.0
      else
        return util::wrap_sub(static_cast<T>(0), x);  // -INT_MIN wraps
    });
  });
}

}  // namespace kernels
}  // namespace etmcu
