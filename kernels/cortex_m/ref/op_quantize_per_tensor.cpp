// cortex_m::quantize_per_tensor.out: f32 -> int8/int16 with one float32 multiply by the float32
// reciprocal of the scale, rounded to nearest even, plus the zero point, clamped to [qmin, qmax].
#include <math.h>

#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {

namespace {
template <typename Q>
void quantize(const float* x, Q* q, size_t n, float inv_scale, int32_t zp, int32_t qmin,
              int32_t qmax) {
  for (size_t i = 0; i < n; ++i) {
    const float r = nearbyintf(inv_scale * x[i]);
    int64_t v;
    if (r >= 1073741824.0f) {
      v = qmax;
    } else if (r <= -1073741824.0f || r != r) {  // very negative, or NaN
      v = r != r ? zp : qmin;
    } else {
      v = static_cast<int64_t>(zp) + static_cast<int32_t>(r);
    }
    q[i] = static_cast<Q>(v < qmin ? qmin : (v > qmax ? qmax : v));
  }
}
}  // namespace

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max,
//                         ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
Error cortex_m_quantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 8)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: expected 6 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_float(args, 1) || !is_int(args, 2) || !is_int(args, 3) ||
      !is_int(args, 4) || !is_int(args, 5) || !is_tensor(args, 6) || !is_return_of(args, 7, 6))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: expected (input, scale, zero_point, "
                    "quant_min, quant_max, dtype, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 6);
  const int64_t dtype = int_arg(args, 5);
  if (in.dtype != ScalarType::Float)
    return ctx.fail(Error::InvalidType, "cortex_m::quantize_per_tensor.out: input must be float32");
  if ((dtype != static_cast<int64_t>(ScalarType::Char) &&
       dtype != static_cast<int64_t>(ScalarType::Short)) ||
      static_cast<int64_t>(out.dtype) != dtype)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantize_per_tensor.out: dtype must be int8 or int16 and match out");
  if (!same_layout(in, out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: out must have input's shape and layout");
  const bool i8 = out.dtype == ScalarType::Char;
  const int64_t lo = i8 ? -128 : -32768, hi = i8 ? 127 : 32767;
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4), zp = int_arg(args, 2);
  if (qmin < lo || qmax > hi || qmin > qmax || !fits_i32(zp))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: quant_min/quant_max outside the dtype");
  const float scale = static_cast<float>(float_arg(args, 1));
  const float inv_scale = 1.0f / scale;
  const size_t n = in.numel();
  if (i8)
    quantize(in.const_data_ptr<float>(), out.mutable_data_ptr<int8_t>(), n, inv_scale,
             static_cast<int32_t>(zp), static_cast<int32_t>(qmin), static_cast<int32_t>(qmax));
  else
    quantize(in.const_data_ptr<float>(), out.mutable_data_ptr<int16_t>(), n, inv_scale,
             static_cast<int32_t>(zp), static_cast<int32_t>(qmin), static_cast<int32_t>(qmax));
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
