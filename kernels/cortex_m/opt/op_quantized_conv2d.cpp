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
#include <string.h>

#include "int8_dot.h"                    // isa/<isa>/int8_dot.h
#include "kernels/api/alias_contract.h"  // kPointwiseStripPixels
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/conv2d.h"
#include "kernels/cortex_m/util/output_q.h"
#include "kernels/cortex_m/util/paths.h"
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
// last channel the block repeats it (computed, not stored). Channels below all_done are done;
// below interior_done only their border pixels are left.
__attribute__((noinline)) void conv_rows(const int8::ConvJob& j, int32_t interior_done,
                                         int32_t all_done, int32_t kwi, bool rows_clipped) {
  const int32_t c = j.in.c, kw = j.kw, kh = j.kh, row = kw * c, filter = kh * row;
  const int32_t out_pixels = j.out.h * j.out.w;
  const OutputQ oq{j.ooff, j.amin, j.amax};
  for (int32_t oc = all_done; oc < j.out.c; oc += kOc) {
    int32_t ch[kOc], full[kOc];
    // blocks the micro-kernel computed inside: only their border pixels are left
    const bool border_only = oc + kOc <= interior_done;
    const int8_t* f[kOc];
    for (int k = 0; k < kOc; ++k) ch[k] = oc + k < j.out.c ? oc + k : j.out.c - 1;
    int8::BlockRequant<kOc> rq;  // prepared once per block, not per output
    rq.prepare(j.mult, j.shift, ch, j.ooff);
    for (int k = 0; k < kOc; ++k) {
      f[k] = j.w + static_cast<size_t>(ch[k]) * filter;
      // bias + ioff * sum(w) for pixels whose receptive field is entirely inside the input
      full[k] = wrap_add(j.bias ? j.bias[ch[k]] : 0,
                         j.ioff == 0 ? 0 : wrap_mul(j.ioff, int8::row_sum(f[k], filter)));
    }
    const int stored = j.out.c - oc < kOc ? j.out.c - oc : kOc;
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
          if (border_only && (rows_inside || rows_clipped) && ix0 >= 0 && ix0 + kwi <= j.in.w)
            continue;
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

// 1x1, stride 1, unpadded layers: the output pixels (memory order, batches included) in strips
// of `strip`, every channel of a strip before the next strip's input is read. With the out over
// its input (a plan below the naive floor) the strips are kPointwiseStripPixels long, so the out
// may begin d bytes before its input, or e bytes after it with the strips taken last to first
// (`reverse`; pointwise_distance, kernels/api/alias_contract.h); otherwise one strip holds every
// pixel (one micro-kernel call per block: fewer calls).
// Blocks of four channels whose requantization and sums fit the micro-kernel's contract go
// through it (from the first, as interior_blocks), the rest through dot(). The folded biases are
// kept for kStripCachedChannels channels at a time (512 B of stack): a strip passes a chunk's
// blocks to the kernel in one call (pointwise_groups). A layer with more channels folds each
// chunk past the first again where a strip needs it (once per call in one strip, the layers that
// are not over their input: MobileNetV1's 256-channel ones).
constexpr int32_t kStripCachedChannels = 128;

// full[k] = bias + ioff * sum(w) of channel first + k, for the kStripCachedChannels channels from
// `first` on (fewer at the end).
__attribute__((noinline)) void fold_biases(const int8::ConvJob& j, int32_t first, int32_t* full) {
  const int32_t c = j.in.c, left = j.out.c - first;
  const int32_t n = left < kStripCachedChannels ? left : kStripCachedChannels;
  if (j.ioff == 0) {  // (our exports fold the offset into the bias where no window is padded)
    for (int32_t k = 0; k < n; ++k) full[k] = j.bias ? j.bias[first + k] : 0;
    return;
  }
  int8::row_sums(j.w + static_cast<size_t>(first) * c, c, n, full);
  for (int32_t k = 0; k < n; ++k)
    full[k] = wrap_add(j.bias ? j.bias[first + k] : 0, wrap_mul(j.ioff, full[k]));
}

// Whether channels [0, n) all fit the micro-kernel's contract (requant_4v_ok, |full| <
// kPointwiseMaxFull): unsigned compares without branches, as dw_plane_values_ok (the loop
// block by block below took MobileNetV1's 128-channel layers about 2,500 cycles each).
bool channels_fit(const int32_t* mult, const int32_t* shift, const int32_t* full, int32_t n) {
  constexpr uint32_t kLim = static_cast<uint32_t>(int8::kPointwiseMaxFull);
  uint32_t bad = 0;
  for (int32_t ch = 0; ch < n; ++ch)
    bad |= static_cast<uint32_t>(mult[ch] <= 0) |
           static_cast<uint32_t>(static_cast<uint32_t>(shift[ch]) + 20u > 19u) |
           static_cast<uint32_t>(static_cast<uint32_t>(full[ch]) + (kLim - 1) > 2 * kLim - 2);
  return bad == 0;
}

// The requantization form of a groups call over channels [0, n): pointwise_groups takes one for
// all its blocks (pointwise_form_ok per block elsewhere), the dyadic kernel (*dyadic) where every
// channel is dyadic, else the frexp one. False: this build has neither kernel for them.
bool groups_form(const int8::ConvJob& j, int32_t n, bool* dyadic) {
  *dyadic = false;
  if (!int8::kPointwiseDyadic) return true;
  // (the path's bit first: a build without the dyadic kernel compiles no test; it then takes
  // every layer in the frexp form, the same bits, without recording the dyadic path as wanted)
  *dyadic = kernel_path_on(int8::kPathDyadic) && cmsis::all_dyadic(j.mult, j.shift, n) &&
            j.ooff >= -128 && j.ooff <= 127 &&
            int8::dyadic_clamp_ok(j.amin, j.amax, int8::negative_floor(j.amin, j.ooff)) &&
            kernel_path_or_fallback(int8::kPathDyadic);
  return *dyadic || kernel_path_or_fallback(int8::kPathFrexp);
}

// The micro-kernel's block for pixels of one run of `run` bytes each, the next pixel's run as far
// on as the next channel's weights (1x1 layers, gathered columns), outputs C_out apart.
int8::PointwiseBlock run_block(const int8::ConvJob& j, int32_t run, bool dyadic) {
  int8::PointwiseBlock b;
  b.dyadic = dyadic ? 1 : 0;
  int8::set_run(b, run);
  b.x_step = run;
  b.y_step = j.out.c;
  b.amin = j.amin;
  b.amax = j.amax;
  b.rows = 1;
  b.row_skip = 0;
  b.w_stride = run;
  b.neg_floor = int8::negative_floor(j.amin, j.ooff);
  b.w_row_skip = 0;
  return b;
}

// The ISAs with dyadic block forms but no dyadic kernel (PointwiseDyadicBlocks::on: plain RV32)
// run a 1x1 layer's blocks of a fused ReLU in that form (pointwise_groups_relu_dy_c) when every
// channel of [0, blocks) is dyadic and the layer has kDyadicGroupsPixels pixels or more (fewer do
// not repay the divisions): true, with the sums' clamps V in bounds[0, blocks) (one division a
// channel, once per call; pointwise_strips passes its full_buf, free when the bias is the folded
// bias).
constexpr int32_t kDyadicGroupsPixels = 32;
// (The caller tests the ISA's flags and the path's bit first: the other ISAs and a build without
// the bit call none of this, and link neither it nor the form's subroutine.)
__attribute__((noinline)) bool relu_dy_bounds(const int8::ConvJob& j, int32_t blocks,
                                              int32_t pixels, int32_t* bounds) {
  if (blocks > kStripCachedChannels || pixels < kDyadicGroupsPixels || j.amin != j.ooff ||
      j.ooff < -128 || j.amax > 127 || !cmsis::all_dyadic(j.mult, j.shift, blocks) ||
      !kernel_path_or_fallback(int8::kPathDyadic))
    return false;
  for (int32_t ch = 0; ch < blocks; ++ch)
    bounds[ch] = cmsis::dyadic_relu(j.mult[ch], j.ooff, j.amax).v_max;
  return true;
}

// The next strip of pointwise_strips: pixels [first, first + pixels). With the out over its input
// (strip < total: the contract's S, kernels/api/alias_contract.h), as long as the actual gap
// allows: a strip's outputs must not reach the input pixels it or a later strip still reads, so
// first to last (the out `gap` bytes before the input) a strip [a, b) needs b * Cout - gap <=
// a * Cin, last to first (the out `gap` bytes after it) gap + a * Cout >= b * Cin. The contract's
// strips of S meet both for every gap method load accepts, so a strip never ends before the
// next multiple of S (first to last) or starts after the last one below its end (last to
// first); where the channels grow (MobileNetV1's 8 -> 16, last to first) the strips double,
// where they shrink first to last too: fewer strips, each setting its blocks up again. Layers
// whose strips would not grow keep the strips of S (two divisions a strip saved).
struct StripSpan {
  int32_t first, pixels;
};
StripSpan next_strip(int32_t done, int32_t total, int32_t strip, uint32_t cin, uint32_t cout,
                     uint32_t gap, bool reverse) {
  // (byte offsets in one tensor or arena: unsigned 32-bit, as a sum could pass 2^31; no 64-bit
  // division, a library call on these cores)
  if (strip >= total) return StripSpan{0, total};
  if (reverse ? cout <= cin : cin <= cout) {  // (the strips would not grow: S, no division)
    const int32_t first = reverse ? (total - done - 1) / strip * strip : done;
    const int32_t end = reverse ? total - done : (total - done < strip ? total : done + strip);
    return StripSpan{first, end - first};
  }
  if (!reverse) {
    const uint32_t a = static_cast<uint32_t>(done);
    uint32_t b = (a * cin + gap) / cout;
    const uint32_t s_end = (a / strip + 1) * strip;
    if (b < s_end) b = s_end;
    if (b > static_cast<uint32_t>(total)) b = static_cast<uint32_t>(total);
    return StripSpan{done, static_cast<int32_t>(b - a)};
  }
  const uint32_t b = static_cast<uint32_t>(total - done);
  const uint32_t in_end = b * cin;
  uint32_t a = in_end <= gap ? 0 : (in_end - gap + cout - 1) / cout;
  const uint32_t s_first = (b - 1) / strip * strip;
  if (a > s_first) a = s_first;
  return StripSpan{static_cast<int32_t>(a), static_cast<int32_t>(b - a)};
}

// False: channels the micro-kernel cannot take need the dot-product path, which this build left
// out (nothing written).
ETMCU_HOT_ALIGN __attribute__((noinline)) bool pointwise_strips(const int8::ConvJob& j,
                                                                int32_t strip, bool reverse) {
  const int32_t c = j.in.c, cout = j.out.c;
  const int32_t pixels = j.out.n * j.out.h * j.out.w;
  const OutputQ oq{j.ooff, j.amin, j.amax};
  // The folded biases: the bias itself where the input offset is 0 (our exports fold it into the
  // bias where no window is padded: no copy, MobileNetV1's 128-channel layers 1,442 cycles
  // less each), else folded into full_buf kStripCachedChannels at a time.
  const bool bias_is_full = j.ioff == 0 && j.bias != nullptr;
  int32_t full_buf[kStripCachedChannels];
  int32_t cached_from = 0;  // full_buf holds the folded biases of channels cached_from + [0, 128)
  if (!bias_is_full) fold_biases(j, 0, full_buf);
  auto folded = [&](int32_t ch) {
    return wrap_add(
        j.bias ? j.bias[ch] : 0,
        j.ioff == 0 ? 0 : wrap_mul(j.ioff, int8::row_sum(j.w + static_cast<size_t>(ch) * c, c)));
  };
  int32_t blocks = 0;  // channels [0, blocks) by the micro-kernel
  if (int8::kPointwise4ch && c % 4 == 0 && c < int8::kPointwiseMaxRow &&
      ((reinterpret_cast<uintptr_t>(j.x) | reinterpret_cast<uintptr_t>(j.w)) & 3u) == 0) {
    const int32_t whole = cout / 4 * 4;
    if ((bias_is_full || whole <= kStripCachedChannels) &&
        channels_fit(j.mult, j.shift, bias_is_full ? j.bias : full_buf, whole)) {
      blocks = whole;
    } else {  // the blocks that fit, from the first
      for (bool ok = true; ok && blocks + 4 <= cout; blocks += ok ? 4 : 0)
        for (int k = 0; k < 4 && ok; ++k) {
          const int32_t ch = blocks + k;
          const int32_t f = bias_is_full                ? j.bias[ch]
                            : ch < kStripCachedChannels ? full_buf[ch]
                                                        : folded(ch);
          ok = cmsis::requant_4v_ok(j.mult[ch], j.shift[ch]) && f > -int8::kPointwiseMaxFull &&
               f < int8::kPointwiseMaxFull;
        }
    }
  }
  bool dyadic = false;
  if (blocks > 0 && !groups_form(j, blocks, &dyadic)) blocks = 0;
  if (blocks < cout && !kernel_path(int8::kPathConvPointwiseDot)) return false;
  // (the ISA's flags and the path's bit tested here too: the other ISAs, and a build without the
  // bit, then compile no dyadic block code)
  constexpr bool kRv32Forms = int8::PointwiseDyadicBlocks::on && !int8::kPointwiseDyadic;
  const int32_t* relu_bounds = kRv32Forms && kernel_path_on(int8::kPathDyadic) && blocks > 0 &&
                                       bias_is_full && relu_dy_bounds(j, blocks, pixels, full_buf)
                                   ? full_buf
                                   : nullptr;
  int8::PointwiseBlock b = run_block(j, c, dyadic);
  const uint32_t gap = static_cast<uint32_t>(reverse ? j.y - j.x : j.x - j.y);  // (strip < pixels)
  for (int32_t done = 0; done < pixels;) {  // the last strip first when the out follows the input
    const StripSpan st = next_strip(done, pixels, strip, static_cast<uint32_t>(c),
                                    static_cast<uint32_t>(cout), gap, reverse);
    const int32_t p0 = st.first, np = st.pixels;
    done += np;
    const int8_t* xs = j.x + static_cast<size_t>(p0) * c;
    int8_t* ys = j.y + static_cast<size_t>(p0) * cout;
    b.x = xs;
    b.pixels = np;
    // the micro-kernel's blocks, a chunk of cached channels per call (the Xpulp kernel loops
    // itself)
    for (int32_t first = 0; first < blocks; first += kStripCachedChannels) {
      if (!bias_is_full && first != cached_from) {  // (only layers of more than 128 channels)
        fold_biases(j, first, full_buf);
        cached_from = first;
      }
      const int32_t n =
          blocks - first < kStripCachedChannels ? blocks - first : kStripCachedChannels;
      b.w = j.w + static_cast<size_t>(first) * c;
      b.y = ys + first;
      b.groups = n / 4;
      b.group_full = bias_is_full ? j.bias + first : full_buf;
      b.group_mult = j.mult + first;
      b.group_shift = j.shift + first;
      b.group_offset = j.ooff;
      if (relu_bounds != nullptr)  // (then blocks <= kStripCachedChannels: first is 0)
        int8::pointwise_groups_relu_dy_c<int8::PointwiseDyadicBlocks>(
            b, relu_bounds, [](const int8::PointwiseBlock& one) { int8::pointwise_4ch(one); });
      else
        int8::pointwise_groups(b);
      b.groups = 0;
    }
    for (int32_t oc = blocks; oc < cout;
         oc += kOc) {  // past the last channel: repeated, not stored
      int32_t ch[kOc], fk[kOc];
      const int8_t* f[kOc];
      for (int k = 0; k < kOc; ++k) {
        ch[k] = oc + k < cout ? oc + k : cout - 1;
        f[k] = j.w + static_cast<size_t>(ch[k]) * c;
        const int32_t cached = ch[k] - cached_from;
        fk[k] = bias_is_full                                   ? j.bias[ch[k]]
                : cached >= 0 && cached < kStripCachedChannels ? full_buf[cached]
                                                               : folded(ch[k]);
      }
      int8::BlockRequant<kOc> rq;
      rq.prepare(j.mult, j.shift, ch, j.ooff);
      const int stored = cout - oc < kOc ? cout - oc : kOc;
      for (int32_t p = 0; p < np; ++p) {
        int32_t d[kOc] = {};
        dot(xs + static_cast<size_t>(p) * c, f, c, d);
        int8_t* py = ys + static_cast<size_t>(p) * cout + oc;
        if (rq.folded)
          for (int k = 0; k < stored; ++k) py[k] = finish(oq, rq.f[k], wrap_add(fk[k], d[k]));
        else
          for (int k = 0; k < stored; ++k) py[k] = finish(oq, rq.g[k], wrap_add(fk[k], d[k]));
      }
    }
  }
  return true;
}

// The output pixels whose receptive field lies inside the input, along one axis: [first, end).
struct Inside {
  int32_t first, end;
};
Inside inside(int32_t in, int32_t out, int32_t k, int32_t stride, int32_t pad) {
  const int32_t first = (pad + stride - 1) / stride;
  const int32_t last = in - k + pad;  // the largest o * stride that still fits
  int32_t end = last < 0 ? 0 : last / stride + 1;
  if (end > out) end = out;
  return Inside{first, end > first ? end : first};
}

// Whether some output pixel's receptive field, kwi taps wide, is not inside the input (padding,
// a widened row past the right edge, or the bottom rows of a slab of rows).
bool has_border(const int8::ConvJob& j, int32_t kwi) {
  const Inside ys = inside(j.in.h, j.out.h, j.kh, j.stride.h, j.pad.h);
  const Inside xs = inside(j.in.w, j.out.w, kwi, j.stride.w, j.pad.w);
  return ys.first > 0 || ys.end < j.out.h || xs.first > 0 || xs.end < j.out.w;
}

// The width the pointwise micro-kernel reads per kernel row: kw taps when kw * C is whole words
// or the ISA's kernel takes runs of any length (kPointwiseByteRuns: a 3-channel layer's 27 taps
// cost 27 multiply-accumulates, not 36), else widened to the next kw' whose rows are (C = 3 or 1
// with kw = 3: four taps, the extra tap's weights zero). 0 when widening would more than double
// the row or its repacked weights (four channels) would not fit kWideWeightBytes.
constexpr int32_t kWideWeightBytes = 256;
int32_t interior_width(const int8::ConvJob& j) {
  const int32_t c = j.in.c;
  if (c % 4 == 0 || int8::kPointwiseByteRuns) return j.kw;
  int32_t kwi = j.kw;
  while ((kwi * c) % 4 != 0) ++kwi;
  return kwi <= 2 * j.kw && 4 * j.kh * kwi * c <= kWideWeightBytes ? kwi : 0;
}

// Ungrouped, undilated layers on an ISA with a pointwise micro-kernel (pointwise.h): the pixels
// whose receptive field, kwi = interior_width() taps wide, is inside the input, blocks of four
// output channels from the first on, while each block's requantization and sums fit the
// micro-kernel's contract. A widened row reads kwi - kw real input taps past the window, which its
// zero weights cancel (no offset either: the folded ioff * sum(w) counts the real taps only).
// Returns the first channel not computed; the row path does the rest and the border pixels.
__attribute__((noinline)) int32_t interior_blocks(const int8::ConvJob& j, int32_t kwi,
                                                  bool* rows_clipped, bool* borders_done) {
  const int32_t c = j.in.c, filter = j.kh * j.kw * c;
  *rows_clipped = false;
  *borders_done = false;
  const bool widened = kwi != j.kw;
  const int32_t wide_filter = j.kh * kwi * c;
  if (kwi == 0 || wide_filter >= int8::kPointwiseMaxRow) return 0;
  // (word-aligned rows and pointers where not widened: the Xpulp kernel's loads stay aligned)
  if (!widened && !int8::kPointwiseByteRuns &&
      ((reinterpret_cast<uintptr_t>(j.x) | reinterpret_cast<uintptr_t>(j.w)) & 3u) != 0)
    return 0;
  const Inside ys = inside(j.in.h, j.out.h, j.kh, j.stride.h, j.pad.h);
  const Inside xs = inside(j.in.w, j.out.w, kwi, j.stride.w, j.pad.w);
  if (ys.end <= ys.first || xs.end <= xs.first) return 0;
  // Output rows above or below the interior: the top padding's, and the bottom's (a slab of rows,
  // by_row_slabs, may have bottom padding but none at its top).
  const bool vborder = ys.first > 0 || ys.end < j.out.h;
  alignas(4) int8_t wide[kWideWeightBytes];  // (a fixed size: no VLA, the stack bound stays static)
  int8::PointwiseBlock b;
  int8::set_run(b, kwi * c);
  b.rows = j.kh;
  b.row_skip = (j.in.w - kwi) * c;
  b.w_stride = wide_filter;
  b.x_step = c * j.stride.w;
  // The ISA's subroutine for several kernel rows, if any (plain RV32's depends on x_step too; the
  // border columns below change x_step but keep it: their runs are never the 9 bytes that
  // subroutine takes with filters 27 bytes apart, whose 3x3 windows clip to 6-byte runs).
  int8::set_rows_kernel(b);
  b.y_step = j.out.c;
  b.amin = j.amin;
  b.amax = j.amax;
  b.neg_floor = int8::negative_floor(j.amin, j.ooff);
  b.w_row_skip = 0;
  // (1x1, stride 1, unpadded layers take pointwise_strips instead)
  // The output rows above and below the interior (vertical padding) whose columns are inside:
  // the same kernel over the window rows inside the input (the weights from the first of them
  // on, their sums for the folded offset), so only the left and right border columns are left to
  // gather. Every such row has one input row at least when pad < kh; the constants stay in the
  // kernel's range when |bias| + |ioff| * 128 * filter does (checked once for all blocks).
  constexpr int32_t kMaxClipRows = 8;
  bool bound_ok = false;
  if (vborder || j.pad.w > 0) {
    int64_t bmax = 0;
    for (int32_t ch = 0; ch < j.out.c && j.bias; ++ch)
      bmax = j.bias[ch] < 0 ? (-int64_t(j.bias[ch]) > bmax ? -int64_t(j.bias[ch]) : bmax)
                            : (j.bias[ch] > bmax ? j.bias[ch] : bmax);
    const int64_t ioff = j.ioff < 0 ? -j.ioff : j.ioff;
    bound_ok = bmax + ioff * 128 * static_cast<int64_t>(filter) < int8::kPointwiseMaxFull;
  }
  const bool clip = bound_ok && vborder && j.pad.h < j.kh && j.kh <= kMaxClipRows;
  // The left and right border columns too, where the ISA's kernel skips weight bytes between
  // kernel rows (kPointwiseWeightSkip): each window clipped to its taps inside the input (the
  // weights of those taps, row by row; their sums for the folded offset). Nothing is then
  // gathered. A column's pixels between the border rows go as one run down the column.
  constexpr int32_t kMaxTaps = 16;
  const bool cols = int8::kPointwiseWeightSkip && bound_ok && !widened && j.pad.w > 0 &&
                    j.pad.w < j.kw && j.kh * j.kw <= kMaxTaps && (!vborder || clip);
  int32_t row_sums[4][kMaxClipRows];
  int32_t tap_sums[4][kMaxTaps];
  // The kernel takes q pixels a pass (rows_pass_pixels); each interior row leaves r = width % q
  // to a shorter pass. A pass of one or two pixels costs nearly as much as a full one (the plain
  // core computes one pixel as a pair with itself; with Xpulp a pair's loop takes 14 cycles per
  // 32 multiply-accumulates against the quads' 24 per 64; three go through a loop about as fast
  // as the quads). Where the interior rows R are enough, those r columns go instead as r runs
  // down the interior rows (x_step one input row, as the border columns below): R / q full
  // passes each and at most one short one, for one call more per column: taken when r calls
  // (plus r short passes if R % q) cost less than the R short passes of the rows.
  int32_t tail = 0;
  {
    const int32_t q = int8::rows_pass_pixels(b), width = xs.end - xs.first,
                  rows_in = ys.end - ys.first;
    const int32_t r = q > 0 ? width % q : 0;
    if (r > 0 && r <= 2 && width >= q && r * (1 + (rows_in % q != 0 ? 1 : 0)) < rows_in) tail = r;
  }
  int32_t oc = 0;
  for (; oc + 4 <= j.out.c; oc += 4) {
    bool ok = true;
    for (int k = 0; k < 4 && ok; ++k) {
      const int32_t ch = oc + k;
      const int8_t* w = j.w + static_cast<size_t>(ch) * filter;
      // sum(w): per kernel row when the border rows are clipped (their sums are needed there)
      int32_t sw = 0;
      if (cols) {
        int8::row_sums(w, c, j.kh * j.kw, tap_sums[k]);  // (the taps' rows are back to back)
        for (int32_t ky = 0; ky < j.kh; ++ky) {  // (kh <= kMaxClipRows: kw >= 2, kh * kw <= 16)
          int32_t sr = 0;
          for (int32_t kx = 0; kx < j.kw; ++kx) sr += tap_sums[k][ky * j.kw + kx];
          if (clip) row_sums[k][ky] = sr;
          sw += sr;
        }
      } else if (clip) {
        for (int32_t ky = 0; ky < j.kh; ++ky) {
          const int8_t* wr = w + ky * j.kw * c;
          row_sums[k][ky] = widened ? byte_sum(wr, j.kw * c) : int8::row_sum(wr, j.kw * c);
          sw += row_sums[k][ky];
        }
      } else if (j.ioff != 0) {
        sw = widened ? byte_sum(w, filter) : int8::row_sum(w, filter);
      }
      const int32_t full = wrap_add(j.bias ? j.bias[ch] : 0, wrap_mul(j.ioff, sw));
      ok = cmsis::requant_4v_ok(j.mult[ch], j.shift[ch]) && full > -int8::kPointwiseMaxFull &&
           full < int8::kPointwiseMaxFull;
      if (!ok) break;
      b.full[k] = full;
      int8::set_requant<int8::kPointwiseRequant2v, int8::kPointwiseDyadic>(b, k, j.mult[ch],
                                                                           j.shift[ch], j.ooff);
      if (widened)  // each kernel row: its kw * C weights, then zeros to kwi * C
        for (int32_t ky = 0; ky < j.kh; ++ky) {
          int8_t* dst = wide + k * wide_filter + ky * kwi * c;
          memcpy(dst, w + ky * j.kw * c, static_cast<size_t>(j.kw) * c);
          memset(dst + j.kw * c, 0, static_cast<size_t>(kwi - j.kw) * c);
        }
    }
    if (!ok || !int8::pointwise_form_ok<int8::kPointwiseDyadic>(b)) break;
    int8::set_dyadic_block<int8::PointwiseDyadicBlocks>(b, j.mult + oc, j.shift + oc, j.ooff);
    b.w = widened ? wide : j.w + static_cast<size_t>(oc) * filter;
    b.x_step = c * j.stride.w;
    b.pixels = xs.end - xs.first - tail;
    // The interior rows: every row of a batch in one call where the ISA's kernel loops over
    // rows (kPointwiseRowLoop), else one call a row.
    const int32_t rows_a_call = int8::kPointwiseRowLoop ? ys.end - ys.first : 1;
    for (int32_t n = 0; n < j.out.n; ++n)
      for (int32_t oy = ys.first; oy < ys.end; oy += rows_a_call) {
        const int32_t iy = oy * j.stride.h - j.pad.h, ix = xs.first * j.stride.w - j.pad.w;
        b.x = j.x + ((static_cast<size_t>(n) * j.in.h + iy) * j.in.w + ix) * c;
        b.y = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w + xs.first) * j.out.c + oc;
        if constexpr (int8::kPointwiseRowLoop) {
          int8::PointwiseRows rows{rows_a_call, j.stride.h * j.in.w * c, j.out.w * j.out.c};
          int8::pointwise_4ch_rows(b, rows);
        } else {
          int8::pointwise_4ch(b);
        }
      }
    if (tail > 0) {  // the interior's last columns, each as one run down the interior rows
      b.x_step = j.stride.h * j.in.w * c;
      b.y_step = j.out.w * j.out.c;
      b.pixels = ys.end - ys.first;
      for (int32_t n = 0; n < j.out.n; ++n)
        for (int32_t ox = xs.end - tail; ox < xs.end; ++ox) {
          const int32_t iy = ys.first * j.stride.h - j.pad.h, ix = ox * j.stride.w - j.pad.w;
          b.x = j.x + ((static_cast<size_t>(n) * j.in.h + iy) * j.in.w + ix) * c;
          b.y = j.y + ((static_cast<size_t>(n) * j.out.h + ys.first) * j.out.w + ox) * j.out.c + oc;
          int8::pointwise_4ch(b);
        }
      b.x_step = c * j.stride.w;
      b.y_step = j.out.c;
    }
    b.pixels = xs.end - xs.first;  // (the border rows and columns below: whole rows)
    const int32_t full[4] = {b.full[0], b.full[1], b.full[2], b.full[3]};
    const int8_t* w0 = b.w;
    if (cols) {
      // bias + ioff * (the sums of the taps in rows [ky0, ky1), columns [kx0, kx1))
      auto clipped_full = [&](int32_t ky0, int32_t ky1, int32_t kx0, int32_t kx1) {
        for (int k = 0; k < 4; ++k) {
          int32_t sw = 0;
          for (int32_t ky = ky0; ky < ky1; ++ky)
            for (int32_t kx = kx0; kx < kx1; ++kx) sw += tap_sums[k][ky * j.kw + kx];
          b.full[k] = wrap_add(j.bias ? j.bias[oc + k] : 0, wrap_mul(j.ioff, sw));
        }
      };
      for (int32_t n = 0; n < j.out.n; ++n)
        for (int32_t ox = 0; ox < j.out.w; ++ox) {
          if (ox == xs.first) ox = xs.end;  // (the inside columns are done)
          if (ox >= j.out.w) break;
          const int32_t ix0 = ox * j.stride.w - j.pad.w;
          const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
          const int32_t kx1 = j.in.w - ix0 < j.kw ? j.in.w - ix0 : j.kw;
          const int32_t run = (kx1 - kx0) * c;
          int8::set_run(b, run);
          b.row_skip = j.in.w * c - run;
          b.w_row_skip = (j.kw - (kx1 - kx0)) * c;
          if (ys.end > ys.first) {  // the rows whose windows are inside vertically: one run
            clipped_full(0, j.kh, kx0, kx1);
            const int32_t iy = ys.first * j.stride.h - j.pad.h;
            b.rows = j.kh;
            b.w = w0 + kx0 * c;
            b.x = j.x + ((static_cast<size_t>(n) * j.in.h + iy) * j.in.w + ix0 + kx0) * c;
            b.x_step = j.stride.h * j.in.w * c;
            b.pixels = ys.end - ys.first;
            b.y =
                j.y + ((static_cast<size_t>(n) * j.out.h + ys.first) * j.out.w + ox) * j.out.c + oc;
            b.y_step = j.out.w * j.out.c;
            int8::pointwise_4ch(b);
          }
          b.pixels = 1;
          for (int32_t oy = 0; oy < j.out.h; ++oy) {  // the corners
            if (oy == ys.first) oy = ys.end;
            if (oy >= j.out.h) break;
            const int32_t iy0 = oy * j.stride.h - j.pad.h;
            const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
            const int32_t ky1 = j.in.h - iy0 < j.kh ? j.in.h - iy0 : j.kh;
            clipped_full(ky0, ky1, kx0, kx1);
            b.rows = ky1 - ky0;
            b.w = w0 + (ky0 * j.kw + kx0) * c;
            b.x = j.x + ((static_cast<size_t>(n) * j.in.h + iy0 + ky0) * j.in.w + ix0 + kx0) * c;
            b.y = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w + ox) * j.out.c + oc;
            int8::pointwise_4ch(b);
          }
        }
      int8::set_run(b, kwi * c);
      b.row_skip = (j.in.w - kwi) * c;
      b.w_row_skip = 0;
      b.x_step = c * j.stride.w;
      b.y_step = j.out.c;
      b.pixels = xs.end - xs.first;
      b.rows = j.kh;
      b.w = w0;
      for (int k = 0; k < 4; ++k) b.full[k] = full[k];
    }
    if (!clip) continue;
    for (int32_t n = 0; n < j.out.n; ++n)
      for (int32_t oy = 0; oy < j.out.h; ++oy) {
        if (oy == ys.first) oy = ys.end;  // (the interior rows are done)
        if (oy >= j.out.h) break;
        const int32_t iy0 = oy * j.stride.h - j.pad.h, ix = xs.first * j.stride.w - j.pad.w;
        const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
        const int32_t ky1 = j.in.h - iy0 < j.kh ? j.in.h - iy0 : j.kh;
        for (int k = 0; k < 4; ++k) {
          int32_t sw = 0;
          for (int32_t ky = 0; ky < j.kh; ++ky)
            if (ky < ky0 || ky >= ky1) sw += row_sums[k][ky];
          b.full[k] = wrap_add(full[k], wrap_mul(-j.ioff, sw));  // minus the rows outside
        }
        b.rows = ky1 - ky0;
        b.w = w0 + ky0 * kwi * c;
        b.x = j.x + ((static_cast<size_t>(n) * j.in.h + iy0 + ky0) * j.in.w + ix) * c;
        b.y = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w + xs.first) * j.out.c + oc;
        int8::pointwise_4ch(b);
      }
    b.rows = j.kh;
    for (int k = 0; k < 4; ++k) b.full[k] = full[k];
  }
  *rows_clipped = clip && oc > 0;
  *borders_done = cols && oc > 0;
  return oc;
}

// The receptive field of output pixel (n, oy, ox) as one contiguous column of kp bytes: the
// input's bytes where it is inside, the input's zero point (-ioff, whose taps add nothing) where
// it is in the padding, zeros past the filter (their weights are zero too).
void gather_column(const int8::ConvJob& j, int32_t n, int32_t oy, int32_t ox, int32_t kp,
                   int8_t* col) {
  const int32_t c = j.in.c;
  const int8_t zp = static_cast<int8_t>(-j.ioff);
  const uint32_t zp4 = 0x01010101u * static_cast<uint8_t>(zp);
  // whole words when every tap is (C a multiple of 4; the input and the column are aligned)
  const bool words = c % 4 == 0 && (reinterpret_cast<uintptr_t>(j.x) & 3u) == 0;
  const int32_t iy0 = oy * j.stride.h - j.pad.h, ix0 = ox * j.stride.w - j.pad.w;
  // each kernel row: its taps left of the input, inside it (one run of bytes), right of it
  const int32_t kx0 = ix0 < 0 ? (-ix0 < j.kw ? -ix0 : j.kw) : 0;
  const int32_t kx1 = ix0 + j.kw > j.in.w ? (j.in.w - ix0 > kx0 ? j.in.w - ix0 : kx0) : j.kw;
  const int32_t row = j.kw * c, left = kx0 * c, inside = (kx1 - kx0) * c;
  int8_t* dst = col;
  for (int32_t ky = 0; ky < j.kh; ++ky, dst += row) {
    const int32_t iy = iy0 + ky;
    const bool row_in = iy >= 0 && iy < j.in.h;
    const int8_t* src =
        j.x + ((static_cast<size_t>(n) * j.in.h + iy) * j.in.w + ix0 + kx0) * c;  // if row_in
    if (words) {
      uint32_t* d4 = reinterpret_cast<uint32_t*>(dst);
      const uint32_t* s4 = reinterpret_cast<const uint32_t*>(src);
      if (!row_in) {
        for (int32_t i = 0; i < row / 4; ++i) d4[i] = zp4;
        continue;
      }
      for (int32_t i = 0; i < left / 4; ++i) d4[i] = zp4;
      d4 += left / 4;
#pragma GCC unroll 4
      for (int32_t i = 0; i < inside / 4; ++i) d4[i] = s4[i];
      d4 += inside / 4;
      for (int32_t i = 0; i < (row - left - inside) / 4; ++i) d4[i] = zp4;
    } else {
      if (!row_in) {
        for (int32_t i = 0; i < row; ++i) dst[i] = zp;
        continue;
      }
      for (int32_t i = 0; i < left; ++i) dst[i] = zp;
#pragma GCC unroll 4
      for (int32_t i = 0; i < inside; ++i) dst[left + i] = src[i];
      for (int32_t i = left + inside; i < row; ++i) dst[i] = zp;
    }
  }
  for (; dst < col + kp; ++dst) *dst = 0;
}

// Stack bytes for the columns (and repacked weights) of the im2col path.
constexpr int32_t kIm2colBytes = 640;

// Ungrouped, undilated layers through the pointwise micro-kernel on gathered columns (above): the
// border pixels of the blocks below `limit` (border_only), or every pixel (layers whose rows are
// not word-aligned, e.g. a 3-channel first layer: the weights then repacked with a zero tail).
// Returns the first channel not computed.
__attribute__((noinline)) int32_t im2col_blocks(const int8::ConvJob& j, bool border_only,
                                                int32_t limit, int32_t kwi, bool rows_clipped) {
  const int32_t c = j.in.c, filter = j.kh * j.kw * c, kp = (filter + 3) / 4 * 4;
  if (j.ioff < -127 || j.ioff > 128 || kp >= int8::kPointwiseMaxRow) return 0;
  const bool repack = filter % 4 != 0 || (reinterpret_cast<uintptr_t>(j.w) & 3u) != 0;
  const int32_t wbytes = repack ? 4 * kp : 0;
  constexpr int32_t kMaxCols = 32;
  int32_t cols = (kIm2colBytes - wbytes) / kp;  // columns that fit beside the weights
  if (cols < 1) return 0;
  if (cols > kMaxCols) cols = kMaxCols;
  alignas(4) int8_t buf[kIm2colBytes];
  int8_t* col = buf + wbytes;
  const Inside ys = inside(j.in.h, j.out.h, j.kh, j.stride.h, j.pad.h);
  const Inside xs = inside(j.in.w, j.out.w, kwi, j.stride.w, j.pad.w);  // as interior_blocks
  int8::PointwiseBlock b;
  int8::set_run(b, kp);
  b.rows = 1;
  b.row_skip = 0;
  b.w_stride = repack ? kp : filter;
  b.x_step = kp;
  b.amin = j.amin;
  b.amax = j.amax;
  b.neg_floor = int8::negative_floor(j.amin, j.ooff);
  b.w_row_skip = 0;
  // Block oc's parameters (and repacked weights) into b; false when it is outside the contract.
  auto prepare = [&](int32_t oc) {
    for (int k = 0; k < 4; ++k) {
      const int32_t ch = oc + k;
      const int8_t* w = j.w + static_cast<size_t>(ch) * filter;
      const int32_t full = wrap_add(
          j.bias ? j.bias[ch] : 0,
          j.ioff == 0 ? 0
                      : wrap_mul(j.ioff, repack ? byte_sum(w, filter) : int8::row_sum(w, filter)));
      if (!cmsis::requant_4v_ok(j.mult[ch], j.shift[ch]) || full <= -int8::kPointwiseMaxFull ||
          full >= int8::kPointwiseMaxFull)
        return false;
      b.full[k] = full;
      int8::set_requant<int8::kPointwiseRequant2v, int8::kPointwiseDyadic>(b, k, j.mult[ch],
                                                                           j.shift[ch], j.ooff);
      if (repack) {
        memcpy(buf + k * kp, w, filter);
        memset(buf + k * kp + filter, 0, kp - filter);
      }
    }
    if (!int8::pointwise_form_ok<int8::kPointwiseDyadic>(b)) return false;
    b.w = repack ? buf : j.w + static_cast<size_t>(oc) * filter;
    return true;
  };
  // The blocks that fit the contract, from the first.
  int32_t done = 0;
  while (done + 4 <= limit && prepare(done)) done += 4;
  if (done == 0) return 0;
  // The pixels to compute, in order: f(n, oy, ox, index of the first output byte).
  auto for_pixels = [&](auto&& f) {
    for (int32_t n = 0; n < j.out.n; ++n)
      for (int32_t oy = 0; oy < j.out.h; ++oy) {
        const size_t row = (static_cast<size_t>(n) * j.out.h + oy) * j.out.w;
        if (!border_only || (!rows_clipped && (oy < ys.first || oy >= ys.end))) {
          for (int32_t ox = 0; ox < j.out.w; ++ox) f(n, oy, ox, (row + ox) * j.out.c);
        } else {  // only the left and right borders of this row
          for (int32_t ox = 0; ox < xs.first; ++ox) f(n, oy, ox, (row + ox) * j.out.c);
          for (int32_t ox = xs.end; ox < j.out.w; ++ox) f(n, oy, ox, (row + ox) * j.out.c);
        }
      }
  };
  // Run blocks [oc_first, oc_end) over the held columns, two pixels per call (each block's
  // parameters prepared first unless `prepared`).
  size_t yoff[kMaxCols];
  int32_t held = 0;
  auto flush = [&](int32_t oc_first, int32_t oc_end, bool prepared) {
    for (int32_t oc = oc_first; oc < oc_end; oc += 4) {
      if (!prepared) prepare(oc);
      for (int32_t i = 0; i < held; i += 2) {
        b.x = col + i * kp;
        b.y = j.y + yoff[i] + oc;
        b.pixels = i + 1 < held ? 2 : 1;
        b.y_step = i + 1 < held ? static_cast<int32_t>(yoff[i + 1] - yoff[i]) : 0;
        int8::pointwise_4ch(b);
      }
    }
    held = 0;
  };
  if (cols >= 4) {
    // Batches of pixels gathered once for every block (the block's parameters are prepared again
    // per batch: cheaper than gathering each pixel once per block).
    for_pixels([&](int32_t n, int32_t oy, int32_t ox, size_t y) {
      gather_column(j, n, oy, ox, kp, col + held * kp);
      yoff[held++] = y;
      if (held == cols) flush(0, done, false);
    });
    if (held) flush(0, done, false);
  } else {
    // Few columns fit: blocks outermost, each pixel gathered once per block.
    for (int32_t oc = 0; oc < done; oc += 4) {
      prepare(oc);
      for_pixels([&](int32_t n, int32_t oy, int32_t ox, size_t y) {
        gather_column(j, n, oy, ox, kp, col + held * kp);
        yoff[held++] = y;
        if (held == cols) flush(oc, oc + 4, true);
      });
      if (held) flush(oc, oc + 4, true);
    }
  }
  return done;
}

// Stack bytes for im2col_runs: the folded biases and repacked weights where needed, then the
// columns.
constexpr int32_t kRunBytes = 768;

// Layers whose pixels' receptive fields the pointwise kernel's four- and five-pixel loops cannot
// step through (they need the next pixel's field as far on as the next channel's weights), on an
// ISA whose kernel reads words (kPointwiseIm2colRuns, isa/xpulp): window rows that are not whole
// words (a 3-channel first layer: 27 taps) and strided 1x1 layers (ResNet-8's shortcuts). The
// output pixels, in runs of as many columns as fit (across output rows), are gathered into
// columns of kp = 4 * ceil(filter / 4) bytes (the windows inside the input by copy_lines, a kernel
// row for all of them at once; the border ones by gather_column) and computed as a 1x1 layer of kp
// bytes a pixel in one call for every block of four channels (pointwise_groups). A 3x3 layer on 3
// channels so takes 28 lanes an output, where interior_blocks' widened rows take the three-pixel
// loop over 36 and one call per row and block; a strided 1x1 one takes the loops of a stride-1 one.
// Weights that are not whole aligned words are repacked once per call (each filter followed by
// zeros to kp: the columns' tails meet only zero weights). False (nothing written) when the layer
// does not fit (every channel must: the other paths then take it).
__attribute__((noinline)) bool im2col_runs(const int8::ConvJob& j) {
  const int32_t c = j.in.c, cout = j.out.c, filter = j.kh * j.kw * c;
  const int32_t kp = (filter + 3) / 4 * 4;
  const bool repack = kp != filter || (reinterpret_cast<uintptr_t>(j.w) & 3u) != 0;
  const bool bias_is_full = j.ioff == 0 && j.bias != nullptr;  // (else the folded biases here)
  const int32_t head = (bias_is_full ? 0 : 4 * cout) + (repack ? cout * kp : 0);
  if (cout % 4 != 0 || kp >= int8::kPointwiseMaxRow || j.ioff < -127 || j.ioff > 128 ||
      head > kRunBytes - 4 * kp)
    return false;
  // Runs of a multiple of four pixels, and where the kernel takes five at a time (a fused ReLU,
  // an even number of words) ones that leave 0 or 4 after the fives: its four- and five-pixel
  // loops leave none of a full run to its slower three-, two- and one-pixel code. (Runs go on
  // from one output row to the next: the outputs are contiguous.)
  int32_t cols = (kRunBytes - head) / kp / 4 * 4;
  if (int8::negative_floor(j.amin, j.ooff) == 0 && kp % 8 == 0)
    while (cols > 4 && cols % 5 != 0 && cols % 5 != 4) cols -= 4;
  alignas(4) int8_t buf[kRunBytes];
  int32_t* full = bias_is_full ? nullptr : reinterpret_cast<int32_t*>(buf);
  int8_t* wts = buf + (bias_is_full ? 0 : 4 * cout);
  int8_t* col = wts + (repack ? cout * kp : 0);
  if (repack) {
    memset(wts, 0, static_cast<size_t>(cout) * kp);
    for (int32_t ch = 0; ch < cout; ++ch)
      memcpy(wts + ch * kp, j.w + static_cast<size_t>(ch) * filter, filter);
  }
  const int8_t* w = repack ? wts : j.w;
  if (!bias_is_full) {
    // (sums of the aligned rows, repacked ones' zero tails adding nothing)
    if (j.ioff != 0) int8::row_sums(w, kp, cout, full);
    for (int32_t ch = 0; ch < cout; ++ch)
      full[ch] = wrap_add(j.bias ? j.bias[ch] : 0, j.ioff == 0 ? 0 : wrap_mul(j.ioff, full[ch]));
  }
  if (!channels_fit(j.mult, j.shift, bias_is_full ? j.bias : full, cout)) return false;
  bool dyadic = false;
  if (!groups_form(j, cout, &dyadic)) return false;
  for (int32_t i = 0; i < cols; ++i)
    for (int32_t t = filter; t < kp; ++t) col[i * kp + t] = 0;  // (1-3 bytes: no memset call)
  int8::PointwiseBlock b = run_block(j, kp, dyadic);
  const Inside xs = inside(j.in.w, j.out.w, j.kw, j.stride.w, j.pad.w);
  const int32_t row = j.kw * c, ow = j.out.w;
  const int32_t pixels = j.out.n * j.out.h * ow;
  int32_t n = 0, oy = 0, ox0 = 0;  // the next pixel to gather
  for (int32_t q0 = 0; q0 < pixels; q0 += cols) {
    const int32_t np = pixels - q0 < cols ? pixels - q0 : cols;
    // the run's pixels row by row: in each, those whose window columns are inside the input,
    // [a, e), each kernel row of them in one copy (the input's zero point for a row in the
    // padding); the others whole
    for (int32_t left = np; left > 0;) {
      const int32_t ox1 = ox0 + left < ow ? ox0 + left : ow;
      int8_t* seg = col + (np - left) * kp;  // pixel ox0's column
      int32_t a = ox0 > xs.first ? ox0 : xs.first, e = ox1 < xs.end ? ox1 : xs.end;
      if (e < a) a = e = ox0;
      for (int32_t ox = ox0; ox < a; ++ox) gather_column(j, n, oy, ox, kp, seg + (ox - ox0) * kp);
      for (int32_t ky = 0; ky < j.kh && e > a; ++ky) {
        const int32_t iy = oy * j.stride.h - j.pad.h + ky, ix = a * j.stride.w - j.pad.w;
        int8_t* dst = seg + (a - ox0) * kp + ky * row;
        if (iy >= 0 && iy < j.in.h)
          int8::copy_lines(dst, kp,
                           j.x + ((static_cast<size_t>(n) * j.in.h + iy) * j.in.w + ix) * c,
                           j.stride.w * c, row, e - a);
        else
          for (int32_t i = 0; i < e - a; ++i) memset(dst + i * kp, -j.ioff, row);
      }
      for (int32_t ox = e > a ? e : a; ox < ox1; ++ox)
        gather_column(j, n, oy, ox, kp, seg + (ox - ox0) * kp);
      left -= ox1 - ox0;
      ox0 = ox1;
      if (ox0 == ow) {  // the next output row
        ox0 = 0;
        if (++oy == j.out.h) oy = 0, ++n;
      }
    }
    // (the kernel moves w, y and the arrays' pointers on as it goes through the blocks)
    b.x = col;
    b.pixels = np;
    b.w = w;
    b.y = j.y + static_cast<size_t>(q0) * cout;
    b.groups = cout / 4;
    b.group_full = bias_is_full ? j.bias : full;
    b.group_mult = j.mult;
    b.group_shift = j.shift;
    b.group_offset = j.ooff;
    int8::pointwise_groups(b);
  }
  return true;
}

// The layer through im2col_runs where that is its path (an ISA that takes gathered runs, and a
// layer whose rows interior_blocks would widen, kwi != kw, or a strided 1x1 one) and it fits:
// true when done (the path marked taken), false with nothing written.
// (inlined: a frame of its own would sit on the deepest stack path, im2col_runs under it)
__attribute__((always_inline)) inline bool gathered_runs(const int8::ConvJob& job) {
  const bool strided_1x1 = job.kh == 1 && job.kw == 1 && (job.stride.h > 1 || job.stride.w > 1);
  if (!int8::kPointwiseIm2colRuns || (interior_width(job) == job.kw && !strided_1x1) ||
      !kernel_path_on(int8::kPathConvIm2col) || !im2col_runs(job))
    return false;
  kernel_path_mark(int8::kPathConvIm2col);
  return true;
}

// One convolution (or one slab of rows of it: by_row_slabs). False when it needs a kernel path
// this firmware left out (util/paths.h).
bool conv_job(const int8::ConvJob& job) {
  const bool rows = job.kc == job.in.c && job.dil.h == 1 && job.dil.w == 1 &&
                    static_cast<int64_t>(job.kh) * job.kw * job.kc < kMaxDotLength;
  if (!rows) {
    if (!kernel_path(int8::kPathConvRef)) return false;
    int8::conv_nhwc_ref(job);
    return true;
  }
  int32_t interior = 0, all = 0;
  const int32_t kwi = interior_width(job);
  bool rows_clipped = false;  // interior_blocks did the inside columns of the border rows too
  bool borders_done = false;  // and every border pixel
  // The block kernels may do nothing for a shape (they return 0): a path counts as taken only
  // when it did some channels.
  auto im2col = [&](bool border_only, int32_t channels, int32_t kw_used, bool clipped) -> int32_t {
    if (!kernel_path_on(int8::kPathConvIm2col)) return 0;
    const int32_t done = im2col_blocks(job, border_only, channels, kw_used, clipped);
    if (done > 0) kernel_path_mark(int8::kPathConvIm2col);
    return done;
  };
  if (gathered_runs(job)) return true;
  if (int8::kPointwise4ch) {
    if (kernel_path_on(int8::kPathConvInterior)) {
      interior = interior_blocks(job, kwi, &rows_clipped, &borders_done);
      if (interior > 0) kernel_path_mark(int8::kPathConvInterior);
    }
    if (interior > 0 && borders_done) {
      all = interior;
    } else if (interior > 0) {
      // border pixels exist only with padding, a widened row or a slab's bottom rows
      all = !has_border(job, kwi) ? interior : im2col(true, interior, kwi, rows_clipped);
    } else {
      all = im2col(false, job.out.c, kwi, false);
    }
  }
  if (all < job.out.c || interior > all) {
    if (!kernel_path(int8::kPathConvRows)) return false;
    conv_rows(job, interior > all ? interior : 0, all, kwi == 0 ? job.kw : kwi, rows_clipped);
  }
  return true;
}

}  // namespace

Error cortex_m_quantized_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::ConvJob job;
  const Error e = int8::parse_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  const bool pointwise = job.kc == job.in.c && job.kh == 1 && job.kw == 1 && job.stride.h == 1 &&
                         job.stride.w == 1 && job.pad.h == 0 && job.pad.w == 0 && job.dil.h == 1 &&
                         job.dil.w == 1;
  // An out placed over its input (a plan below the naive floor): before it, the strips or slabs
  // go first to last; after it, last to first (kernels/api/alias_contract.h).
  const bool overlap = int8::bytes_overlap(job.x, job.in, job.y, job.out);
  const bool reverse = overlap && job.y > job.x;
  bool ok = true;
  if (pointwise) {
    if (job.kc < kMaxDotLength) {
      ok = kernel_path(int8::kPathConvPointwise) &&
           pointwise_strips(
               job, overlap ? kPointwiseStripPixels : job.out.n * job.out.h * job.out.w, reverse);
    } else if (reverse) {
      ok = kernel_path(int8::kPathConvPixelsReverse);
      if (ok) int8::conv_pixels_reverse(job);
    } else {
      ok = kernel_path(int8::kPathConvRef);
      if (ok) int8::conv_nhwc_ref(job);  // (one pixel at a time: within the strips' contract)
    }
  } else if (overlap && int8::row_slabs_apply(job)) {
    // im2col_runs goes through the output pixels first to last, gathering a run's windows before
    // it writes the run's outputs (every channel): within the slabs' contract when the out begins
    // before its input (slab_distance: the writes up to a pixel end no further than its slab's,
    // and the pixels after it read from its row's first window row on, at or below its slab's),
    // so such a layer runs whole, its weights repacked and its biases folded once instead of
    // once a slab.
    if (reverse || !gathered_runs(job)) {
      ok = kernel_path(int8::kPathConvSlabs);  // (the whole layer at once would read what it wrote)
      if (ok)
        int8::by_row_slabs(job, reverse, [&ok](const int8::ConvJob& s) { ok = ok && conv_job(s); });
    }
  } else {
    ok = conv_job(job);
  }
  if (!ok) return kernel_path_missing(ctx);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
