// cortex_m::quantized_mul.out: int8 elementwise multiply (arm_elementwise_mul_s8): the product of
// the offset inputs requantized once, plus the output zero point, clamped to int8.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/elementwise_util.h"

namespace etmcu {
namespace kernels {

// quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out)
// Same shapes (any common layout), or one [1,C,1,1] operand broadcast over a channels-last one.
Error cortex_m_quantized_mul_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 9)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_mul.out: expected 7 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_int(args, 1) || !is_tensor(args, 2) || !is_int(args, 3) ||
      !is_int(args, 4) || !is_int(args, 5) || !is_int(args, 6) || !is_tensor(args, 7) ||
      !is_return_of(args, 8, 7))
    return ctx.fail(
        Error::InvalidArgument,
        "cortex_m::quantized_mul.out: expected (self, self_zp, other, other_zp, out_zp, "
        "out_mult, out_shift, out)");
  const Tensor& a = tensor(args, 0);
  const Tensor& b = tensor(args, 2);
  const Tensor& out = tensor(args, 7);
  if (a.dtype != ScalarType::Char || b.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::quantized_mul.out: tensors must be int8");
  PairPlan plan;
  if (!plan_same_or_channel(a, b, out, &plan))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_mul.out: operands must have out's shape and layout, or "
                    "one be [1,C,1,1] with a channels-last other");
  const int64_t zp1 = int_arg(args, 1), zp2 = int_arg(args, 3), zpo = int_arg(args, 4);
  if (!valid_requant(int_arg(args, 5), int_arg(args, 6)) || !in_range(zp1, -255, 255) ||
      !in_range(zp2, -255, 255) || !in_range(zpo, -255, 255))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_mul.out: zero points, multiplier (> INT32_MIN) or shift "
                    "([-31, 30]) out of range");
  const int32_t off1 = static_cast<int32_t>(-zp1), off2 = static_cast<int32_t>(-zp2);
  const int32_t mo = static_cast<int32_t>(int_arg(args, 5)),
                so = static_cast<int32_t>(int_arg(args, 6));
  const int32_t ooff = static_cast<int32_t>(zpo);
  const int8_t* pa = a.const_data_ptr<int8_t>();
  const int8_t* pb = b.const_data_ptr<int8_t>();
  int8_t* py = out.mutable_data_ptr<int8_t>();
  const size_t n = out.numel();
  for (size_t i = 0; i < n; ++i) {
    const int32_t prod = (pa[i % plan.a_mod] + off1) * (pb[i % plan.b_mod] + off2);
    py[i] = static_cast<int8_t>(
        cmsis::clamp(cmsis::wrap_add(cmsis::requantize(prod, mo, so), ooff), -128, 127));
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
