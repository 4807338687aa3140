// aten::eq.Scalar_out: out = (self == other), compared in the promoted dtype of self and the
// scalar; out is bool (other dtypes receive 1/0).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/elementwise.h"

namespace etmcu {
namespace kernels {

// eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_eq_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "eq.Scalar_out: expected (self, other, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (!util::is_supported_dtype(in.dtype) || !util::is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "eq.Scalar_out: unsupported dtype");
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "eq.Scalar_out: shape mismatch");
  util::ScalarTensor other(*args[1]);
  const ScalarType common = util::result_type(in, other.t.dtype, true, true);
  if (common == ScalarType::Double) {
    if constexpr (util::kF64)
      util::map_binary<double>(in, other.t, out,
                               [](double x, double y) { return x == y ? 1.0 : 0.0; });
  } else if (common == ScalarType::Float) {
    util::map_binary<float>(in, other.t, out,
                            [](float x, float y) { return x == y ? 1.0f : 0.0f; });
  } else {
    util::map_binary<int64_t>(in, other.t, out,
                              [](int64_t x, int64_t y) { return static_cast<int64_t>(x == y); });
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
