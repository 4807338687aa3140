// cortex_m::quantized_depthwise_conv2d.out, fast variant: the same results as ref/ (bit for bit),
// four channels at a time. Without dilation, the channels of a tap are contiguous in the NHWC
// input pixel and in the [1, kH, kW, Cout] weight row, so a group of four output channels walks
// the taps of a window once with four accumulators in registers: index arithmetic once per tap
// instead of once per multiply-accumulate, no per-channel division. With a multiplier of 1 (the
// MLPerf Tiny models' depthwise layers) the four channels read four input channels; with a
// multiple of 4 (KWS's first layer, 1 -> 64 channels) they share one. Other layers (dilation,
// other multipliers) use the reference loop.
// With Helium (MVE) the four channels are the lanes of one vector (depthwise_channels). Without
// it (depthwise_blocks) the channel block is the outer loop, so the input offset of inner windows
// folds into a per-block constant, and on the CV32E40P with Xpulp each tap is one cv.mac.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/int8_dot.h"  // ETMCU_INT8_MVE and <arm_mve.h>

namespace etmcu {
namespace kernels {
namespace {

using cmsis::wrap_add;
using cmsis::wrap_mul;

inline int8_t finish(const int8::DwJob& j, int32_t c, int32_t acc) {
  acc = wrap_add(cmsis::requantize(acc, j.mult[c], j.shift[c]), j.ooff);
  return static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
}

// The output offset and activation range as values: read through the job after every int8
// store (a char store may alias anything), they were reloaded for each output.
struct OutputQ {
  int32_t offset, min, max;
};
inline int8_t finish(const OutputQ& o, const cmsis::Requant& rq, int32_t acc) {
  acc = wrap_add(cmsis::requantize(acc, rq), o.offset);
  return static_cast<int8_t>(cmsis::clamp(acc, o.min, o.max));
}

// acc + a * b, wrapping: one cv.mac on the CV32E40P with its PULP extensions (written with .insn:
// binutils 2.40 lacks the CORE-V mnemonics; opcode 0x2b, funct3 3, funct7 0x48, as in
// sim/isa/instructions.def), a multiply and an add elsewhere.
inline int32_t mac(int32_t acc, int32_t a, int32_t b) {
#if ETMCU_INT8_XPULP && defined(__riscv)
  __asm__(".insn r 0x2b, 3, 0x48, %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
#else
  return wrap_add(acc, wrap_mul(a, b));
#endif
}

// Dilation 1; multiplier 1 (kShared false: output channel ch reads input channel ch) or a multiple
// of 4 (kShared: the four output channels of a block read the one input channel ch / multiplier).
#if ETMCU_INT8_MVE
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
#endif

#if !ETMCU_INT8_MVE
// Without vector lanes: four channels at a time, the channel block outermost. For a window
// entirely inside the input the input offset is folded out of the taps,
//   sum((x + ioff) * w) = sum(x * w) + ioff * sum(w)      (mod 2^32, like ref's wrapping sum),
// with sum(w) over the whole filter computed once per block, so a tap costs two loads and one
// multiply-accumulate per channel. Border windows (padding) add the offset per tap. Dilation 1;
// multiplier 1 (kShared false) or a multiple of 4 (kShared: the block shares one input channel).
template <bool kShared>
__attribute__((noinline)) void depthwise_blocks(const int8::DwJob& j) {
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
    const cmsis::Requant r0 = cmsis::requant_params(j.mult[ch], j.shift[ch]);
    const cmsis::Requant r1 = cmsis::requant_params(j.mult[ch + 1], j.shift[ch + 1]);
    const cmsis::Requant r2 = cmsis::requant_params(j.mult[ch + 2], j.shift[ch + 2]);
    const cmsis::Requant r3 = cmsis::requant_params(j.mult[ch + 3], j.shift[ch + 3]);
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
                d0 = mac(d0, xv, wr[0]);
                d1 = mac(d1, xv, wr[1]);
                d2 = mac(d2, xv, wr[2]);
                d3 = mac(d3, xv, wr[3]);
              } else {
                d0 = mac(d0, xs[0], wr[0]);
                d1 = mac(d1, xs[1], wr[1]);
                d2 = mac(d2, xs[2], wr[2]);
                d3 = mac(d3, xs[3], wr[3]);
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
                  a0 = mac(a0, xv, ws[0]);
                  a1 = mac(a1, xv, ws[1]);
                  a2 = mac(a2, xv, ws[2]);
                  a3 = mac(a3, xv, ws[3]);
                } else {
                  a0 = mac(a0, xs[0] + ioff, ws[0]);
                  a1 = mac(a1, xs[1] + ioff, ws[1]);
                  a2 = mac(a2, xs[2] + ioff, ws[2]);
                  a3 = mac(a3, xs[3] + ioff, ws[3]);
                }
              }
            }
          }
        }
        py[0] = finish(oq, r0, a0);
        py[1] = finish(oq, r1, a1);
        py[2] = finish(oq, r2, a2);
        py[3] = finish(oq, r3, a3);
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
            for (int32_t t = 0; t < kx1 - kx0; ++t) a = mac(a, xr[t * cin] + ioff, wr[t * c]);
        }
        py[ch] = finish(j, ch, a);
      }
    }
  }
}
#endif

}  // namespace

Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DwJob job;
  const Error e = int8::parse_depthwise_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  if (job.dil.h != 1 || job.dil.w != 1) int8::depthwise_nhwc_ref(job);
#if ETMCU_INT8_MVE
  else if (job.cm == 1)
    depthwise_channels<false>(job);
  else if (job.cm % 4 == 0)
    depthwise_channels<true>(job);  // e.g. KWS's first layer: 1 -> 64 channels
#else
  else if (job.cm == 1)
    depthwise_blocks<false>(job);
  else if (job.cm % 4 == 0)
    depthwise_blocks<true>(job);
#endif
  else
    int8::depthwise_nhwc_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
