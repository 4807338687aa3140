// cortex_m::minimum.out: int8 elementwise min with numpy broadcasting up to 4-D (arm_minimum_s8),
// contiguous operands; same-shape operands may share any layout.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/elementwise_util.h"

namespace etmcu {
namespace kernels {

// minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
Error cortex_m_minimum_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 4)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::minimum.out: expected 2 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_tensor(args, 1) || !is_tensor(args, 2) ||
      !is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "cortex_m::minimum.out: expected (self, other, out)");
  const Tensor& a = tensor(args, 0);
  const Tensor& b = tensor(args, 1);
  const Tensor& out = tensor(args, 2);
  if (a.dtype != ScalarType::Char || b.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::minimum.out: tensors must be int8");
  const int8_t* pa = a.const_data_ptr<int8_t>();
  const int8_t* pb = b.const_data_ptr<int8_t>();
  int8_t* py = out.mutable_data_ptr<int8_t>();
  if (same_layout(a, b) && same_layout(a, out)) {
    const size_t n = out.numel();
    for (size_t i = 0; i < n; ++i) py[i] = pa[i] < pb[i] ? pa[i] : pb[i];
    return Error::Ok;
  }
  Bcast4 bc;
  if (!make_bcast4(a, b, out, &bc))
    return ctx.fail(
        Error::InvalidArgument,
        "cortex_m::minimum.out: operands must broadcast to out (contiguous, rank <= 4)");
  for_each_bcast4(
      bc, [&](size_t o, size_t ia, size_t ib) { py[o] = pa[ia] < pb[ib] ? pa[ia] : pb[ib]; });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
