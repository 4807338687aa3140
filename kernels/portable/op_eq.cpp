// aten::eq.Scalar_out and eq.Tensor_out: out = (self == other), compared in the promoted dtype of
// self and other with broadcasting; out is bool (other dtypes receive 1/0).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/compare.h"

namespace etmcu {
namespace kernels {

// eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_eq_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kEq>(ctx, args, true);
}

// eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_eq_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kEq>(ctx, args, false);
}

}  // namespace kernels
}  // namespace etmcu
