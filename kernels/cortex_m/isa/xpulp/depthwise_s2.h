// Depthwise 3x3 layers of stride 2 without padding (MobileNetV1's, after their explicit pads) for
// the CV32E40P with its PULP extensions: one channel at a time straight from NHWC, two output rows
// a pass, each window row one cv.sdotsp.b on a word packed from four byte loads
// (isa/xpulp/depthwise_s2.S; the C form below is what the host runs for the same bits).
//
// Why not the plane path: its gather costs two cycles an input byte, and at stride 2 an output
// has four input bytes, so MobileNetV1's stride-2 layers ran at 24 to 31 cycles an output
// (0.29-0.37 MAC/cycle) with the lines' 11. Here the words are built from the input itself:
// four byte loads and two packs a word, two output rows sharing their middle input row and
// taking their first from the words the last pair built of its fifth (a buffer in the kernel's
// frame: depthwise_s2_width.h), 15.75 instructions an output (depthwise_s2.S).
//
// Taken when every channel is dyadic with a fused ReLU (amin is the output offset: the sum
// clamped to [0, V], one product, as util/depthwise_small.h), the channel multiplier is 1 and the
// output rows have two outputs or more. The out over its input: the kernel goes channel by
// channel, two output rows at a time top to bottom, left to right, each pair of columns' loads
// before its stores; an output at (q, x) lands on input pixel q * W_out + x + d / C (d the out's
// address less the input's, a whole number of pixels) and no later load reads a pixel below
// 2q * W_in + 2x, so an out at least one output row (W_out pixels) before its input runs whole
// (dw_s2_words_whole_safe). Other overlaps go in the op's slabs of rows, whose contract makes
// every order safe: the op slabs a layer that overlaps when its planes do not take it, which
// dw_takes_planes (isa/xpulp/depthwise.h) arranges for these layers.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel_paths.h"
#include "kernels/cortex_m/isa/xpulp/depthwise_channels.h"
#include "kernels/cortex_m/isa/xpulp/depthwise_s2_width.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/depthwise_direct.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The layer for etmcu_xpulp_dw_s2_words (isa/xpulp/depthwise_s2.S reads it at these offsets).
struct DwS2Words {
  DwWordsChannels ch;  // (x: input row 0, the first window row)
  int32_t rs_in;       // W_in * C
  int32_t rs_out;      // W_out * C
  int32_t row_pairs;   // H_out / 2
  int32_t odd_row;     // H_out % 2
  int32_t pairs;       // the column pairs in the kernel's loop: (W_out - 2 - odd_col) / 2
  int32_t odd_col;     // W_out % 2
  int32_t ioff;
  int32_t t;            // T, cmsis::dyadic_relu_limit: V = T / m
  int32_t offset_high;  // offset * 2^21 + 2^19 (cv.addRN adds the other 2^20)
  int32_t zero;
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwS2Words, rs_in) == 32 && offsetof(DwS2Words, odd_col) == 52 &&
                   offsetof(DwS2Words, offset_high) == 64),
              "DwS2Words layout differs from the one depthwise_s2.S reads");

// What etmcu_xpulp_dw_s2_words computes (the host's xpulp variant runs it): each output's sum from
// bias + ioff * the taps' sum over its window, clamped to [0, V] and requantized with one product,
// channel by channel, rows top to bottom, outputs left to right (safe wherever the kernel's
// order is: see above).
inline void dw_s2_words_c(const DwS2Words& a) {
  const int32_t C = a.ch.c_step, H = 2 * a.row_pairs + a.odd_row;
  const int32_t W = 2 * a.pairs + 2 + a.odd_col;
  for (int32_t c = 0; c < a.ch.channels; ++c) {
    int32_t t[9], sum = 0;
    for (int k = 0; k < 9; ++k) sum += t[k] = a.ch.w[static_cast<ptrdiff_t>(k) * C + c];
    const int32_t full = cmsis::wrap_add(dw_words_bias(a.ch, c), cmsis::wrap_mul(a.ioff, sum));
    const int32_t m = a.ch.mult[c] >> 11;
    const int32_t v_max =
        static_cast<int32_t>(static_cast<uint32_t>(a.t) / static_cast<uint32_t>(m));
    for (int32_t oy = 0; oy < H; ++oy)
      for (int32_t ox = 0; ox < W; ++ox) {
        const int8_t* p = a.ch.x + static_cast<ptrdiff_t>(2 * oy) * a.rs_in +
                          static_cast<ptrdiff_t>(2 * ox) * C + c;
        int32_t v = full;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx)
            v += t[3 * ky + kx] * p[static_cast<ptrdiff_t>(ky) * a.rs_in + kx * C];
        a.ch.y[static_cast<ptrdiff_t>(oy) * a.rs_out + static_cast<ptrdiff_t>(ox) * C + c] =
            static_cast<int8_t>(
                cmsis::dyadic_relu_requantize(v, m, v_max, a.offset_high + (1 << 20)));
      }
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu

#if defined(__riscv)
extern "C" void etmcu_xpulp_dw_s2_words(const etmcu::kernels::int8::DwS2Words* a);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// The widest output rows the kernel takes (its frame's buffer: depthwise_s2_width.h).
constexpr int32_t kDwS2MaxWidth = ETMCU_XPULP_DW_S2_MAX_WIDTH;

// The path's bit on this ISA: kPathDwLanes3x3 (MVE's 3x3 lanes and the plain core's dyadic
// interior blocks elsewhere; no bit is free).
constexpr uint32_t kPathDwS2Words = kPathDwLanes3x3;

// The layer's shape and values (and the path's bits in this build, before any slab).
inline bool dw_s2_words_takes(const DwJob& j) {
  // (both bits first, folded with the mask: no code in a program without the path)
  return kernel_path_on(kPathDwS2Words) && kernel_path_on(kPathDyadic) && dw_s2_unpadded_ok(j, 2) &&
         j.in.n == 1 && j.out.w <= kDwS2MaxWidth;
}

// Whether the kernel's order allows the whole layer with its out where it is (above).
inline bool dw_s2_words_whole_safe(const DwJob& j) {
  if (!bytes_overlap(j.x, j.in, j.y, j.out)) return true;
  const ptrdiff_t d = j.y - j.x;
  return d % j.in.c == 0 && d <= -static_cast<ptrdiff_t>(j.out.w) * j.in.c;
}

// The path; true when it ran the layer or slab. With strip > 0 (depthwise_whole) only where the
// kernel's order allows the whole layer; with the op's planes.strip (depthwise_fast) also a slab
// of a layer whose out is over its input (strip 0 there: dw_takes_planes left the layer out, so
// the op runs it in slabs).
__attribute__((always_inline)) inline bool dw_s2_words_path(const DwJob& j, int32_t strip) {
  if (!dw_s2_words_takes(j) || !(strip == 0 || dw_s2_words_whole_safe(j)) ||
      !kernel_path(kPathDwS2Words))
    return false;
  kernel_path_mark(kPathDyadic);
  const int32_t C = j.in.c;
  DwS2Words a;
  a.zero = 0;
  a.ch = dw_words_channels(j, &a.zero);
  a.rs_in = j.in.w * C;
  a.rs_out = j.out.w * C;
  a.row_pairs = j.out.h / 2;
  a.odd_row = j.out.h % 2;
  a.odd_col = j.out.w % 2;
  a.pairs = (j.out.w - 2 - a.odd_col) / 2;
  a.ioff = j.ioff;
  a.t = cmsis::dyadic_relu_limit(j.ooff, j.amax);
  a.offset_high = cmsis::dyadic_offset_high(j.ooff);
#if defined(__riscv)
  etmcu_xpulp_dw_s2_words(&a);
#else
  dw_s2_words_c(a);
#endif
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
