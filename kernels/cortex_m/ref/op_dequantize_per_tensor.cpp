// cortex_m::dequantize_per_tensor.out: int8/int16 -> f32 as one float32 multiply,
// out = float(q - zero_point) * float(scale).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {

namespace {
template <typename Q>
void dequantize(const Q* q, float* y, size_t n, float scale, int32_t zp) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(q[i]) - zp) * scale;
}
}  // namespace

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int
// quant_max,
//                           ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
Error cortex_m_dequantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 8)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: expected 6 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_float(args, 1) || !is_int(args, 2) || !is_int(args, 3) ||
      !is_int(args, 4) || !is_int(args, 5) || !is_tensor(args, 6) || !is_return_of(args, 7, 6))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: expected (input, scale, zero_point, "
                    "quant_min, quant_max, dtype, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 6);
  const int64_t dtype = int_arg(args, 5);
  if ((dtype != static_cast<int64_t>(ScalarType::Char) &&
       dtype != static_cast<int64_t>(ScalarType::Short)) ||
      static_cast<int64_t>(in.dtype) != dtype)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::dequantize_per_tensor.out: dtype must be int8 or int16 and match "
                    "input");
  if (out.dtype != ScalarType::Float)
    return ctx.fail(Error::InvalidType, "cortex_m::dequantize_per_tensor.out: out must be float32");
  if (!same_layout(in, out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: out must have input's shape and layout");
  const bool i8 = in.dtype == ScalarType::Char;
  const int64_t lo = i8 ? -128 : -32768, hi = i8 ? 127 : 32767;
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4), zp = int_arg(args, 2);
  if (qmin < lo || qmax > hi || zp < qmin || zp > qmax)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: need quant_min <= zero_point <= "
                    "quant_max within the dtype");
  const float scale = static_cast<float>(float_arg(args, 1));
  if (i8)
    dequantize(in.const_data_ptr<int8_t>(), out.mutable_data_ptr<float>(), in.numel(), scale,
               static_cast<int32_t>(zp));
  else
    dequantize(in.const_data_ptr<int16_t>(), out.mutable_data_ptr<float>(), in.numel(), scale,
               static_cast<int32_t>(zp));
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
