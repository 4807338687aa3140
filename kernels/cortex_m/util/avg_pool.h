// cortex_m::quantized_avg_pool2d.out, shared by its variants (ref/, opt/): the argument checks
// that fill an AvgPoolJob (arm_avgpool_s8's parameters) and the reference loop.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel.h"
#include "kernels/cortex_m/util/arg_util.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The most taps a window may have for the ISAs' window_sums4 (isa/<isa>/pool_sums.h; the plain C
// one's 16-bit lanes hold 257 * 255): the op takes the reference loop beyond it, on every ISA.
constexpr int32_t kPoolMaxTaps = 257;

struct AvgPoolJob {
  const int8_t* x;
  int8_t* y;
  Nhwc in, out;
  Pair k, stride, pad;
};

// PyTorch's pooling output size, as the upstream kernel checks it (out of line: two per op).
ETMCU_ARG_CHECKS inline int32_t pool_out_size(int32_t in, int32_t k, int32_t stride, int32_t pad,
                                              bool ceil_mode) {
  const int32_t num = in + 2 * pad - k;
  if (num < 0) return -1;
  int32_t out = num / stride + 1;
  if (ceil_mode && num % stride != 0) ++out;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
//     bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch, *,
//     Tensor(a!) out) -> Tensor(a!)
// input/out [N,C,H,W] int8 channels-last. zero_point, multiplier and shift are not used by
// CMSIS-NN (input and output share their quantization); scratch uint8 (unused here).
ETMCU_ARG_CHECKS inline Error parse_avg_pool(KernelContext& ctx, Span<EValue*> args,
                                             AvgPoolJob* job) {
  if (ETMCU_BAD_ARG(args.size() == 9 || args.size() == 10))
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_avg_pool2d.out: older schema (without scratch, before "
                    "2026-06, or without ceil_mode, before 2026-07-23) is not supported; "
                    "re-export");
  if (ETMCU_BAD_ARG(args.size() != 11))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_avg_pool2d.out: expected 9 arguments + out (+ return)");
  Pair k, stride, pad;
  if (ETMCU_BAD_ARG(!args_are(args, "TPPPBIIISTR")) || !read_pair(args, 1, 1, 65535, &k) ||
      !read_pair(args, 2, 1, 65535, &stride) || !read_pair(args, 3, 0, 65535, &pad))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_avg_pool2d.out: expected (input, kernel_size[2]>0, "
                    "stride[2]>0, padding[2]>=0, ceil_mode, zero_point, multiplier, shift, scratch "
                    "u8, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 9);
  if (ETMCU_BAD_ARG(in.dtype != ScalarType::Char || out.dtype != ScalarType::Char))
    return ctx.fail(Error::InvalidType, "cortex_m::quantized_avg_pool2d.out: tensors must be int8");
  if (ETMCU_BAD_ARG(in.dim != 4 || out.dim != 4 || !is_nhwc_compatible(in) ||
                    !is_nhwc_compatible(out)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_avg_pool2d.out: tensors must be 4-D channels-last (NHWC)");
  const Nhwc x = nhwc_of(in), y = nhwc_of(out);
  if (ETMCU_BAD_ARG(x.n != y.n || x.c != y.c))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_avg_pool2d.out: batch and channels must match");
  const bool ceil_mode = args[4]->to_bool();
  if (ETMCU_BAD_ARG(pool_out_size(x.h, k.h, stride.h, pad.h, ceil_mode) != y.h ||
                    pool_out_size(x.w, k.w, stride.w, pad.w, ceil_mode) != y.w))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_avg_pool2d.out: out H/W do not match kernel, stride, "
                    "padding and ceil_mode");
  // Every window must hold at least one input tap (CMSIS-NN fails with ARG_ERROR otherwise). A
  // window's start grows with its output index, so the first window of each axis is the one that
  // can end before the input and the last the one that can start after it.
  if (ETMCU_BAD_ARG(y.h > 0 && y.w > 0 &&
                    (k.h - pad.h <= 0 || (y.h - 1) * stride.h - pad.h >= x.h || k.w - pad.w <= 0 ||
                     (y.w - 1) * stride.w - pad.w >= x.w)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_avg_pool2d.out: a pooling window lies entirely in the "
                    "padding");
  job->x = in.const_data_ptr<int8_t>();
  job->y = out.mutable_data_ptr<int8_t>();
  job->in = x;
  job->out = y;
  job->k = k;
  job->stride = stride;
  job->pad = pad;
  return Error::Ok;
}

// The window of output (oy, ox) clipped to the input: rows [*ky0, *ky1), columns [*kx0, *kx1).
inline void pool_window(const AvgPoolJob& j, int32_t oy, int32_t ox, int32_t* ky0, int32_t* ky1,
                        int32_t* kx0, int32_t* kx1) {
  const int32_t y0 = oy * j.stride.h - j.pad.h, x0 = ox * j.stride.w - j.pad.w;
  *ky0 = y0 < 0 ? 0 : y0;
  *ky1 = y0 + j.k.h < j.in.h ? y0 + j.k.h : j.in.h;
  *kx0 = x0 < 0 ? 0 : x0;
  *kx1 = x0 + j.k.w < j.in.w ? x0 + j.k.w : j.in.w;
}

// arm_avgpool_s8's mean: rounded half away from zero, clamped to int8.
inline int8_t pool_mean(int32_t sum, int32_t count) {
  sum = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  return static_cast<int8_t>(cmsis::clamp(sum, -128, 127));
}

// Output pixel (oy, ox) of batch n, channel by channel (the reference loop).
inline void avg_pool_pixel_ref(const AvgPoolJob& j, int32_t n, int32_t oy, int32_t ox) {
  const int8_t* xb = j.x + static_cast<size_t>(n) * j.in.h * j.in.w * j.in.c;
  int8_t* py = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w + ox) * j.out.c;
  int32_t ky0, ky1, kx0, kx1;
  pool_window(j, oy, ox, &ky0, &ky1, &kx0, &kx1);
  const int32_t count = (ky1 - ky0) * (kx1 - kx0);
  for (int32_t c = 0; c < j.in.c; ++c) {
    int32_t sum = 0;
    for (int32_t iy = ky0; iy < ky1; ++iy)
      for (int32_t ix = kx0; ix < kx1; ++ix)
        sum += xb[(static_cast<size_t>(iy) * j.in.w + ix) * j.in.c + c];
    py[c] = pool_mean(sum, count);
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
