// quantized_decomposed::dequantize_per_tensor.out / .Tensor_out: u8/i8/i16/u16/i32 -> float32,
// out = float(q - zero_point) * float(scale) (one float32 multiply).
#include "kernels/quantized/quant_util.h"
#include "kernels/quantized/quantized_ops.h"

namespace etmcu {
namespace kernels {

namespace {
Error dequantize(KernelContext& ctx, Span<EValue*> args, const Tensor& in, double scale,
                 int64_t zp) {
  using namespace quant;
  // args: input, scale, zero_point, quant_min, quant_max, dtype, out_dtype?, out, out
  int64_t lo, hi;
  const int64_t qmin = args[3]->to_int(), qmax = args[4]->to_int(), dtype = args[5]->to_int();
  const Tensor& out = tensor(args, 7);
  if (static_cast<int64_t>(in.dtype) != dtype || !quant_range(in.dtype, &lo, &hi))
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::dequantize_per_tensor: input dtype must equal dtype "
                    "(uint8, int8, int16, uint16 or int32)");
  if (!args[6]->is_none() &&
      !(args[6]->is_int() && args[6]->to_int() == static_cast<int64_t>(ScalarType::Float)))
    return ctx.fail(Error::NotSupported,
                    "quantized_decomposed::dequantize_per_tensor: only out_dtype None or float32");
  if (out.dtype != ScalarType::Float)
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::dequantize_per_tensor: out must be float32");
  if (qmin < lo || qmax > hi || qmin > qmax)
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_tensor: quant_min/quant_max outside "
                    "dtype");
  if (!in.same_shape(out))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_tensor: out must have input's shape");
  if (zp < INT32_MIN || zp > INT32_MAX)
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_tensor: zero_point outside int32");
  const float s = static_cast<float>(scale);
  const int32_t z = static_cast<int32_t>(zp);
  float* y = out.mutable_data_ptr<float>();
  walk2(in, out, -1, [&](size_t oi, size_t oo, int32_t) {
    y[oo] = static_cast<float>(static_cast<int32_t>(load_int(in.data, in.dtype, oi)) - z) * s;
  });
  return Error::Ok;
}
}  // namespace

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//     int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
Error quantized_decomposed_dequantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace quant;
  if (args.size() != 9 || !is_tensor(args, 0) || !is_float(args, 1) || !is_int(args, 2) ||
      !is_int(args, 3) || !is_int(args, 4) || !is_int(args, 5) || args[6] == nullptr ||
      !is_tensor(args, 7) || !is_return_of(args, 8, 7))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_tensor.out: expected (input, scale, "
                    "zero_point, quant_min, quant_max, dtype, out_dtype?, out)");
  return dequantize(ctx, args, tensor(args, 0), args[1]->scalar_as_double(), args[2]->to_int());
}

// dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min,
//     int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
Error quantized_decomposed_dequantize_per_tensor_Tensor_out(KernelContext& ctx,
                                                            Span<EValue*> args) {
  using namespace quant;
  if (args.size() != 9 || !is_tensor(args, 0) || !is_tensor(args, 1) || !is_tensor(args, 2) ||
      !is_int(args, 3) || !is_int(args, 4) || !is_int(args, 5) || args[6] == nullptr ||
      !is_tensor(args, 7) || !is_return_of(args, 8, 7))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_tensor.Tensor_out: expected (input, "
                    "scale tensor, zero_point tensor, quant_min, quant_max, dtype, out_dtype?, "
                    "out)");
  const Tensor& s = tensor(args, 1);
  const Tensor& z = tensor(args, 2);
  if (s.numel() != 1 || z.numel() != 1 ||
      (s.dtype != ScalarType::Double && s.dtype != ScalarType::Float) ||
      (z.dtype != ScalarType::Long && z.dtype != ScalarType::Int))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_tensor.Tensor_out: scale must be one "
                    "f64 (or f32) and zero_point one i64 (or i32)");
  const double scale =
      s.dtype == ScalarType::Double ? s.const_data_ptr<double>()[0] : s.const_data_ptr<float>()[0];
  return dequantize(ctx, args, tensor(args, 0), scale, load_int(z.data, z.dtype, 0));
}

}  // namespace kernels
}  // namespace etmcu
