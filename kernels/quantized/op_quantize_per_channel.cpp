// quantized_decomposed::quantize_per_channel.out: float -> integer with one (scale, zero_point)
// pair per index along `axis`, rounding as quantize_per_tensor.
#include "kernels/quantized/quant_util.h"
#include "kernels/quantized/quantized_ops.h"

namespace etmcu {
namespace kernels {

// quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
//     int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
// scales f64 (or f32) [C], zero_points i64 (or i32) [C], C = input.sizes[axis]; any dim order.
Error quantized_decomposed_quantize_per_channel_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace quant;
  if (args.size() != 9 || !is_tensor(args, 0) || !is_tensor(args, 1) || !is_tensor(args, 2) ||
      !is_int(args, 3) || !is_int(args, 4) || !is_int(args, 5) || !is_int(args, 6) ||
      !is_tensor(args, 7) || !is_return_of(args, 8, 7))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_channel.out: expected (input, scales, "
                    "zero_points, axis, quant_min, quant_max, dtype, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& s = tensor(args, 1);
  const Tensor& z = tensor(args, 2);
  const Tensor& out = tensor(args, 7);
  int64_t axis = args[3]->to_int();
  const int64_t qmin = args[4]->to_int(), qmax = args[5]->to_int(), dtype = args[6]->to_int();
  int64_t lo, hi;
  if (in.dtype != ScalarType::Float && in.dtype != ScalarType::Double)
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::quantize_per_channel.out: input must be float");
  if (static_cast<int64_t>(out.dtype) != dtype || !quant_range(out.dtype, &lo, &hi))
    return ctx.fail(Error::InvalidType,
                    "quantized_decomposed::quantize_per_channel.out: out dtype must equal dtype "
                    "(uint8, int8, int16, uint16 or int32)");
  if (qmin < lo || qmax > hi || qmin > qmax)
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_channel.out: quant_min/quant_max outside "
                    "dtype");
  if (axis < 0) axis += in.dim;
  if (in.dim == 0 || axis < 0 || axis >= in.dim || !in.same_shape(out))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_channel.out: bad axis or out shape");
  const size_t c = static_cast<size_t>(in.sizes[axis]);
  if (s.numel() != c || z.numel() != c ||
      (s.dtype != ScalarType::Double && s.dtype != ScalarType::Float) ||
      (z.dtype != ScalarType::Long && z.dtype != ScalarType::Int))
    return ctx.fail(Error::InvalidArgument,
                    "quantized_decomposed::quantize_per_channel.out: scales f64[C] and "
                    "zero_points i64[C] must match input.sizes[axis]");
  walk2(in, out, static_cast<int>(axis), [&](size_t oi, size_t oo, int32_t ch) {
    const double sc = s.dtype == ScalarType::Double ? s.const_data_ptr<double>()[ch]
                                                    : s.const_data_ptr<float>()[ch];
    const float inv_scale = 1.0f / static_cast<float>(sc);
    store_int(out.data, out.dtype, oo,
              quantize_one(scaled_input(in.data, in.dtype, oi, inv_scale),
                           load_int(z.data, z.dtype, static_cast<size_t>(ch)), qmin, qmax));
  });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
