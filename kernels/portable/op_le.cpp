// aten::le.Scalar_out and le.Tensor_out: out = (self <= other), compared in the promoted dtype of
// self and other with broadcasting; out is bool (other dtypes receive 1/0).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/compare.h"

namespace etmcu {
namespace kernels {

// le.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_le_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kLe>(ctx, args, true);
}

// le.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_le_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kLe>(ctx, args, false);
}

}  // namespace kernels
}  // namespace etmcu
