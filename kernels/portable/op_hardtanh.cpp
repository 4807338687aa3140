// aten::hardtanh.out: out = min(max(self, min_val), max_val). Real dtypes except bool.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> out
Error aten_hardtanh_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_scalar_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument, "hardtanh.out: expected (self, min, max, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  const double lo = args[1]->scalar_as_double();
  const double hi = args[2]->scalar_as_double();
  return util::same_dtype_unary(ctx, in, out, false, [&](auto tag) {
    using T = decltype(tag);
    const T tlo = util::saturate_cast<T>(lo), thi = util::saturate_cast<T>(hi);
    util::map_unary<T>(in, out, [tlo, thi](T x) {
      if (x < tlo) x = tlo;  // NaN compares false and passes through
      if (x > thi) x = thi;
      return x;
    });
  });
}

}  // namespace kernels
}  // namespace etmcu
