// aten::leaky_relu.out: out = self > 0 ? self : self * negative_slope (f32/f64, as in PyTorch).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> out
Error aten_leaky_relu_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "leaky_relu.out: expected (self, slope, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (!util::is_float_compute(in.dtype))
    return ctx.fail(Error::InvalidType, "leaky_relu.out: float input required");
  const double slope = args[1]->scalar_as_double();
  return util::same_dtype_unary(ctx, in, out, false, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (util::IsFloat<T>::value) {
      const T s = static_cast<T>(slope);
      util::map_unary<T>(in, out, [s](T x) { return x > static_cast<T>(0) ? x : x * s; });
    }
  });
}

}  // namespace kernels
}  // namespace etmcu
