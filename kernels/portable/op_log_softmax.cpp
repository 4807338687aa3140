// aten::_log_softmax.out: log-softmax along `dim` (max-subtracted, float math for f32); any dim
// order.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/softmax.h"

namespace etmcu {
namespace kernels {

// _log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> out
Error aten__log_softmax_out(KernelContext& ctx, Span<EValue*> args) {
  return util::softmax_common(ctx, args, true);
}

}  // namespace kernels
}  // namespace etmcu
