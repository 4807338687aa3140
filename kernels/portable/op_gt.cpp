// aten::gt.Scalar_out and gt.Tensor_out: out = (self > other), compared in the promoted dtype of
// self and other with broadcasting; out is bool (other dtypes receive 1/0).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/compare.h"

namespace etmcu {
namespace kernels {

// gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_gt_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kGt>(ctx, args, true);
}

// gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_gt_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kGt>(ctx, args, false);
}

}  // namespace kernels
}  // namespace etmcu
