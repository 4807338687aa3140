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
  // The texts of check_conv_args's failures, by ConvCheck (kBatch is depthwise only).
  static constexpr const char* kWhy[] = {
      "cortex_m::quantized_conv2d.out: 12-argument schema without scratch (before 2026-05-26) is "
      "not supported; re-export",
      "cortex_m::quantized_conv2d.out: expected 13 arguments + out (+ return)",
      "cortex_m::quantized_conv2d.out: expected (input, weight, bias?, stride[2]>0, "
      "padding[2]>=0, dilation[2]>0, input_offset, output_offset, multipliers, shifts, "
      "activation_min, activation_max, scratch u8, out)",
      "cortex_m::quantized_conv2d.out: input, weight and out must be int8",
      "cortex_m::quantized_conv2d.out: tensors must be 4-D",
      "cortex_m::quantized_conv2d.out: input and out must be channels-last (NHWC)",
      "cortex_m::quantized_conv2d.out: weight must be contiguous [Cout, kH, kW, Cin]",
      "",
      "cortex_m::quantized_conv2d.out: weight must be [Cout, kH, kW, Cin/groups] with groups "
      "dividing Cin and Cout",
      "cortex_m::quantized_conv2d.out: out H/W do not match kernel, stride, padding and dilation",
      "cortex_m::quantized_conv2d.out: bias must be int32 [Cout]",
      "cortex_m::quantized_conv2d.out: multipliers/shifts must be int32 [Cout], multiplier > "
      "INT32_MIN, shift in [-31, 30]",
      "cortex_m::quantized_conv2d.out: offsets or activation range out of range",
  };
  int why = 0;
  const Error e = check_conv_args(args, false, job, &why);
  return e == Error::Ok ? e : ctx.fail(e, kWhy[why]);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
