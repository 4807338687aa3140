// aten::mul.out and aten::mul.Scalar_out: out = self * other, with PyTorch broadcasting and type
// promotion (bool * bool is logical and).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/binary_op.h"

namespace etmcu {
namespace kernels {

using util::BinaryKind;

// mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_mul_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return ctx.fail(Error::InvalidArgument, "mul.out: expected 4 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_valid_tensor_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "mul.out: bad argument tags");
  return util::binary_op<BinaryKind::kMul, false>(ctx, util::tensor_arg(args, 0),
                                                  util::tensor_arg(args, 1), nullptr,
                                                  util::tensor_arg(args, 2));
}

// mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_mul_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return ctx.fail(Error::InvalidArgument, "mul.Scalar_out: expected 4 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "mul.Scalar_out: bad argument tags");
  util::ScalarTensor other(*args[1]);
  return util::binary_op<BinaryKind::kMul, true>(ctx, util::tensor_arg(args, 0), other.t, nullptr,
                                                 util::tensor_arg(args, 2));
}

}  // namespace kernels
}  // namespace etmcu
