// quantized_decomposed::dequantize_per_channel.out: integer -> float32 with one (scale, zero_point)
// pair per index along `axis`: out = float(q - zp[c]) * float(scale[c]); zero_points may be None.
#include "kernels/quantized/quant_util.h"
#include "kernels/quantized/quantized_ops.h"

namespace etmcu {
namespace kernels {

// dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis,
//     int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
//     Tensor(a!) out) -> Tensor(a!)
Error quantized_decomposed_dequantize_per_channel_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace quant;
  if (args.size() != 10 || !is_tensor(args, 0) || !is_tensor(args, 1) ||
      !(is_tensor(args, 2) || is_none(args, 2)) || !is_int(args, 3) || !is_int(args, 4) ||
      !is_int(args, 5) || !is_int(args, 6) || args[7] == nullptr || !is_tensor(args, 8) ||
      !is_return_of(args, 9, 8))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_channel.out: expected (input, scales, "
                    "zero_points?, axis, quant_min, quant_max, dtype, out_dtype?, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& s = tensor(args, 1);
  const Tensor* z = args[2]->is_none() ? nullptr : &tensor(args, 2);
  const Tensor& out = tensor(args, 8);
  int64_t axis = args[3]->to_int();
  const int64_t qmin = args[4]->to_int(), qmax = args[5]->to_int(), dtype = args[6]->to_int();
  int64_t lo, hi;
  if (static_cast<int64_t>(in.dtype) != dtype || !quant_range(in.dtype, &lo, &hi))
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::dequantize_per_channel.out: input dtype must equal "
                    "dtype (uint8, int8, int16, uint16 or int32)");
  if (!args[7]->is_none() &&
      !(args[7]->is_int() && args[7]->to_int() == static_cast<int64_t>(ScalarType::Float)))
    return ctx.fail(Error::NotSupported,
                    "quantized_decomposed::dequantize_per_channel.out: only out_dtype None or "
                    "float32");
  if (out.dtype != ScalarType::Float)
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::dequantize_per_channel.out: out must be float32");
  if (qmin < lo || qmax > hi || qmin > qmax)
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_channel.out: quant_min/quant_max "
                    "outside dtype");
  if (axis < 0) axis += in.dim;
  if (in.dim == 0 || axis < 0 || axis >= in.dim || !in.same_shape(out))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_channel.out: bad axis or out shape");
  const size_t c = static_cast<size_t>(in.sizes[axis]);
  if (s.numel() != c || (s.dtype != ScalarType::Double && s.dtype != ScalarType::Float) ||
      (z != nullptr &&
       (z->numel() != c || (z->dtype != ScalarType::Long && z->dtype != ScalarType::Int))))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::dequantize_per_channel.out: scales f64[C] and "
                    "zero_points i64[C] must match input.sizes[axis]");
  float* y = out.mutable_data_ptr<float>();
  walk2(in, out, static_cast<int>(axis), [&](size_t oi, size_t oo, int32_t ch) {
    const float sc = s.dtype == ScalarType::Double
                         ? static_cast<float>(s.const_data_ptr<double>()[ch])
                         : s.const_data_ptr<float>()[ch];
    const int32_t zp =
        z != nullptr ? static_cast<int32_t>(load_int(z->data, z->dtype, static_cast<size_t>(ch)))
                     : 0;
    y[oo] = static_cast<float>(static_cast<int32_t>(load_int(in.data, in.dtype, oi)) - zp) * sc;
  });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
