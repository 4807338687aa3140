// cortex_m::quantized_div.out: int8/int16 elementwise divide in float32 (no CMSIS-NN path):
// round((a - zp_a) / (b - zp_b) * output_scale) + out_zp, saturated; 0 quotient for a 0 divisor.
#include <math.h>

#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {

namespace {
template <typename T>
void divide(const T* a, const T* b, T* y, size_t n, int32_t zp1, int32_t zp2, int32_t zpo,
            float scale, float lo, float hi) {
  for (size_t i = 0; i < n; ++i) {
    const int32_t num = static_cast<int32_t>(a[i]) - zp1;
    const int32_t den = static_cast<int32_t>(b[i]) - zp2;
    const float q = den != 0 ? static_cast<float>(num) / static_cast<float>(den) : 0.0f;
    const float r = roundf(q * scale) + static_cast<float>(zpo);
    const float m = r < hi ? r : hi;  // std::max(lo, std::min(hi, r)): NaN becomes hi
    y[i] = static_cast<T>(lo < m ? m : lo);
  }
}
}  // namespace

// quantized_div.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
//     int output_zero_point, float output_scale, *, Tensor(a!) out) -> Tensor(a!)
// All three tensors int8 (or all int16), same shape and layout.
Error cortex_m_quantized_div_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 8)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_div.out: expected 6 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_int(args, 1) || !is_tensor(args, 2) || !is_int(args, 3) ||
      !is_int(args, 4) || !is_float(args, 5) || !is_tensor(args, 6) || !is_return_of(args, 7, 6))
    return ctx.fail(
        Error::InvalidArgument,
        "cortex_m::quantized_div.out: expected (self, self_zp, other, other_zp, out_zp, "
        "output_scale, out)");
  const Tensor& a = tensor(args, 0);
  const Tensor& b = tensor(args, 2);
  const Tensor& out = tensor(args, 6);
  const ScalarType t = out.dtype;
  if ((t != ScalarType::Char && t != ScalarType::Short) || a.dtype != t || b.dtype != t)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantized_div.out: tensors must be all int8 or all int16");
  if (!same_layout(a, b) || !same_layout(a, out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_div.out: operands must have out's shape and layout");
  const int64_t zp1 = int_arg(args, 1), zp2 = int_arg(args, 3), zpo = int_arg(args, 4);
  if (!in_range(zp1, -65535, 65535) || !in_range(zp2, -65535, 65535) ||
      !in_range(zpo, -65535, 65535))
    return ctx.fail(Error::InvalidArgument, "cortex_m::quantized_div.out: zero point out of range");
  const float scale = static_cast<float>(float_arg(args, 5));
  const size_t n = out.numel();
  if (t == ScalarType::Char)
    divide(a.const_data_ptr<int8_t>(), b.const_data_ptr<int8_t>(), out.mutable_data_ptr<int8_t>(),
           n, static_cast<int32_t>(zp1), static_cast<int32_t>(zp2), static_cast<int32_t>(zpo),
           scale, -128.0f, 127.0f);
  else
    divide(a.const_data_ptr<int16_t>(), b.const_data_ptr<int16_t>(),
           out.mutable_data_ptr<int16_t>(), n, static_cast<int32_t>(zp1), static_cast<int32_t>(zp2),
           static_cast<int32_t>(zpo), scale, -32768.0f, 32767.0f);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
