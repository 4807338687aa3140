// cortex_m::quantized_transpose_conv2d.out: int8 NHWC transposed convolution with per-channel
// requantization (arm_transpose_conv_wrapper_s8): out[o] gathers in[i] where i*stride + k = o +
// pad.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"

namespace etmcu {
namespace kernels {

// quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] output_padding, int[] dilation, int input_offset, int output_offset,
//     Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min,
//     int activation_max, Tensor scratch, Tensor output_scratch, *, Tensor(a!) out)
// input [N,Cin,H,W] int8 channels-last; weight [Cout, kH, kW, Cin] int8; bias [Cout] int32 or
// None; out H = (H-1)*stride - 2*pad + kH + output_padding. Dilation must be 1. Both scratch
// tensors uint8 (unused here).
Error cortex_m_quantized_transpose_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 17)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: expected 15 arguments + out (+ "
                    "return)");
  Pair stride, pad, opad, dil;
  if (!is_tensor(args, 0) || !is_tensor(args, 1) || !is_optional_tensor(args, 2) ||
      !read_pair(args, 3, 1, 65535, &stride) || !read_pair(args, 4, 0, 65535, &pad) ||
      !read_pair(args, 5, 0, 65535, &opad) || !read_pair(args, 6, 1, 65535, &dil) ||
      !is_int(args, 7) || !is_int(args, 8) || !is_tensor(args, 9) || !is_tensor(args, 10) ||
      !is_int(args, 11) || !is_int(args, 12) || !is_scratch(args, 13) || !is_scratch(args, 14) ||
      !is_tensor(args, 15) || !is_return_of(args, 16, 15))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: expected (input, weight, bias?, "
                    "stride[2]>0, padding[2], output_padding[2], dilation[2], input_offset, "
                    "output_offset, multipliers, shifts, activation_min, activation_max, scratch "
                    "u8, output_scratch u8, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& w = tensor(args, 1);
  const Tensor& out = tensor(args, 15);
  if (in.dtype != ScalarType::Char || w.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantized_transpose_conv2d.out: input, weight and out must be int8");
  if (in.dim != 4 || w.dim != 4 || out.dim != 4 || !is_nhwc_compatible(in) ||
      !is_nhwc_compatible(out) || !is_contiguous_like(w))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: need 4-D channels-last input/out "
                    "and a contiguous [Cout, kH, kW, Cin] weight");
  if (dil.h != 1 || dil.w != 1)
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_transpose_conv2d.out: dilation must be 1");
  const Nhwc x = nhwc_of(in), y = nhwc_of(out);
  const int32_t kh = w.sizes[1], kw = w.sizes[2];
  if (w.sizes[0] != y.c || w.sizes[3] != x.c || x.n != y.n)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: weight must be [Cout, kH, kW, Cin]");
  if (static_cast<int64_t>(x.h - 1) * stride.h - 2 * pad.h + kh + opad.h != y.h ||
      static_cast<int64_t>(x.w - 1) * stride.w - 2 * pad.w + kw + opad.w != y.w)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: out H/W do not match "
                    "(in-1)*stride - 2*padding + kernel + output_padding");
  const bool has_bias = has_tensor(args, 2);
  if (has_bias && (tensor(args, 2).dtype != ScalarType::Int ||
                   static_cast<int64_t>(tensor(args, 2).numel()) != y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: bias must be int32 [Cout]");
  if (!valid_per_channel(tensor(args, 9), tensor(args, 10), y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: multipliers/shifts must be int32 "
                    "[Cout], multiplier > INT32_MIN, shift in [-31, 30]");
  const int64_t in_off = int_arg(args, 7), out_off = int_arg(args, 8);
  const int64_t act_min = int_arg(args, 11), act_max = int_arg(args, 12);
  if (!in_range(in_off, -255, 255) || !in_range(out_off, -255, 255) ||
      !valid_activation(act_min, act_max))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_transpose_conv2d.out: offsets or activation range out "
                    "of range");
  const int8_t* px = in.const_data_ptr<int8_t>();
  const int8_t* pw = w.const_data_ptr<int8_t>();
  const int32_t* bias = has_bias ? tensor(args, 2).const_data_ptr<int32_t>() : nullptr;
  const int32_t* mult = tensor(args, 9).const_data_ptr<int32_t>();
  const int32_t* shift = tensor(args, 10).const_data_ptr<int32_t>();
  int8_t* py = out.mutable_data_ptr<int8_t>();
  const int32_t ioff = static_cast<int32_t>(in_off), ooff = static_cast<int32_t>(out_off);
  const int32_t amin = static_cast<int32_t>(act_min), amax = static_cast<int32_t>(act_max);
  for (int32_t n = 0; n < y.n; ++n) {
    const int8_t* xb = px + static_cast<size_t>(n) * x.h * x.w * x.c;
    for (int32_t oy = 0; oy < y.h; ++oy) {
      for (int32_t ox = 0; ox < y.w; ++ox) {
        for (int32_t oc = 0; oc < y.c; ++oc) {
          int32_t acc = bias ? bias[oc] : 0;
          for (int32_t ky = 0; ky < kh; ++ky) {
            const int32_t ty = oy + pad.h - ky;
            if (ty < 0 || ty % stride.h != 0 || ty / stride.h >= x.h) continue;
            const int32_t iy = ty / stride.h;
            for (int32_t kx = 0; kx < kw; ++kx) {
              const int32_t tx = ox + pad.w - kx;
              if (tx < 0 || tx % stride.w != 0 || tx / stride.w >= x.w) continue;
              const int32_t ix = tx / stride.w;
              const int8_t* xs = xb + (static_cast<size_t>(iy) * x.w + ix) * x.c;
              const int8_t* ws = pw + ((static_cast<size_t>(oc) * kh + ky) * kw + kx) * x.c;
              for (int32_t ic = 0; ic < x.c; ++ic)
                acc = cmsis::wrap_add(acc, (xs[ic] + ioff) * ws[ic]);
            }
          }
          acc = cmsis::wrap_add(cmsis::requantize(acc, mult[oc], shift[oc]), ooff);
          *py++ = static_cast<int8_t>(cmsis::clamp(acc, amin, amax));
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
