// aten::div.out, div.out_mode and div.Scalar_out: true division (integers give float), or
// rounding_mode "trunc" / "floor" which keep integer dtypes like PyTorch.
#include <string.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/binary_op.h"

namespace etmcu {
namespace kernels {

using util::BinaryKind;

// div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_div_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return ctx.fail(Error::InvalidArgument, "div.out: expected 4 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_valid_tensor_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "div.out: bad argument tags");
  return util::binary_op<BinaryKind::kDiv, false>(ctx, util::tensor_arg(args, 0),
                                                  util::tensor_arg(args, 1), nullptr,
                                                  util::tensor_arg(args, 2));
}

// div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> out
Error aten_div_out_mode(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5) return ctx.fail(Error::InvalidArgument, "div.out_mode: expected 5 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_valid_tensor_arg(args, 1) ||
      args[2] == nullptr || !(args[2]->is_none() || args[2]->is_string()) ||
      !util::is_valid_tensor_arg(args, 3) || !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument, "div.out_mode: bad argument tags");
  const Tensor& a = util::tensor_arg(args, 0);
  const Tensor& b = util::tensor_arg(args, 1);
  const Tensor& out = util::tensor_arg(args, 3);
  if (args[2]->is_none()) return util::binary_op<BinaryKind::kDiv, false>(ctx, a, b, nullptr, out);
  Span<const char> mode = args[2]->to_string();
  if (mode.size() == 5 && mode.data() != nullptr && memcmp(mode.data(), "trunc", 5) == 0)
    return util::binary_op<BinaryKind::kDivTrunc, false>(ctx, a, b, nullptr, out);
  if (mode.size() == 5 && mode.data() != nullptr && memcmp(mode.data(), "floor", 5) == 0)
    return util::binary_op<BinaryKind::kDivFloor, false>(ctx, a, b, nullptr, out);
  return ctx.fail(Error::InvalidArgument, "div.out_mode: rounding_mode must be trunc or floor");
}

// div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_div_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return ctx.fail(Error::InvalidArgument, "div.Scalar_out: expected 4 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "div.Scalar_out: bad argument tags");
  util::ScalarTensor other(*args[1]);
  return util::binary_op<BinaryKind::kDiv, true>(ctx, util::tensor_arg(args, 0), other.t, nullptr,
                                                 util::tensor_arg(args, 2));
}

}  // namespace kernels
}  // namespace etmcu
