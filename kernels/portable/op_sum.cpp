// aten::sum.IntList_out: sums over the given dims (None or [] = all), accumulating in out's
// dtype class (float for f32, like PyTorch's CPU kernel; int64 for integers); any dim order.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/reduce.h"

namespace etmcu {
namespace kernels {

// sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                 Tensor(a!) out) -> out
Error aten_sum_IntList_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 6 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !(args[1]->is_none() || util::is_int_list_arg(args, 1)) || !util::is_bool_arg(args, 2) ||
      args[3] == nullptr || !(args[3]->is_none() || args[3]->is_int()) ||
      !util::is_valid_tensor_arg(args, 4) || !util::is_return_of(args, 5, 4))
    return ctx.fail(Error::InvalidArgument,
                    "sum.IntList_out: expected (self, dim?, keepdim, dtype?, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 4);
  const bool keepdim = args[2]->to_bool();
  if (!util::is_supported_dtype(in.dtype) || !util::is_supported_dtype(out.dtype) ||
      out.dtype == ScalarType::Bool)
    return ctx.fail(Error::InvalidType, "sum.IntList_out: unsupported dtype");
  if (args[3]->is_int() && args[3]->to_int() != static_cast<int64_t>(out.dtype))
    return ctx.fail(Error::InvalidType, "sum.IntList_out: dtype arg != out dtype");
  if (!util::can_cast(in.dtype, out.dtype))
    return ctx.fail(Error::InvalidType, "sum.IntList_out: self dtype cannot be cast to out");
  uint32_t mask;
  if (!util::reduction_mask(*args[1], in, &mask))
    return ctx.fail(Error::InvalidArgument, "sum.IntList_out: bad dim list");
  if (!util::is_reduced_shape(in, mask, keepdim, out))
    return ctx.fail(Error::InvalidArgument, "sum.IntList_out: out shape mismatch");
  if (out.dtype == ScalarType::Double) {
    if constexpr (util::kF64)
      util::reduce_sum<double>(in, mask, keepdim, out, [&](size_t i, double acc, size_t) {
        util::store_as<double>(out.data, out.dtype, i, acc);
      });
  } else if (out.dtype == ScalarType::Float) {
    util::reduce_sum<float>(in, mask, keepdim, out, [&](size_t i, float acc, size_t) {
      util::store_as<float>(out.data, out.dtype, i, acc);
    });
  } else {
    util::reduce_sum<int64_t>(in, mask, keepdim, out, [&](size_t i, int64_t acc, size_t) {
      util::store_as<int64_t>(out.data, out.dtype, i, acc);
    });
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
