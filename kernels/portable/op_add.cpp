// aten::add.out and aten::add.Scalar_out: out = self + alpha * other, with PyTorch broadcasting
// and type promotion.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/binary_op.h"

namespace etmcu {
namespace kernels {

using util::BinaryKind;

// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> out
Error aten_add_out(KernelContext& ctx, Span<EValue*> args) {
  if (ETMCU_BAD_ARG(args.size() != 5))
    return ctx.fail(Error::InvalidArgument, "add.out: expected 5 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_valid_tensor_arg(args, 1) ||
      ETMCU_BAD_ARG(!util::is_scalar_arg(args, 2)) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument, "add.out: bad argument tags");
  return util::binary_op<BinaryKind::kAdd, false>(ctx, util::tensor_arg(args, 0),
                                                  util::tensor_arg(args, 1), args[2],
                                                  util::tensor_arg(args, 3));
}

// add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> out
Error aten_add_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  if (ETMCU_BAD_ARG(args.size() != 5))
    return ctx.fail(Error::InvalidArgument, "add.Scalar_out: expected 5 args");
  if (!util::is_valid_tensor_arg(args, 0) || !util::is_scalar_arg(args, 1) ||
      !util::is_scalar_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument, "add.Scalar_out: bad argument tags");
  util::ScalarTensor other(*args[1]);
  return util::binary_op<BinaryKind::kAdd, true>(ctx, util::tensor_arg(args, 0), other.t, args[2],
                                                 util::tensor_arg(args, 3));
}

}  // namespace kernels
}  // namespace etmcu
