// aten::mean.out (mean.dim): sum over the given dims (None or [] = all) divided by the count,
// in float for f32 (double for f64); out must be floating; any dim order.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/reduce.h"

namespace etmcu {
namespace kernels {

// mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//          Tensor(a!) out) -> out
Error aten_mean_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 6 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !(args[1]->is_none() || util::is_int_list_arg(args, 1)) || !util::is_bool_arg(args, 2) ||
      args[3] == nullptr || !(args[3]->is_none() || args[3]->is_int()) ||
      !util::is_valid_tensor_arg(args, 4) || !util::is_return_of(args, 5, 4))
    return ctx.fail(Error::InvalidArgument,
                    "mean.out: expected (self, dim?, keepdim, dtype?, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 4);
  const bool keepdim = args[2]->to_bool();
  if (!util::is_supported_dtype(in.dtype) || !util::is_float_compute(out.dtype))
    return ctx.fail(Error::InvalidType, "mean.out: out must be float");
  if (args[3]->is_int() && args[3]->to_int() != static_cast<int64_t>(out.dtype))
    return ctx.fail(Error::InvalidType, "mean.out: dtype arg != out dtype");
  if (args[3]->is_none() && !util::is_floating(in.dtype))
    return ctx.fail(Error::InvalidType, "mean.out: integer input needs a float dtype arg");
  uint32_t mask;
  if (!util::reduction_mask(*args[1], in, &mask))
    return ctx.fail(Error::InvalidArgument, "mean.out: bad dim list");
  if (!util::is_reduced_shape(in, mask, keepdim, out))
    return ctx.fail(Error::InvalidArgument, "mean.out: out shape mismatch");
  if (out.dtype == ScalarType::Double) {
    if constexpr (util::kF64)
      util::reduce_sum<double>(in, mask, keepdim, out, [&](size_t i, double acc, size_t n) {
        util::store_as<double>(out.data, out.dtype, i, acc / static_cast<double>(n));
      });
  } else {
    util::reduce_sum<float>(in, mask, keepdim, out, [&](size_t i, float acc, size_t n) {
      util::store_as<float>(out.data, out.dtype, i, acc / static_cast<float>(n));
    });
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
