// cortex_m::quantized_depthwise_conv2d.out, fast variant: the same results as ref/ (bit for bit),
// four channels at a time. Without dilation, the channels of a tap are contiguous in the NHWC
// input pixel and in the [1, kH, kW, Cout] weight row, so for each output pixel and each group of
// four output channels the taps are walked once with four accumulators in registers: index
// arithmetic once per tap instead of once per multiply-accumulate, no per-channel division. With a
// multiplier of 1 (the MLPerf Tiny models' depthwise layers) the four channels read four input
// channels; with a multiple of 4 (KWS's first layer, 1 -> 64 channels) they share one. Other
// layers (dilation, other multipliers) use the reference loop. With Helium (MVE) the four channels
// are the lanes of one vector.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/int8_dot.h"  // ETMCU_INT8_MVE and <arm_mve.h>

namespace etmcu {
namespace kernels {
namespace {

using cmsis::wrap_add;

inline int8_t finish(const int8::DwJob& j, int32_t c, int32_t acc) {
  acc = wrap_add(cmsis::requantize(acc, j.mult[c], j.shift[c]), j.ooff);
  return static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
}

// Dilation 1; multiplier 1 (kShared false: output channel ch reads input channel ch) or a multiple
// of 4 (kShared: the four output channels of a block read the one input channel ch / multiplier).
template <bool kShared>
__attribute__((noinline)) void depthwise_channels(const int8::DwJob& j) {
  const int32_t cin = j.in.c, c = j.out.c, kh = j.kh, kw = j.kw, ioff = j.ioff, cm = j.cm;
  const size_t in_row = static_cast<size_t>(j.in.w) * cin;
  int8_t* py = j.y;
  for (int32_t oy = 0; oy < j.out.h; ++oy) {
    const int32_t iy0 = oy * j.stride.h - j.pad.h;
    const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
    const int32_t ky1 = iy0 + kh > j.in.h ? j.in.h - iy0 : kh;
    for (int32_t ox = 0; ox < j.out.w; ++ox, py += c) {
      const int32_t ix0 = ox * j.stride.w - j.pad.w;
      const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
      const int32_t kx1 = ix0 + kw > j.in.w ? j.in.w - ix0 : kw;
      // The first valid tap of this window, in the input and in the weights (a window entirely
      // in the padding has none: then only the bias remains).
      const bool any = kx1 > kx0 && ky1 > ky0;
      const int32_t taps_x = any ? kx1 - kx0 : 0, ky_end = any ? ky1 : ky0;
      const int8_t* x0 =
          any ? j.x + (static_cast<size_t>(iy0 + ky0) * j.in.w + (ix0 + kx0)) * cin : j.x;
      const int8_t* w0 = any ? j.w + (static_cast<size_t>(ky0) * kw + kx0) * c : j.w;
      int32_t ch = 0;
      for (; ch + 4 <= c; ch += 4) {
        const int8_t* xr = x0 + (kShared ? ch / cm : ch);
        const int8_t* wr = w0 + ch;
#if ETMCU_INT8_MVE
        // The four channels as the lanes of one vector (VLDRB.S32 widens four bytes), wrapping
        // like wrap_add.
        int32x4_t acc = j.bias ? vldrwq_s32(j.bias + ch) : vdupq_n_s32(0);
        for (int32_t ky = ky0; ky < ky_end; ++ky, xr += in_row, wr += static_cast<size_t>(kw) * c) {
          const int8_t* xs = xr;
          const int8_t* ws = wr;
          for (int32_t t = 0; t < taps_x; ++t, xs += cin, ws += c) {
            const int32x4_t wv = vldrbq_s32(ws);
            if (kShared)
              acc = vmlaq_n_s32(acc, wv, xs[0] + ioff);
            else
              acc = vaddq_s32(acc, vmulq_s32(vaddq_n_s32(vldrbq_s32(xs), ioff), wv));
          }
        }
        const int32_t a0 = vgetq_lane_s32(acc, 0), a1 = vgetq_lane_s32(acc, 1);
        const int32_t a2 = vgetq_lane_s32(acc, 2), a3 = vgetq_lane_s32(acc, 3);
#else
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        if (j.bias) {
          a0 = j.bias[ch];
          a1 = j.bias[ch + 1];
          a2 = j.bias[ch + 2];
          a3 = j.bias[ch + 3];
        }
        for (int32_t ky = ky0; ky < ky_end; ++ky, xr += in_row, wr += static_cast<size_t>(kw) * c) {
          const int8_t* xs = xr;
          const int8_t* ws = wr;
          for (int32_t t = 0; t < taps_x; ++t, xs += cin, ws += c) {
            if (kShared) {
              const int32_t xv = xs[0] + ioff;
              a0 = wrap_add(a0, xv * ws[0]);
              a1 = wrap_add(a1, xv * ws[1]);
              a2 = wrap_add(a2, xv * ws[2]);
              a3 = wrap_add(a3, xv * ws[3]);
            } else {
              a0 = wrap_add(a0, (xs[0] + ioff) * ws[0]);
              a1 = wrap_add(a1, (xs[1] + ioff) * ws[1]);
              a2 = wrap_add(a2, (xs[2] + ioff) * ws[2]);
              a3 = wrap_add(a3, (xs[3] + ioff) * ws[3]);
            }
          }
        }
#endif
        py[ch] = finish(j, ch, a0);
        py[ch + 1] = finish(j, ch + 1, a1);
        py[ch + 2] = finish(j, ch + 2, a2);
        py[ch + 3] = finish(j, ch + 3, a3);
      }
      for (; ch < c; ++ch) {  // the last c % 4 channels
        int32_t a = j.bias ? j.bias[ch] : 0;
        const int8_t* xr = x0 + ch / cm;
        const int8_t* wr = w0 + ch;
        for (int32_t ky = ky0; ky < ky_end; ++ky, xr += in_row, wr += static_cast<size_t>(kw) * c)
          for (int32_t t = 0; t < taps_x; ++t) a = wrap_add(a, (xr[t * cin] + ioff) * wr[t * c]);
        py[ch] = finish(j, ch, a);
      }
    }
  }
}

}  // namespace

Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DwJob job;
  const Error e = int8::parse_depthwise_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  if (job.dil.h != 1 || job.dil.w != 1)
    int8::depthwise_nhwc_ref(job);
  else if (job.cm == 1)
    depthwise_channels<false>(job);
  else if (job.cm % 4 == 0)
    depthwise_channels<true>(job);  // e.g. KWS's first layer: 1 -> 64 channels
  else
    int8::depthwise_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
