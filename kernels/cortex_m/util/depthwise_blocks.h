// The depthwise micro-kernel for cores without vector lanes (isa/scalar, isa/xpulp, isa/dsp),
// parameterised by the ISA's multiply-accumulate.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/output_q.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace int8 {

using cmsis::wrap_add;
using cmsis::wrap_mul;

// Without vector lanes: four channels at a time, the channel block outermost. For a window
// entirely inside the input the input offset is folded out of the taps,
//   sum((x + ioff) * w) = sum(x * w) + ioff * sum(w)      (mod 2^32, like ref's wrapping sum),
// with sum(w) over the whole filter computed once per block, so a tap costs two loads and one
// multiply-accumulate per channel. Border windows (padding) add the offset per tap. Dilation 1;
// multiplier 1 (kShared false) or a multiple of 4 (kShared: the block shares one input channel).
// Mac::mac(acc, a, b) is acc + a * b, wrapping: the ISA's multiply-accumulate.
template <bool kShared, class Mac>
__attribute__((noinline)) void depthwise_blocks(const DwJob& j) {
  const int32_t cin = j.in.c, c = j.out.c, kh = j.kh, kw = j.kw, ioff = j.ioff, cm = j.cm;
  const size_t in_row = static_cast<size_t>(j.in.w) * cin;
  const size_t w_row = static_cast<size_t>(kw) * c;
  const int32_t blocks = c / 4 * 4;
  const OutputQ oq{j.ooff, j.amin, j.amax};
  for (int32_t ch = 0; ch < blocks; ch += 4) {
    int32_t b0 = j.bias ? j.bias[ch] : 0, b1 = j.bias ? j.bias[ch + 1] : 0;
    int32_t b2 = j.bias ? j.bias[ch + 2] : 0, b3 = j.bias ? j.bias[ch + 3] : 0;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // sum(w) over the whole filter
    for (const int8_t* ws = j.w + ch; ws < j.w + ch + static_cast<size_t>(kh) * w_row; ws += c) {
      s0 += ws[0];
      s1 += ws[1];
      s2 += ws[2];
      s3 += ws[3];
    }
    const int32_t f0 = wrap_add(b0, wrap_mul(ioff, s0)), f1 = wrap_add(b1, wrap_mul(ioff, s1));
    const int32_t f2 = wrap_add(b2, wrap_mul(ioff, s2)), f3 = wrap_add(b3, wrap_mul(ioff, s3));
    const int32_t chs[4] = {ch, ch + 1, ch + 2, ch + 3};
    BlockRequant<4> rq;  // prepared once per block
    rq.prepare(j.mult, j.shift, chs, j.ooff);
    const int8_t* xc = j.x + (kShared ? ch / cm : ch);
    int8_t* py = j.y + ch;
    for (int32_t oy = 0; oy < j.out.h; ++oy) {
      const int32_t iy0 = oy * j.stride.h - j.pad.h;
      const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
      const int32_t ky1 = iy0 + kh > j.in.h ? j.in.h - iy0 : kh;
      for (int32_t ox = 0; ox < j.out.w; ++ox, py += c) {
        const int32_t ix0 = ox * j.stride.w - j.pad.w;
        const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
        const int32_t kx1 = ix0 + kw > j.in.w ? j.in.w - ix0 : kw;
        int32_t a0, a1, a2, a3;
        if (ky0 == 0 && ky1 == kh && kx0 == 0 && kx1 == kw) {
          // (Sums of their own, added to the folded constants after the taps: accumulating into
          // a0..a3 directly made GCC copy every accumulator once per tap.)
          int32_t d0 = 0, d1 = 0, d2 = 0, d3 = 0;
          const int8_t* xr = xc + (static_cast<size_t>(iy0) * j.in.w + ix0) * cin;
          const int8_t* wr = j.w + ch;
          for (int32_t ky = 0; ky < kh; ++ky, xr += in_row) {
            const int8_t* xs = xr;
            for (int32_t t = 0; t < kw; ++t, xs += cin, wr += c) {
              if (kShared) {
                const int32_t xv = xs[0];
                d0 = Mac::mac(d0, xv, wr[0]);
                d1 = Mac::mac(d1, xv, wr[1]);
                d2 = Mac::mac(d2, xv, wr[2]);
                d3 = Mac::mac(d3, xv, wr[3]);
              } else {
                d0 = Mac::mac(d0, xs[0], wr[0]);
                d1 = Mac::mac(d1, xs[1], wr[1]);
                d2 = Mac::mac(d2, xs[2], wr[2]);
                d3 = Mac::mac(d3, xs[3], wr[3]);
              }
            }
          }
          a0 = wrap_add(f0, d0), a1 = wrap_add(f1, d1), a2 = wrap_add(f2, d2),
          a3 = wrap_add(f3, d3);
        } else {  // a border window: the taps inside the input, each with its offset
          a0 = b0, a1 = b1, a2 = b2, a3 = b3;
          if (kx1 > kx0 && ky1 > ky0) {
            const int8_t* xr = xc + (static_cast<size_t>(iy0 + ky0) * j.in.w + (ix0 + kx0)) * cin;
            const int8_t* wr = j.w + ch + (static_cast<size_t>(ky0) * kw + kx0) * c;
            for (int32_t ky = ky0; ky < ky1; ++ky, xr += in_row, wr += w_row) {
              const int8_t* xs = xr;
              const int8_t* ws = wr;
              for (int32_t t = kx0; t < kx1; ++t, xs += cin, ws += c) {
                if (kShared) {
                  const int32_t xv = xs[0] + ioff;
                  a0 = Mac::mac(a0, xv, ws[0]);
                  a1 = Mac::mac(a1, xv, ws[1]);
                  a2 = Mac::mac(a2, xv, ws[2]);
                  a3 = Mac::mac(a3, xv, ws[3]);
                } else {
                  a0 = Mac::mac(a0, xs[0] + ioff, ws[0]);
                  a1 = Mac::mac(a1, xs[1] + ioff, ws[1]);
                  a2 = Mac::mac(a2, xs[2] + ioff, ws[2]);
                  a3 = Mac::mac(a3, xs[3] + ioff, ws[3]);
                }
              }
            }
          }
        }
        if (rq.folded) {
          py[0] = finish(oq, rq.f[0], a0);
          py[1] = finish(oq, rq.f[1], a1);
          py[2] = finish(oq, rq.f[2], a2);
          py[3] = finish(oq, rq.f[3], a3);
        } else {
          py[0] = finish(oq, rq.g[0], a0);
          py[1] = finish(oq, rq.g[1], a1);
          py[2] = finish(oq, rq.g[2], a2);
          py[3] = finish(oq, rq.g[3], a3);
        }
      }
    }
  }
  if (blocks == c) return;
  int8_t* py = j.y;  // the last c % 4 channels
  for (int32_t oy = 0; oy < j.out.h; ++oy) {
    const int32_t iy0 = oy * j.stride.h - j.pad.h;
    const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
    const int32_t ky1 = iy0 + kh > j.in.h ? j.in.h - iy0 : kh;
    for (int32_t ox = 0; ox < j.out.w; ++ox, py += c) {
      const int32_t ix0 = ox * j.stride.w - j.pad.w;
      const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
      const int32_t kx1 = ix0 + kw > j.in.w ? j.in.w - ix0 : kw;
      for (int32_t ch = blocks; ch < c; ++ch) {
        int32_t a = j.bias ? j.bias[ch] : 0;
        if (kx1 > kx0 && ky1 > ky0) {
          const int8_t* xr =
              j.x + (static_cast<size_t>(iy0 + ky0) * j.in.w + (ix0 + kx0)) * cin + ch / cm;
          const int8_t* wr = j.w + ch + (static_cast<size_t>(ky0) * kw + kx0) * c;
          for (int32_t ky = ky0; ky < ky1; ++ky, xr += in_row, wr += w_row)
            for (int32_t t = 0; t < kx1 - kx0; ++t) a = Mac::mac(a, xr[t * cin] + ioff, wr[t * c]);
        }
        py[ch] = finish(oq, j.mult[ch], j.shift[ch], a);
      }
    }
  }
}

// A multiply and an add (cores without a multiply-accumulate instruction).
struct WrapMac {
  static int32_t mac(int32_t acc, int32_t a, int32_t b) { return wrap_add(acc, wrap_mul(a, b)); }
};

// The layers depthwise_blocks computes (dilation 1 is checked by the op): multiplier 1 or a
// multiple of 4 (e.g. KWS's first layer, 1 -> 64 channels), when this firmware has the path
// (util/paths.h). False: not computed.
template <class Mac>
inline bool depthwise_blocks_path(const DwJob& j) {
  if ((j.cm != 1 && j.cm % 4 != 0) || !kernel_path(kPathDwBlocks)) return false;
  if (j.cm == 1)
    depthwise_blocks<false, Mac>(j);
  else
    depthwise_blocks<true, Mac>(j);
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
