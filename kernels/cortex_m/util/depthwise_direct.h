// Depthwise 3x3 layers of stride 1 and padding 1 (and of stride 2 without padding) straight from
// NHWC, on cores without vector lanes (plain RV32): per channel, its nine taps in registers and a
// window of three columns of three input rows sliding along each output row, so every output
// costs three byte loads (its new right column; six at stride 2), nine multiply-accumulates and
// its requantization, with no plane to gather.
//
// Why a path of its own: the plane path (util/depthwise_planes.h) gathers each channel's
// zero-point-padded plane, packs its weights and runs its lines, four outputs a pass; on the
// plain CV32E40P that cost 43 cycles an output on MobileNetV1's and DS-CNN's larger planes and 55
// on 6 x 6 ones (the gather, the per-channel set-up and the lines' ends), 62 to 75 at stride 2,
// where the products themselves are 18 instructions.
//
// The padding: a window row above or below the image is left out (the top and bottom output rows
// take two window rows), and the sum starts from bias + ioff * (the taps of the rows taken); a
// column left or right of the image reads as the padding's raw value -ioff, whose products with
// the row's taps cancel that start's share of them. So each output's sum is exactly bias +
// sum of w * (x + ioff) over its taps inside the image.
//
// Taken when every channel is dyadic with a fused ReLU (cmsis::dyadic_relu: a sum clamped to
// [0, V] and one product, as util/depthwise_small.h) and the channel multiplier is 1. Channels go
// one at a time, each its rows top to bottom, as the plane path's: an out over its input goes
// through it under the op's rules for that path (the row contract, or slabs of rows).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace int8 {

using cmsis::wrap_add;
using cmsis::wrap_mul;

// One channel of a layer (or of a slab of its rows) for the ISA's kernel
// (isa/rv32/depthwise_direct.S reads it at these offsets). Its output rows go in up to three
// segments (the top edge row, the rows inside, the bottom edge row), each with its sum's start
// (bias + ioff * the taps of the window rows it takes), its window rows 0 and 2 at d0 and d2
// bytes from the centre row (0 for a row left out, whose taps then count as 0: zero bit 0 for
// window row 0, bit 1 for row 2). The first segment's first centre row is x (channel c, column
// 0); each row's centre row and outputs are rs bytes on from the last's, its outputs C apart.
// A row of W outputs goes as `passes` passes of three from the pass's `entry` step (0, 1 or 2:
// the first pass does 3 - entry outputs; (W - 1) outputs take their right column from the
// image), then its last output with the padding as its right column.
struct DwDirectSegment {
  int32_t rows, start, d0, d2, zero;
};
struct DwDirectArgs {
  const int8_t* x;
  int8_t* y;
  int32_t c_step;  // C
  int32_t passes, entry;
  int32_t rs;                     // W * C: one row of the input (and of the out)
  int32_t pad;                    // the padding's raw value, -ioff
  int32_t v_max, m, offset_high;  // cmsis::DyadicRelu (a sum below 0 gives offset_high >> 21)
  DwDirectSegment seg[3];
  int32_t t[9];  // the taps, row by row
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwDirectArgs, offset_high) == 36 && offsetof(DwDirectArgs, seg) == 40 &&
                   sizeof(DwDirectSegment) == 20 && offsetof(DwDirectArgs, t) == 100),
              "DwDirectArgs layout differs from the one isa/rv32/depthwise_direct.S reads");

// The row's outputs: 3 * passes - entry + 1.
inline int32_t dw_direct_width(const DwDirectArgs& a) { return 3 * a.passes - a.entry + 1; }

// What the ISA's kernel computes, in C (the host; ISAs without their own): per output row, the
// columns left and right of the image read as the padding, the sum from the segment's start over
// the nine products (a left-out window row's taps 0), requantized in cmsis::DyadicRelu's form.
inline void dw_direct_channel_c(const DwDirectArgs& a) {
  const int32_t w = dw_direct_width(a);
  const int8_t* p1 = a.x;
  int8_t* y = a.y;
  for (const DwDirectSegment& g : a.seg) {
    int32_t t[9];
    for (int k = 0; k < 9; ++k)
      t[k] = ((g.zero & 1) && k < 3) || ((g.zero & 2) && k >= 6) ? 0 : a.t[k];
    for (int32_t row = 0; row < g.rows; ++row, p1 += a.rs, y += a.rs) {
      const int8_t* const p[3] = {p1 + g.d0, p1, p1 + g.d2};
      for (int32_t o = 0; o < w; ++o) {
        int32_t v = g.start;
        for (int r = 0; r < 3; ++r)
          for (int k = 0; k < 3; ++k) {
            const int32_t col = o + k - 1;
            const int32_t xv = col < 0 || col >= w ? a.pad : p[r][col * a.c_step];
            v = wrap_add(v, wrap_mul(xv, t[3 * r + k]));
          }
        y[o * a.c_step] =
            static_cast<int8_t>(cmsis::dyadic_relu_requantize(v, a.m, a.v_max, a.offset_high));
      }
    }
  }
}

// Stride 2 without padding (MobileNetV1's stride-2 layers, after the explicit pad our exporter
// emits): every window inside the input, so no segments. Output row oy reads input rows 2 oy ..
// 2 oy + 2 from x + 2 oy * rs_in; output o its columns 2o .. 2o + 2, so each output loads two new
// columns and keeps its right one as the next output's left; outputs go in `pairs` pairs, then
// one more where `odd`.
struct DwDirectS2Args {
  const int8_t* x;  // channel c's first window row, column 0
  int8_t* y;
  int32_t c_step;  // C
  int32_t pairs, odd;
  int32_t rs_in, rs_out;          // one input row, one output row
  int32_t rows;                   // output rows (>= 1)
  int32_t start;                  // bias + ioff * the nine taps' sum
  int32_t v_max, m, offset_high;  // cmsis::DyadicRelu
  int32_t t[9];
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwDirectS2Args, rows) == 28 && offsetof(DwDirectS2Args, start) == 32 &&
                   offsetof(DwDirectS2Args, offset_high) == 44 &&
                   offsetof(DwDirectS2Args, t) == 48),
              "DwDirectS2Args layout differs from the one isa/rv32/depthwise_direct.S reads");

// What the ISA's stride-2 kernel computes, in C.
inline void dw_direct_s2_channel_c(const DwDirectS2Args& a) {
  const int32_t w = 2 * a.pairs + a.odd;
  for (int32_t oy = 0; oy < a.rows; ++oy) {
    const int8_t* const p = a.x + static_cast<ptrdiff_t>(2 * oy) * a.rs_in;
    int8_t* const y = a.y + static_cast<ptrdiff_t>(oy) * a.rs_out;
    for (int32_t o = 0; o < w; ++o) {
      int32_t v = a.start;
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
          v = wrap_add(v, wrap_mul(p[r * a.rs_in + (2 * o + k) * a.c_step], a.t[3 * r + k]));
      y[o * a.c_step] =
          static_cast<int8_t>(cmsis::dyadic_relu_requantize(v, a.m, a.v_max, a.offset_high));
    }
  }
}

// Rows long enough for the path to beat the plane path's (measured on the plain CV32E40P): its
// costs per channel and call (the taps, the sums' starts, V's division, the kernel's entry) and
// per row (pointers, the padding columns) are paid per slab of rows where the out is over its
// input (by_row_slabs: 4 rows), so rows of 5 there took 452,153 cycles against the planes'
// 347,882 (DS-CNN), while whole layers of rows of 6 took 225,926 against 254,805 (MobileNetV1).
// Rows of 8 or more, or of 6 or more in a layer that the op runs whole: its out not over its
// input, or under the row contract a whole number of pixels before it (op_quantized_depthwise_
// conv2d.cpp; such a layer has no slabs). (A slab of a layer that took the planes may take this
// path: its result is the same.)
inline bool dw_direct_wide(const DwJob& j) {
  if (j.in.w >= 8) return true;
  if (j.in.w < 6 || !bytes_overlap(j.x, j.in, j.y, j.out)) return j.in.w >= 6;
  return dw_rows_contract(j) && (j.x - j.y) % j.in.c == 0;
}

// The shape and values of a 3x3 stride-2 layer without padding that a kernel straight from NHWC
// takes (this path's stride-2 form; Xpulp's isa/xpulp/depthwise_s2.h): channel multiplier 1, the
// windows of the out's rows and columns inside the input (a slab of rows too: its input from its
// first window row on), rows of min_width or more outputs, every channel dyadic with a fused ReLU.
inline bool dw_s2_unpadded_ok(const DwJob& j, int32_t min_width) {
  return j.kh == 3 && j.kw == 3 && j.cm == 1 && j.in.c == j.out.c && j.stride.h == 2 &&
         j.stride.w == 2 && j.pad.h == 0 && j.pad.w == 0 && j.out.w >= min_width &&
         2 * j.out.w + 1 <= j.in.w && 2 * j.out.h + 1 <= j.in.h && j.out.h >= 1 &&
         j.in.n == j.out.n && j.amin == j.ooff && j.amax >= j.ooff && j.ioff >= -128 &&
         j.ioff <= 128 && cmsis::all_dyadic(j.mult, j.shift, j.in.c);
}

// The stride-2 form: rows of 4 or more outputs.
inline bool dw_direct_s2_ok(const DwJob& j) { return dw_s2_unpadded_ok(j, 4); }

// Whether the layer has this path's shape and values: 3x3, stride 1, one column of padding each
// side, and rows of the input from pad.h above the first output row's centre on (a whole layer,
// padding 1 at both ends, or a slab of its rows, util/conv_util.h by_row_slabs, whose bottom
// padding is what lies past in.h). The out's place is the op's concern (it calls this path under
// the same overlap rules as the plane path, whose channels also go one at a time, rows in order).
inline bool dw_direct_ok(const DwJob& j) {
  if (dw_direct_s2_ok(j)) return true;
  return j.kh == 3 && j.kw == 3 && j.cm == 1 && j.in.c == j.out.c && j.stride.h == 1 &&
         j.stride.w == 1 && j.pad.w == 1 && (j.pad.h == 0 || j.pad.h == 1) && j.in.w == j.out.w &&
         dw_direct_wide(j) && j.in.n == j.out.n && j.out.h >= 1 && j.out.h - j.pad.h < j.in.h &&
         j.amin == j.ooff && j.amax >= j.ooff && j.ioff >= -128 && j.ioff <= 128 &&
         cmsis::all_dyadic(j.mult, j.shift, j.in.c);
}

// The stride-2 layer (or slab) one channel at a time through Isa::direct_s2_channel.
template <class Isa>
ETMCU_HOT_LOOPS void dw_direct_s2(const DwJob& j) {
  const int32_t C = j.in.c;
  DwDirectS2Args a;
  a.c_step = C;
  a.pairs = j.out.w / 2;
  a.odd = j.out.w % 2;
  a.rs_in = j.in.w * C;
  a.rs_out = j.out.w * C;
  a.rows = j.out.h;
  for (int32_t n = 0; n < j.in.n; ++n) {
    const int8_t* const xn = j.x + static_cast<ptrdiff_t>(n) * j.in.h * a.rs_in;
    int8_t* const yn = j.y + static_cast<ptrdiff_t>(n) * j.out.h * a.rs_out;
    for (int32_t c = 0; c < C; ++c) {
      const int8_t* q = j.w + c;
      int32_t sum = 0;
      for (int k = 0; k < 9; ++k, q += C) sum += a.t[k] = *q;
      a.start = wrap_add(j.bias ? j.bias[c] : 0, wrap_mul(j.ioff, sum));
      const cmsis::DyadicRelu r = cmsis::dyadic_relu(j.mult[c], j.ooff, j.amax);
      a.v_max = r.v_max;
      a.m = r.m;
      a.offset_high = r.offset_high;
      a.x = xn + c;
      a.y = yn + c;
      Isa::direct_s2_channel(a);
    }
  }
}

// The layer (or slab) one channel at a time through Isa::direct_channel (the ISA's kernel, or
// dw_direct_channel_c).
template <class Isa>
ETMCU_HOT_LOOPS void dw_direct_s1(const DwJob& j) {
  const int32_t C = j.in.c, W = j.in.w, ioff = j.ioff;
  const int32_t row = W * C;
  DwDirectArgs a;
  a.c_step = C;
  const int32_t rem = (W - 1) % 3;
  a.passes = (W - 1) / 3 + (rem != 0 ? 1 : 0);
  a.entry = rem == 0 ? 0 : 3 - rem;
  a.rs = row;
  a.pad = -ioff;
  // output row oy's window rows are input rows oy - pad.h + 0..2 (dw_direct_ok: pad.h 0 or 1,
  // every row's centre inside the input): the first row's top one is outside where pad.h is 1,
  // the last row's bottom one where it lies past in.h
  const bool top = j.pad.h == 1, bot = j.out.h - j.pad.h + 1 >= j.in.h;
  const int32_t one = top && bot && j.out.h == 1;  // one row with neither
  a.seg[0] = {top ? 1 : 0, 0, 0, one ? 0 : row, one ? 3 : 1};
  a.seg[1] = {j.out.h - (top ? 1 : 0) - (bot ? 1 : 0) + one, 0, -row, row, 0};
  a.seg[2] = {bot && !one ? 1 : 0, 0, -row, 0, 2};
  for (int32_t n = 0; n < j.in.n; ++n) {
    const int8_t* const xn = j.x + static_cast<ptrdiff_t>(n) * j.in.h * row;
    int8_t* const yn = j.y + static_cast<ptrdiff_t>(n) * j.out.h * row;
    for (int32_t c = 0; c < C; ++c) {
      const int8_t* q = j.w + c;
      for (int k = 0; k < 9; ++k, q += C) a.t[k] = *q;
      const int32_t b = j.bias ? j.bias[c] : 0;
      const int32_t s0 = a.t[0] + a.t[1] + a.t[2], s1 = a.t[3] + a.t[4] + a.t[5],
                    s2 = a.t[6] + a.t[7] + a.t[8];
      a.seg[0].start = wrap_add(b, wrap_mul(ioff, one ? s1 : s1 + s2));
      a.seg[1].start = wrap_add(b, wrap_mul(ioff, s0 + s1 + s2));
      a.seg[2].start = wrap_add(b, wrap_mul(ioff, s0 + s1));
      const cmsis::DyadicRelu r = cmsis::dyadic_relu(j.mult[c], j.ooff, j.amax);
      a.v_max = r.v_max;
      a.m = r.m;
      a.offset_high = r.offset_high;
      a.x = xn + (1 - j.pad.h) * row + c;
      a.y = yn + c;
      Isa::direct_channel(a);
    }
  }
}

// Whether the path will take the layer in this firmware (its shape, values and path bits `bit`,
// the one that names it on the ISA, and kPathDyadic), before any slab: the op then declares no
// plane buffer for it.
inline bool dw_direct_takes(const DwJob& j, uint32_t bit) {
  // (both bits first, folded with the mask: no code in a program without the path)
  return kernel_path_on(bit) && kernel_path_on(kPathDyadic) && dw_direct_ok(j);
}

// The path: true when it ran the layer or slab.
template <class Isa>
__attribute__((always_inline)) inline bool dw_direct_path(const DwJob& j, uint32_t bit) {
  if (!dw_direct_takes(j, bit) || !kernel_path(bit)) return false;
  if (j.stride.h == 2)
    dw_direct_s2<Isa>(j);
  else
    dw_direct_s1<Isa>(j);
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
