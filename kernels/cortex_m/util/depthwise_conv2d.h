// cortex_m::quantized_depthwise_conv2d.out, shared by its variants (ref/, fast/): the argument
// checks that fill a DwJob, and the reference arithmetic (arm_depthwise_conv_wrapper_s8's results
// for any multiplier, stride, padding and dilation) that the variants fall back to.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct DwJob {
  const int8_t* x;
  const int8_t* w;
  const int32_t* bias;
  const int32_t* mult;
  const int32_t* shift;
  int8_t* y;
  int8::Nhwc in, out;
  int32_t kh, kw, cm;
  int8::Pair stride, pad, dil;
  int32_t ioff, ooff, amin, amax;
};

// The arithmetic, kept out of the argument checking so that its loops get the registers.
inline __attribute__((noinline)) void depthwise_nhwc_ref(const DwJob& j) {
  int8_t* py = j.y;
  // The in-bounds tap window is computed once per output pixel; each output channel then walks it
  // with two strided pointers (input pixel stride, weight row stride).
  for (int32_t oy = 0; oy < j.out.h; ++oy) {
    const int32_t base_y = oy * j.stride.h - j.pad.h;
    const int32_t ky0 = base_y < 0 ? (-base_y + j.dil.h - 1) / j.dil.h : 0;
    const int32_t ky_lim = (j.in.h - base_y + j.dil.h - 1) / j.dil.h;
    const int32_t ky1 = ky_lim < j.kh ? ky_lim : j.kh;
    for (int32_t ox = 0; ox < j.out.w; ++ox) {
      const int32_t base_x = ox * j.stride.w - j.pad.w;
      const int32_t kx0 = base_x < 0 ? (-base_x + j.dil.w - 1) / j.dil.w : 0;
      const int32_t kx_lim = (j.in.w - base_x + j.dil.w - 1) / j.dil.w;
      const int32_t kx1 = kx_lim < j.kw ? kx_lim : j.kw;
      const size_t x_step = static_cast<size_t>(j.dil.w) * j.in.c;
      for (int32_t oc = 0; oc < j.out.c; ++oc) {
        const int32_t ic = oc / j.cm;
        int32_t acc = j.bias ? j.bias[oc] : 0;
        for (int32_t ky = ky0; ky < ky1; ++ky) {
          const int32_t iy = base_y + ky * j.dil.h;
          const int8_t* xs =
              j.x + (static_cast<size_t>(iy) * j.in.w + (base_x + kx0 * j.dil.w)) * j.in.c + ic;
          const int8_t* ws = j.w + (static_cast<size_t>(ky) * j.kw + kx0) * j.out.c + oc;
          for (int32_t kx = kx0; kx < kx1; ++kx, xs += x_step, ws += j.out.c)
            acc = cmsis::wrap_add(acc, (*xs + j.ioff) * *ws);
        }
        acc = cmsis::wrap_add(cmsis::requantize(acc, j.mult[oc], j.shift[oc]), j.ooff);
        *py++ = static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
      }
    }
  }
}

// quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, int depth_multiplier, int input_offset, int output_offset,
//     Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min,
//     int activation_max, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)
// input [1,Cin,H,W] int8 channels-last; weight [1, kH, kW, Cout] int8 with Cout = Cin * multiplier
// (output channel c*multiplier + m reads input channel c); bias [Cout] int32 or None.
ETMCU_ARG_CHECKS inline Error parse_depthwise_conv2d(KernelContext& ctx, Span<EValue*> args,
                                                     DwJob* job) {
  if (args.size() == 15)
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_depthwise_conv2d.out: 13-argument schema without scratch "
                    "(before 2026-05-26) is not supported; re-export");
  if (args.size() != 16)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: expected 14 arguments + out (+ "
                    "return)");
  Pair stride, pad, dil;
  if (!args_are(args, "TTtPPPIIITTIISTR") || !read_pair(args, 3, 1, 65535, &stride) ||
      !read_pair(args, 4, 0, 65535, &pad) || !read_pair(args, 5, 1, 65535, &dil))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: expected (input, weight, bias?, "
                    "stride[2]>0, padding[2]>=0, dilation[2]>0, depth_multiplier, input_offset, "
                    "output_offset, multipliers, shifts, activation_min, activation_max, scratch "
                    "u8, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& w = tensor(args, 1);
  const Tensor& out = tensor(args, 14);
  if (in.dtype != ScalarType::Char || w.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantized_depthwise_conv2d.out: input, weight and out must be int8");
  if (in.dim != 4 || w.dim != 4 || out.dim != 4)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: tensors must be 4-D");
  if (!is_nhwc_compatible(in) || !is_nhwc_compatible(out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: input and out must be channels-last "
                    "(NHWC)");
  if (!is_contiguous_like(w))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: weight must be contiguous "
                    "[1, kH, kW, Cout]");
  const Nhwc x = nhwc_of(in), y = nhwc_of(out);
  if (x.n != 1 || y.n != 1)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: batch must be 1");
  const int64_t mult_ch = int_arg(args, 6);
  if (w.sizes[0] != 1 || w.sizes[3] != y.c || mult_ch < 1 || mult_ch > y.c ||
      static_cast<int64_t>(x.c) * mult_ch != y.c)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: need weight [1, kH, kW, Cout] and "
                    "Cout == Cin * depth_multiplier");
  const int32_t kh = w.sizes[1], kw = w.sizes[2];
  if (conv_out_size(x.h, kh, stride.h, pad.h, dil.h) != y.h ||
      conv_out_size(x.w, kw, stride.w, pad.w, dil.w) != y.w)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: out H/W do not match kernel, "
                    "stride, padding and dilation");
  const bool has_bias = has_tensor(args, 2);
  if (has_bias && (tensor(args, 2).dtype != ScalarType::Int ||
                   static_cast<int64_t>(tensor(args, 2).numel()) != y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: bias must be int32 [Cout]");
  if (!valid_per_channel(tensor(args, 9), tensor(args, 10), y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: multipliers/shifts must be int32 "
                    "[Cout], multiplier > INT32_MIN, shift in [-31, 30]");
  const int64_t in_off = int_arg(args, 7), out_off = int_arg(args, 8);
  const int64_t act_min = int_arg(args, 11), act_max = int_arg(args, 12);
  if (!in_range(in_off, -255, 255) || !in_range(out_off, -255, 255) ||
      !valid_activation(act_min, act_max))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_depthwise_conv2d.out: offsets or activation range out of "
                    "range");

  DwJob& j = *job;
  j.x = in.const_data_ptr<int8_t>();
  j.w = w.const_data_ptr<int8_t>();
  j.bias = has_bias ? tensor(args, 2).const_data_ptr<int32_t>() : nullptr;
  j.mult = tensor(args, 9).const_data_ptr<int32_t>();
  j.shift = tensor(args, 10).const_data_ptr<int32_t>();
  j.y = out.mutable_data_ptr<int8_t>();
  j.in = x;
  j.out = y;
  j.kh = kh;
  j.kw = kw;
  j.cm = static_cast<int32_t>(mult_ch);
  j.stride = stride;
  j.pad = pad;
  j.dil = dil;
  j.ioff = static_cast<int32_t>(in_off);
  j.ooff = static_cast<int32_t>(out_off);
  j.amin = static_cast<int32_t>(act_min);
  j.amax = static_cast<int32_t>(act_max);
  return Error::Ok;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
