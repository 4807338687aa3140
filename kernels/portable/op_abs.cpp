// aten::abs.out: |self| for f32/f64 and integers (INT_MIN wraps like PyTorch); bool rejected.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// abs.out(Tensor self, *, Tensor(a!) out) -> out
Error aten_abs_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor *in, *out;
  if (!util::unary_args(args, &in, &out))
    return ctx.fail(Error::InvalidArgument, "abs.out: expected (self, out, out) tensors");
  return util::same_dtype_unary(ctx, *in, *out, false, [&](auto tag) {
    using T = decltype(tag);
    util::map_unary<T>(*in, *out, [](T x) {
      if constexpr (util::IsFloat<T>::value)
        return x < static_cast<T>(0) ? -x : x + static_cast<T>(0);
      else
        return x < static_cast<T>(0) ? util::wrap_sub(static_cast<T>(0), x) : x;
    });
  });
}

}  // namespace kernels
}  // namespace etmcu
