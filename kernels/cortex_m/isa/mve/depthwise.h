// Depthwise micro-kernel with Helium (MVE, Cortex-M55/M85): the four channels of a block are the
// lanes of one vector (VLDRB.S32 widening loads, VMLA, or VMLA by a shared input byte).
#pragma once
#include <arm_mve.h>
#include <stdint.h>

#include "kernels/cortex_m/isa/mve/pointwise.h"  // mve::requant4
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/output_q.h"

namespace etmcu {
namespace kernels {
namespace int8 {

using cmsis::wrap_add;

// Dilation 1; multiplier 1 (kShared false: output channel ch reads input channel ch) or a multiple
// of 4 (kShared: the four output channels of a block read the one input channel ch / multiplier).
// Four output channels are the lanes of one vector (VLDRB.S32 widens four bytes), the channel
// block outermost so that its constants stay in registers: inside the input the input offset is
// folded out of the taps (acc = bias + ioff * sum(w) + sum(x * w), wrapping like ref's sum), a tap
// then two loads, VMUL and VADD (MVE has no integer vector-by-vector VMLA), or with kShared one
// VMLA by the shared input byte; border windows add the offset per valid tap. The last c % 4
// channels are a predicated block (VCTP.32), not a scalar tail. Requantization in lanes
// (isa/mve/pointwise.h's requant4) when every channel of the block has multiplier > 0 and shift in
// [-31, -1], else per lane (cmsis::requantize). kK: 3 for a 3x3 window (the taps unrolled), 0 for
// any other.
// Four bytes widened to the lanes; predicated (VPST + VLDRBT) only in the last, partial block.
template <bool kTail>
inline int32x4_t load4(const int8_t* p, mve_pred16_t pred) {
  return kTail ? vldrbq_z_s32(p, pred) : vldrbq_s32(p);
}

// The blocks [ch_begin, ch_end) (kTail: the one partial block at ch_begin).
template <bool kShared, int kK, bool kTail>
__attribute__((noinline)) void depthwise_lanes(const DwJob& j, int32_t ch_begin, int32_t ch_end) {
  const int32_t cin = j.in.c, c = j.out.c, kh = kK ? kK : j.kh, kw = kK ? kK : j.kw;
  const int32_t ioff = j.ioff, cm = j.cm;
  const int32_t in_row = j.in.w * cin, w_row = kw * c;
  const OutputQ oq{j.ooff, j.amin, j.amax};
  const int32x4_t ooff = vdupq_n_s32(j.ooff), lo = vdupq_n_s32(j.amin), hi = vdupq_n_s32(j.amax);
  for (int32_t ch = ch_begin; ch < ch_end; ch += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c - ch));
    const int32x4_t bias = j.bias ? vldrwq_z_s32(j.bias + ch, p) : vdupq_n_s32(0);
    int32x4_t sw = vdupq_n_s32(0);
    for (int32_t t = 0; t < kh * kw; ++t) sw = vaddq_s32(sw, load4<kTail>(j.w + t * c + ch, p));
    const int32x4_t full = vmlaq_n_s32(bias, sw, ioff);
    bool lanes = true;
    for (int32_t k = ch; k < c && k < ch + 4; ++k)
      lanes = lanes && j.mult[k] > 0 && j.shift[k] <= -1 && j.shift[k] >= -31;
    const int32x4_t mult = vldrwq_z_s32(j.mult + ch, p);
    const int32x4_t neg_right = vldrwq_z_s32(j.shift + ch, p);
    const int8_t* xc = j.x + (kShared ? ch / cm : ch);
    const int8_t* wc = j.w + ch;
    int8_t* py = j.y + ch;
    for (int32_t oy = 0; oy < j.out.h; ++oy) {
      const int32_t iy0 = oy * j.stride.h - j.pad.h;
      const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
      const int32_t ky1 = iy0 + kh > j.in.h ? j.in.h - iy0 : kh;
      for (int32_t ox = 0; ox < j.out.w; ++ox, py += c) {
        const int32_t ix0 = ox * j.stride.w - j.pad.w;
        const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
        const int32_t kx1 = ix0 + kw > j.in.w ? j.in.w - ix0 : kw;
        int32x4_t acc;
        if (ky0 == 0 && ky1 == kh && kx0 == 0 && kx1 == kw) {
          acc = full;
          const int8_t* xr = xc + iy0 * in_row + ix0 * cin;
          const int8_t* wr = wc;
#pragma GCC unroll 3
          for (int32_t ky = 0; ky < kh; ++ky, xr += in_row, wr += w_row) {
#pragma GCC unroll 3
            for (int32_t t = 0; t < kw; ++t) {
              const int32x4_t wv = load4<kTail>(wr + t * c, p);
              if (kShared)
                acc = vmlaq_n_s32(acc, wv, xr[t * cin]);
              else
                acc = vaddq_s32(acc, vmulq_s32(load4<kTail>(xr + t * cin, p), wv));
            }
          }
        } else {  // a border window: the valid taps, each with the offset
          acc = bias;
          const int8_t* xr = xc + (iy0 + ky0) * in_row + (ix0 + kx0) * cin;
          const int8_t* wr = wc + ky0 * w_row + kx0 * c;
          for (int32_t ky = ky0; ky < ky1; ++ky, xr += in_row, wr += w_row)
            for (int32_t t = 0; t < kx1 - kx0; ++t) {
              const int32x4_t wv = load4<kTail>(wr + t * c, p);
              if (kShared)
                acc = vmlaq_n_s32(acc, wv, xr[t * cin] + ioff);
              else
                acc =
                    vaddq_s32(acc, vmulq_s32(vaddq_n_s32(load4<kTail>(xr + t * cin, p), ioff), wv));
            }
        }
        if (lanes) {
          const int32x4_t q = mve::requant4(acc, mult, neg_right, ooff, lo, hi);
          if (kTail)
            vstrbq_p_s32(py, q, p);
          else
            vstrbq_s32(py, q);
        } else {
          int32_t a[4];
          vst1q_s32(a, acc);
          for (int32_t k = 0; k < 4 && ch + k < c; ++k)
            py[k] = finish(oq, j.mult[ch + k], j.shift[ch + k], a[k]);
        }
      }
    }
  }
}

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j) {
  const int32_t full = j.out.c / 4 * 4;
  if (j.cm == 1) {
    if (j.kh == 3 && j.kw == 3)
      depthwise_lanes<false, 3, false>(j, 0, full);
    else
      depthwise_lanes<false, 0, false>(j, 0, full);
    if (full < j.out.c) depthwise_lanes<false, 0, true>(j, full, j.out.c);
    return true;
  }
  if (j.cm % 4 == 0) {  // e.g. KWS's first layer: 1 -> 64 channels
    depthwise_lanes<true, 0, false>(j, 0, j.out.c);
    return true;
  }
  return false;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
