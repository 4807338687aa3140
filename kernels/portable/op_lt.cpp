// aten::lt.Scalar_out and lt.Tensor_out: out = (self < other), compared in the promoted dtype of
// self and other with broadcasting; out is bool (other dtypes receive 1/0).
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/compare.h"

namespace etmcu {
namespace kernels {

// lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> out
Error aten_lt_Scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kLt>(ctx, args, true);
}

// lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> out
Error aten_lt_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return util::compare_kernel<util::CmpKind::kLt>(ctx, args, false);
}

}  // namespace kernels
}  // namespace etmcu
