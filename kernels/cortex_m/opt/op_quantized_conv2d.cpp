// cortex_m::quantized_conv2d.out, optimised variants: the same results as ref/ (bit for bit, every
// wrap included), computed so that each loaded byte feeds several multiply-accumulates.
//
// For ungrouped, undilated convolutions (nearly every layer of the MLPerf Tiny models) one
// kernel row of a receptive field is kw * Cin contiguous bytes in both the NHWC input and the
// [Cout, kH, kW, Cin] weight, so a pixel's accumulator is a few long int8 dot products:
//   sum((x + ioff) * w) = sum(x * w) + ioff * sum(w)      (mod 2^32, like ref's wrapping sum)
// sum(w) over the whole filter is computed once per output channel; border pixels (padding)
// use the sum over their valid taps. Output channels go two or four at a time, sharing every
// input load.
// The dot products are the ISA's (isa/<isa>/int8_dot.h, picked by the variant's include path).
// Other layers (groups, dilation) use the reference loop.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/conv2d.h"
#include "kernels/cortex_m/util/output_q.h"
#include "int8_dot.h"   // isa/<isa>/int8_dot.h
#include "pointwise.h"  // isa/<isa>/pointwise.h

namespace etmcu {
namespace kernels {
namespace {

using cmsis::wrap_add;
using cmsis::wrap_mul;

using int8::byte_sum;
using int8::dot;
using int8::kMaxDotLength;
using int8::kOc;

using int8::finish;
using int8::OutputQ;

// Ungrouped, undilated: see the file comment. Channels oc .. oc + kOc - 1 per pass; past the
// last channel the block repeats it (computed, not stored).
__attribute__((noinline)) void conv_rows(const int8::ConvJob& j, int32_t oc_begin) {
  const int32_t c = j.in.c, kw = j.kw, kh = j.kh, row = kw * c, filter = kh * row;
  const int32_t out_pixels = j.out.h * j.out.w;
  const OutputQ oq{j.ooff, j.amin, j.amax};
  for (int32_t oc = oc_begin; oc < j.out.c; oc += kOc) {
    int32_t ch[kOc], full[kOc];
    const int8_t* f[kOc];
    for (int k = 0; k < kOc; ++k) ch[k] = oc + k < j.out.c ? oc + k : j.out.c - 1;
    int8::BlockRequant<kOc> rq;  // prepared once per block, not per output
    rq.prepare(j.mult, j.shift, ch, j.ooff);
    for (int k = 0; k < kOc; ++k) {
      f[k] = j.w + static_cast<size_t>(ch[k]) * filter;
      // bias + ioff * sum(w) for pixels whose receptive field is entirely inside the input
      full[k] = wrap_add(j.bias ? j.bias[ch[k]] : 0, wrap_mul(j.ioff, int8::row_sum(f[k], filter)));
    }
    const int stored = j.out.c - oc < kOc ? j.out.c - oc : kOc;
    // Pixel pairs (kPixelPairs ISAs): a whole block of four channels, word-aligned rows.
    const bool pairs = stored == kOc && c % 4 == 0 &&
                       ((reinterpret_cast<uintptr_t>(j.x) | reinterpret_cast<uintptr_t>(j.w)) & 3u) == 0;
    for (int32_t n = 0; n < j.out.n; ++n) {
      const int8_t* xb = j.x + static_cast<size_t>(n) * j.in.h * j.in.w * c;
      int8_t* yb = j.y + static_cast<size_t>(n) * out_pixels * j.out.c;
      for (int32_t oy = 0; oy < j.out.h; ++oy) {
        const int32_t iy0 = oy * j.stride.h - j.pad.h;
        const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
        const int32_t ky1 = iy0 + kh > j.in.h ? j.in.h - iy0 : kh;
        const bool rows_inside = ky0 == 0 && ky1 == kh;
        for (int32_t ox = 0; ox < j.out.w; ++ox) {
          const int32_t ix0 = ox * j.stride.w - j.pad.w;
          if (int8::kPixelPairs && pairs && rows_inside && ix0 >= 0 && ox + 1 < j.out.w &&
              ix0 + j.stride.w + kw <= j.in.w) {
            // Two interior pixels (ox, ox + 1) by the block's four channels at once.
            int32_t d[2 * kOc] = {};
            const int8_t* xs = xb + (static_cast<size_t>(iy0) * j.in.w + ix0) * c;
            const size_t next = static_cast<size_t>(j.stride.w) * c;
            for (int32_t ky = 0; ky < kh; ++ky) {
              const int8_t* xr = xs + static_cast<size_t>(ky) * j.in.w * c;
              int8::dot_4x2(xr, xr + next, f[0] + ky * row, filter, row, d);
            }
            int8_t* py = yb + (static_cast<size_t>(oy) * j.out.w + ox) * j.out.c + oc;
            for (int p = 0; p < 2; ++p, py += j.out.c) {
              int32_t acc[kOc];
              for (int k = 0; k < kOc; ++k) acc[k] = wrap_add(full[k], d[p * kOc + k]);
              if (rq.folded)
                for (int k = 0; k < kOc; ++k) py[k] = finish(oq, rq.f[k], acc[k]);
              else
                for (int k = 0; k < kOc; ++k) py[k] = finish(oq, rq.g[k], acc[k]);
            }
            ++ox;
            continue;
          }
          const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
          const int32_t kx1 = ix0 + kw > j.in.w ? j.in.w - ix0 : kw;
          int32_t d[kOc] = {}, acc[kOc];
          if (ky0 == 0 && ky1 == kh && kx0 == 0 && kx1 == kw) {
            const int8_t* xs = xb + (static_cast<size_t>(iy0) * j.in.w + ix0) * c;
            for (int32_t ky = 0; ky < kh; ++ky) {
              const int8_t* w[kOc];
              for (int k = 0; k < kOc; ++k) w[k] = f[k] + ky * row;
              dot(xs + static_cast<size_t>(ky) * j.in.w * c, w, row, d);
            }
            for (int k = 0; k < kOc; ++k) acc[k] = wrap_add(full[k], d[k]);
          } else {  // a border pixel: only the taps inside the input, each with its offset
            int32_t s[kOc] = {};
            const int32_t len = (kx1 - kx0) * c;
            for (int32_t ky = ky0; ky < ky1 && len > 0; ++ky) {
              const int8_t* xs = xb + (static_cast<size_t>(iy0 + ky) * j.in.w + ix0 + kx0) * c;
              const int8_t* w[kOc];
              for (int k = 0; k < kOc; ++k) {
                w[k] = f[k] + ky * row + kx0 * c;
                s[k] += byte_sum(w[k], len);
              }
              dot(xs, w, len, d);
            }
            for (int k = 0; k < kOc; ++k)
              acc[k] = wrap_add(wrap_add(j.bias ? j.bias[ch[k]] : 0, wrap_mul(j.ioff, s[k])), d[k]);
          }
          int8_t* py = yb + (static_cast<size_t>(oy) * j.out.w + ox) * j.out.c + oc;
          if (rq.folded)
            for (int k = 0; k < stored; ++k) py[k] = finish(oq, rq.f[k], acc[k]);
          else
            for (int k = 0; k < stored; ++k) py[k] = finish(oq, rq.g[k], acc[k]);
        }
      }
    }
  }
}

// 1x1 layers (no padding) on an ISA with a pointwise micro-kernel: blocks of four output channels
// from the first on, while each block's requantization and sums fit the micro-kernel's contract
// (pointwise.h). Returns the first channel not computed (the row path does the rest).
int32_t pointwise_blocks(const int8::ConvJob& j) {
  const int32_t c = j.in.c;
  if (c % 4 != 0 || c >= int8::kPointwiseMaxRow ||
      ((reinterpret_cast<uintptr_t>(j.x) | reinterpret_cast<uintptr_t>(j.w)) & 3u) != 0)
    return 0;
  int8::PointwiseBlock b;
  b.words = c / 4;
  b.y_step = j.out.c;
  b.amin = j.amin;
  b.amax = j.amax;
  int32_t oc = 0;
  for (; oc + 4 <= j.out.c; oc += 4) {
    bool ok = true;
    for (int k = 0; k < 4 && ok; ++k) {
      const int32_t ch = oc + k;
      const int32_t full =
          wrap_add(j.bias ? j.bias[ch] : 0,
                   wrap_mul(j.ioff, int8::row_sum(j.w + static_cast<size_t>(ch) * c, c)));
      ok = cmsis::requant_2v_ok(j.mult[ch], j.shift[ch]) && full > -int8::kPointwiseMaxFull &&
           full < int8::kPointwiseMaxFull;
      const cmsis::Requant2v q = cmsis::requant_2v(j.mult[ch], j.shift[ch], j.ooff);
      b.full[k] = full;
      b.mult[k] = q.multiplier;
      b.offset_high[k] = q.offset_high;
      b.right[k] = q.right;
      b.round_high[k] = q.offset_high + (int32_t(1) << (q.right - 1));
    }
    if (!ok) break;
    b.w = j.w + static_cast<size_t>(oc) * c;
    if (j.stride.h == 1 && j.stride.w == 1) {  // every pixel's row follows the previous one
      b.x = j.x;
      b.x_step = c;
      b.pixels = j.out.n * j.out.h * j.out.w;
      b.y = j.y + oc;
      int8::pointwise_4ch(b);
      continue;
    }
    b.x_step = c * j.stride.w;
    b.pixels = j.out.w;
    for (int32_t n = 0; n < j.out.n; ++n)
      for (int32_t oy = 0; oy < j.out.h; ++oy) {
        b.x = j.x + ((static_cast<size_t>(n) * j.in.h + static_cast<size_t>(oy) * j.stride.h) *
                     j.in.w) * c;
        b.y = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w) * j.out.c + oc;
        int8::pointwise_4ch(b);
      }
  }
  return oc;
}

}  // namespace

Error cortex_m_quantized_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::ConvJob job;
  const Error e = int8::parse_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  const bool rows = job.kc == job.in.c && job.dil.h == 1 && job.dil.w == 1 &&
                    static_cast<int64_t>(job.kh) * job.kw * job.kc < kMaxDotLength;
  if (!rows) {
    int8::conv_nhwc_ref(job);
    return Error::Ok;
  }
  const bool pointwise = job.kh == 1 && job.kw == 1 && job.pad.h == 0 && job.pad.w == 0;
  const int32_t oc_done = int8::kPointwise4ch && pointwise ? pointwise_blocks(job) : 0;
  if (oc_done < job.out.c) conv_rows(job, oc_done);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
