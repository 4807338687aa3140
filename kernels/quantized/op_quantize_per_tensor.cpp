// quantized_decomposed::quantize_per_tensor.out / .Tensor_out: float -> u8/i8/i16/u16/i32,
// q = clamp(zero_point + nearbyint(x * (1.0f / float(scale))), quant_min, quant_max).
#include "kernels/quantized/quant_util.h"
#include "kernels/quantized/quantized_ops.h"

namespace etmcu {
namespace kernels {

namespace {
Error quantize(KernelContext& ctx, const Tensor& in, double scale, int64_t zp, int64_t qmin,
               int64_t qmax, int64_t dtype, const Tensor& out) {
  int64_t lo, hi;
  if (in.dtype != ScalarType::Float && in.dtype != ScalarType::Double)
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::quantize_per_tensor: input must be float32 or float64");
  if (static_cast<int64_t>(out.dtype) != dtype || !quant::quant_range(out.dtype, &lo, &hi))
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::quantize_per_tensor: out dtype must equal dtype "
                    "(uint8, int8, int16, uint16 or int32)");
  if (qmin < lo || qmax > hi || qmin > qmax)
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_tensor: quant_min/quant_max outside dtype");
  if (!in.same_shape(out))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_tensor: out must have input's shape");
  if (zp < INT32_MIN || zp > INT32_MAX)
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_tensor: zero_point outside int32");
  const float inv_scale = 1.0f / static_cast<float>(scale);
  quant::walk2(in, out, -1, [&](size_t oi, size_t oo, int32_t) {
    quant::store_int(
        out.data, out.dtype, oo,
        quant::quantize_one(quant::scaled_input(in.data, in.dtype, oi, inv_scale), zp, qmin, qmax));
  });
  return Error::Ok;
}
}  // namespace

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//     int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
Error quantized_decomposed_quantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace quant;
  if (args.size() != 8 || !is_tensor(args, 0) || !is_float(args, 1) || !is_int(args, 2) ||
      !is_int(args, 3) || !is_int(args, 4) || !is_int(args, 5) || !is_tensor(args, 6) ||
      !is_return_of(args, 7, 6))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_tensor.out: expected (input, scale, "
                    "zero_point, quant_min, quant_max, dtype, out)");
  return quantize(ctx, tensor(args, 0), args[1]->scalar_as_double(), args[2]->to_int(),
                  args[3]->to_int(), args[4]->to_int(), args[5]->to_int(), tensor(args, 6));
}

// quantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min,
//     int quant_max, ScalarType dtype, *, Tensor(a!) out): scale f64/f32[1], zero_point i64/i32[1].
Error quantized_decomposed_quantize_per_tensor_Tensor_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace quant;
  if (args.size() != 8 || !is_tensor(args, 0) || !is_tensor(args, 1) || !is_tensor(args, 2) ||
      !is_int(args, 3) || !is_int(args, 4) || !is_int(args, 5) || !is_tensor(args, 6) ||
      !is_return_of(args, 7, 6))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_tensor.Tensor_out: expected (input, scale "
                    "tensor, zero_point tensor, quant_min, quant_max, dtype, out)");
  const Tensor& s = tensor(args, 1);
  const Tensor& z = tensor(args, 2);
  if (s.numel() != 1 || z.numel() != 1 ||
      (s.dtype != ScalarType::Double && s.dtype != ScalarType::Float) ||
      (z.dtype != ScalarType::Long && z.dtype != ScalarType::Int))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_tensor.Tensor_out: scale must be one f64 "
                    "(or f32) and zero_point one i64 (or i32)");
  const double scale =
      s.dtype == ScalarType::Double ? s.const_data_ptr<double>()[0] : s.const_data_ptr<float>()[0];
  return quantize(ctx, tensor(args, 0), scale, load_int(z.data, z.dtype, 0), args[3]->to_int(),
                  args[4]->to_int(), args[5]->to_int(), tensor(args, 6));
}

}  // namespace kernels
}  // namespace etmcu
