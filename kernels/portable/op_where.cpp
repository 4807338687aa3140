// aten::where.self_out: out = condition ? self : other, all three broadcast together; self/other
// promote like PyTorch; condition is bool (or uint8).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/elementwise.h"

namespace etmcu {
namespace kernels {

namespace {
template <typename C>
void where_loop(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  const Tensor* ins[3] = {&cond, &a, &b};
  util::StridedIter it(out, ins, 3);
  const size_t n = out.numel();
  const uint8_t* c = static_cast<const uint8_t*>(cond.data);  // bool and uint8 are both 1 byte
  for (size_t i = 0; i < n; ++i, it.next()) {
    C v = c[it.offset(0)] ? util::load_as<C>(a.data, a.dtype, it.offset(1))
                          : util::load_as<C>(b.data, b.dtype, it.offset(2));
    util::store_as<C>(out.data, out.dtype, i, v);
  }
}
}  // namespace

// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_where_self_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_valid_tensor_arg(args, 1) || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_valid_tensor_arg(args, 3) || !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "where.self_out: expected (cond, self, other, out, out)");
  const Tensor& cond = util::tensor_arg(args, 0);
  const Tensor& a = util::tensor_arg(args, 1);
  const Tensor& b = util::tensor_arg(args, 2);
  const Tensor& out = util::tensor_arg(args, 3);
  if (cond.dtype != ScalarType::Bool && cond.dtype != ScalarType::Byte)
    return ctx.fail(Error::InvalidType, "where.self_out: condition must be bool");
  if (!util::is_supported_dtype(a.dtype) || !util::is_supported_dtype(b.dtype) ||
      !util::is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "where.self_out: unsupported dtype");
  const Tensor* ins[3] = {&cond, &a, &b};
  if (!util::is_broadcast_shape(out, ins, 3))
    return ctx.fail(Error::InvalidArgument, "where.self_out: out shape is not the broadcast shape");
  const Tensor* vals[2] = {&a, &b};
  const ScalarType common = util::result_type3(vals, 2);
  if (!util::can_cast(common, out.dtype))
    return ctx.fail(Error::InvalidType, "where.self_out: result dtype cannot be cast to out");
  if (common == ScalarType::Float) {
    where_loop<float>(cond, a, b, out);
  } else if (common == ScalarType::Double) {
    if constexpr (util::kF64) where_loop<double>(cond, a, b, out);
  } else
    where_loop<int64_t>(cond, a, b, out);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
