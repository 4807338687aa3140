// cortex_m::quantized_depthwise_conv2d.out, shared by its variants (ref/, fast/): the argument
// checks that fill a DwJob, and the reference arithmetic (arm_depthwise_conv_wrapper_s8's results
// for any multiplier, stride, padding and dilation) that the variants fall back to.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
  int8_t* buffer;  // the kernel's buffer (kernels/api/kernel_scratch.h), when it declared one
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
  // The texts of check_conv_args's failures, by ConvCheck.
  static constexpr const char* kWhy[] = {
      "cortex_m::quantized_depthwise_conv2d.out: 13-argument schema without scratch (before "
      "2026-05-26) is not supported; re-export",
      "cortex_m::quantized_depthwise_conv2d.out: expected 14 arguments + out (+ return)",
      "cortex_m::quantized_depthwise_conv2d.out: expected (input, weight, bias?, stride[2]>0, "
      "padding[2]>=0, dilation[2]>0, depth_multiplier, input_offset, output_offset, "
      "multipliers, shifts, activation_min, activation_max, scratch u8, out)",
      "cortex_m::quantized_depthwise_conv2d.out: input, weight and out must be int8",
      "cortex_m::quantized_depthwise_conv2d.out: tensors must be 4-D",
      "cortex_m::quantized_depthwise_conv2d.out: input and out must be channels-last (NHWC)",
      "cortex_m::quantized_depthwise_conv2d.out: weight must be contiguous [1, kH, kW, Cout]",
      "cortex_m::quantized_depthwise_conv2d.out: batch must be 1",
      "cortex_m::quantized_depthwise_conv2d.out: need weight [1, kH, kW, Cout] and Cout == Cin * "
      "depth_multiplier",
      "cortex_m::quantized_depthwise_conv2d.out: out H/W do not match kernel, stride, padding "
      "and dilation",
      "cortex_m::quantized_depthwise_conv2d.out: bias must be int32 [Cout]",
      "cortex_m::quantized_depthwise_conv2d.out: multipliers/shifts must be int32 [Cout], "
      "multiplier > INT32_MIN, shift in [-31, 30]",
      "cortex_m::quantized_depthwise_conv2d.out: offsets or activation range out of range",
  };
  // check_conv_args fills a ConvJob: DwJob is the same fields with cm in kc's place.
  static_assert(sizeof(DwJob) == sizeof(ConvJob) && offsetof(DwJob, cm) == offsetof(ConvJob, kc) &&
                    offsetof(DwJob, amax) == offsetof(ConvJob, amax),
                "DwJob and ConvJob must keep one layout");
  ConvJob j;
  int why = 0;
  const Error e = check_conv_args(args, true, &j, &why);
  if (e != Error::Ok) return ctx.fail(e, kWhy[why]);
  memcpy(job, &j, sizeof j);
  return Error::Ok;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
