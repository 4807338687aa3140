// aten::full.out: fills out (shape `size`) with fill_value converted to out's dtype.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> out
Error aten_full_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_int_list_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "full.out: expected (size, fill_value, out, out)");
  Span<const int64_t> size = args[0]->to_int_list();
  const Tensor& out = util::tensor_arg(args, 2);
  if (size.size() != out.dim) return ctx.fail(Error::InvalidArgument, "full.out: rank mismatch");
  for (size_t d = 0; d < size.size(); ++d)
    if (size[d] != out.sizes[d])
      return ctx.fail(Error::InvalidArgument, "full.out: shape mismatch");
  if (!util::is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "full.out: unsupported dtype");
  const EValue& v = *args[1];
  const size_t n = out.numel();
  if (v.is_double() || util::is_floating(out.dtype)) {
    const double x = v.scalar_as_double();
    for (size_t i = 0; i < n; ++i) util::store_as<double>(out.data, out.dtype, i, x);
  } else {
    const int64_t x = v.is_bool() ? (v.to_bool() ? 1 : 0) : v.to_int();
    for (size_t i = 0; i < n; ++i) util::store_as<int64_t>(out.data, out.dtype, i, x);
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
