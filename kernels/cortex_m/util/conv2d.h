// cortex_m::quantized_conv2d.out, shared by its variants (ref/, fast/): the argument checks that
// fill a ConvJob, and the reference arithmetic (arm_convolve_wrapper_s8's results for any
// grouping, stride, padding and dilation) that the variants fall back to.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct ConvJob {
  const int8_t* x;
  const int8_t* w;
  const int32_t* bias;
  const int32_t* mult;
  const int32_t* shift;
  int8_t* y;
  int8::Nhwc in, out;
  int32_t kh, kw, kc;
  int8::Pair stride, pad, dil;
  int32_t ioff, ooff, amin, amax;
};

// The arithmetic, kept out of the argument checking so that its loops get the registers (inlined
// into the kernel, the inner loop spilled to the stack on RV32).
inline __attribute__((noinline)) void conv_nhwc_ref(const ConvJob& j) {
  const int32_t groups = j.in.c / j.kc, oc_per_group = j.out.c / groups;
  const int32_t kc = j.kc, ioff = j.ioff;
  int8_t* py = j.y;
  for (int32_t n = 0; n < j.out.n; ++n) {
    const int8_t* xb = j.x + static_cast<size_t>(n) * j.in.h * j.in.w * j.in.c;
    for (int32_t oy = 0; oy < j.out.h; ++oy) {
      const int32_t base_y = oy * j.stride.h - j.pad.h;
      for (int32_t ox = 0; ox < j.out.w; ++ox) {
        const int32_t base_x = ox * j.stride.w - j.pad.w;
        for (int32_t oc = 0; oc < j.out.c; ++oc) {
          const int32_t ic0 = (oc / oc_per_group) * kc;
          int32_t acc = j.bias ? j.bias[oc] : 0;
          for (int32_t ky = 0; ky < j.kh; ++ky) {
            const int32_t iy = base_y + ky * j.dil.h;
            if (iy < 0 || iy >= j.in.h) continue;
            for (int32_t kx = 0; kx < j.kw; ++kx) {
              const int32_t ix = base_x + kx * j.dil.w;
              if (ix < 0 || ix >= j.in.w) continue;
              const int8_t* xs = xb + (static_cast<size_t>(iy) * j.in.w + ix) * j.in.c + ic0;
              const int8_t* ws = j.w + ((static_cast<size_t>(oc) * j.kh + ky) * j.kw + kx) * kc;
              for (int32_t ic = 0; ic < kc; ++ic)
                acc = cmsis::wrap_add(acc, (xs[ic] + ioff) * ws[ic]);
            }
          }
          acc = cmsis::wrap_add(cmsis::requantize(acc, j.mult[oc], j.shift[oc]), j.ooff);
          *py++ = static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
        }
      }
    }
  }
}

// A 1x1, stride-1, unpadded layer one pixel at a time from the last (as 1x1-image jobs): the
// order for an out that begins after its input (pointwise_reverse_distance in
// kernels/api/alias_contract.h; each pixel's outputs are written after its input is read).
inline void conv_pixels_reverse(const ConvJob& j) {
  const int32_t pixels = j.out.n * j.out.h * j.out.w;
  for (int32_t p = pixels - 1; p >= 0; --p) {
    ConvJob s = j;
    s.in = Nhwc{1, 1, 1, j.in.c};
    s.out = Nhwc{1, 1, 1, j.out.c};
    s.x = j.x + static_cast<size_t>(p) * j.in.c;
    s.y = j.y + static_cast<size_t>(p) * j.out.c;
    conv_nhwc_ref(s);
  }
}

// quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//     int[] dilation, int input_offset, int output_offset, Tensor requantize_multipliers,
//     Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *,
//     Tensor(a!) out) -> Tensor(a!)
// input [N,Cin,H,W] int8 channels-last; weight [Cout, kH, kW, Cin/groups] int8 (contiguous);
// bias [Cout] int32 or None; multipliers/shifts [Cout] int32; scratch uint8 (unused here).
ETMCU_ARG_CHECKS inline Error parse_conv2d(KernelContext& ctx, Span<EValue*> args, ConvJob* job) {
  if (args.size() == 14)
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_conv2d.out: 12-argument schema without scratch "
                    "(before 2026-05-26) is not supported; re-export");
  if (args.size() != 15)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: expected 13 arguments + out (+ return)");
  Pair stride, pad, dil;
  if (!args_are(args, "TTtPPPIITTIISTR") || !read_pair(args, 3, 1, 65535, &stride) ||
      !read_pair(args, 4, 0, 65535, &pad) || !read_pair(args, 5, 1, 65535, &dil))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: expected (input, weight, bias?, stride[2]>0, "
                    "padding[2]>=0, dilation[2]>0, input_offset, output_offset, multipliers, "
                    "shifts, activation_min, activation_max, scratch u8, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& w = tensor(args, 1);
  const Tensor& out = tensor(args, 13);
  if (in.dtype != ScalarType::Char || w.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantized_conv2d.out: input, weight and out must be int8");
  if (in.dim != 4 || w.dim != 4 || out.dim != 4)
    return ctx.fail(Error::InvalidArgument, "cortex_m::quantized_conv2d.out: tensors must be 4-D");
  if (!is_nhwc_compatible(in) || !is_nhwc_compatible(out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: input and out must be channels-last (NHWC)");
  if (!is_contiguous_like(w))
    return ctx.fail(
        Error::InvalidArgument,
        "cortex_m::quantized_conv2d.out: weight must be contiguous [Cout, kH, kW, Cin]");
  const Nhwc x = nhwc_of(in), y = nhwc_of(out);
  const int32_t kh = w.sizes[1], kw = w.sizes[2], kc = w.sizes[3];
  if (w.sizes[0] != y.c || kc <= 0 || x.c < kc || x.c % kc != 0 || y.c % (x.c / kc) != 0 ||
      x.n != y.n)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: weight must be [Cout, kH, kW, Cin/groups] "
                    "with groups dividing Cin and Cout");
  if (conv_out_size(x.h, kh, stride.h, pad.h, dil.h) != y.h ||
      conv_out_size(x.w, kw, stride.w, pad.w, dil.w) != y.w)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: out H/W do not match kernel, stride, padding "
                    "and dilation");
  const bool has_bias = has_tensor(args, 2);
  if (has_bias && (tensor(args, 2).dtype != ScalarType::Int ||
                   static_cast<int64_t>(tensor(args, 2).numel()) != y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: bias must be int32 [Cout]");
  if (!valid_per_channel(tensor(args, 8), tensor(args, 9), y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: multipliers/shifts must be int32 [Cout], "
                    "multiplier > INT32_MIN, shift in [-31, 30]");
  const int64_t in_off = int_arg(args, 6), out_off = int_arg(args, 7);
  const int64_t act_min = int_arg(args, 10), act_max = int_arg(args, 11);
  if (!in_range(in_off, -255, 255) || !in_range(out_off, -255, 255) ||
      !valid_activation(act_min, act_max))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_conv2d.out: offsets or activation range out of range");

  ConvJob& j = *job;
  j.x = in.const_data_ptr<int8_t>();
  j.w = w.const_data_ptr<int8_t>();
  j.bias = has_bias ? tensor(args, 2).const_data_ptr<int32_t>() : nullptr;
  j.mult = tensor(args, 8).const_data_ptr<int32_t>();
  j.shift = tensor(args, 9).const_data_ptr<int32_t>();
  j.y = out.mutable_data_ptr<int8_t>();
  j.in = x;
  j.out = y;
  j.kh = kh;
  j.kw = kw;
  j.kc = kc;
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
