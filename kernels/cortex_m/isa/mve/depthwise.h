// Depthwise micro-kernel with Helium (MVE, Cortex-M55/M85): the four channels of a block are the
// lanes of one vector (VLDRB.S32 widening loads, VMUL/VADD, or VMLA by a shared input).
#pragma once
#include <arm_mve.h>
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/output_q.h"

namespace etmcu {
namespace kernels {
namespace int8 {

using cmsis::wrap_add;

// Dilation 1; multiplier 1 (kShared false: output channel ch reads input channel ch) or a multiple
// of 4 (kShared: the four output channels of a block read the one input channel ch / multiplier).
template <bool kShared>
__attribute__((noinline)) void depthwise_channels(const DwJob& j) {
  const int32_t cin = j.in.c, c = j.out.c, kh = j.kh, kw = j.kw, ioff = j.ioff, cm = j.cm;
  const size_t in_row = static_cast<size_t>(j.in.w) * cin;
  const OutputQ oq{j.ooff, j.amin, j.amax};
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
        py[ch] = finish(oq, j.mult[ch], j.shift[ch], a0);
        py[ch + 1] = finish(oq, j.mult[ch + 1], j.shift[ch + 1], a1);
        py[ch + 2] = finish(oq, j.mult[ch + 2], j.shift[ch + 2], a2);
        py[ch + 3] = finish(oq, j.mult[ch + 3], j.shift[ch + 3], a3);
      }
      for (; ch < c; ++ch) {  // the last c % 4 channels
        int32_t a = j.bias ? j.bias[ch] : 0;
        const int8_t* xr = x0 + ch / cm;
        const int8_t* wr = w0 + ch;
        for (int32_t ky = ky0; ky < ky_end; ++ky, xr += in_row, wr += static_cast<size_t>(kw) * c)
          for (int32_t t = 0; t < taps_x; ++t) a = wrap_add(a, (xr[t * cin] + ioff) * wr[t * c]);
        py[ch] = finish(oq, j.mult[ch], j.shift[ch], a);
      }
    }
  }
}

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j) {
  if (j.cm == 1) {
    depthwise_channels<false>(j);
    return true;
  }
  if (j.cm % 4 == 0) {  // e.g. KWS's first layer: 1 -> 64 channels
    depthwise_channels<true>(j);
    return true;
  }
  return false;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
