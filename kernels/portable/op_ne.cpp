// aten::ne.Scalar_out and ne.Tensor_out: out = (self != other) (NaN != x is true), compared in the
// promoted dtype of self and other with broadcasting; out is bool (other dtypes receive 1/0).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/compare.h"

namespace etmcu {
namespace kernels {

// ne.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_ne_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kNe>(ctx, args, true);
}

// ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_ne_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kNe>(ctx, args, false);
}

}  // namespace kernels
}  // namespace etmcu
