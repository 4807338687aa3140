// Depthwise micro-kernels for the CV32E40P with its PULP extensions: the plane path of
// util/depthwise_planes.h with the row kernels of depthwise_rows.S (a window row is one misaligned
// word and one cv.sdotsp.b) and the plane gathered by nested hardware loops; other layers
// util/depthwise_blocks.h with each tap one cv.mac.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/isa/xpulp/depthwise_s2.h"
#include "kernels/cortex_m/isa/xpulp/depthwise_small.h"
#include "kernels/cortex_m/isa/xpulp/xpulp_insn.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/util/depthwise_planes.h"

namespace etmcu {
namespace kernels {
namespace int8 {
// The argument block of etmcu_xpulp_dw_k3_channels (depthwise_rows.S reads it at these offsets):
// one strip of a 3x3 layer of stride 1 or 2 with channel multiplier 1 and the floor 0, every input
// channel's plane gathered, weights packed and lines run in one call.
struct DwK3Channels {
  const int8_t* src;  // the gather (DwGather) for channel 0: src + ci for channel ci
  int8_t* dst;
  int32_t along, src_skip, dst_skip, lines, pairs;
  int32_t odd;          // 1: each line's bytes are odd (lines >= 1, bytes >= 2: pairs first)
  const int8_t* w;      // channel 0's weight word 0, tap 0 (channel ci: w + ci)
  int32_t word_step;    // bytes from a weight word's last tap to the next word's first
  int32_t tap_step;     // bytes between a weight word's taps
  const int32_t* bias;  // channel 0's (bias_step 0: the zero word below)
  int32_t bias_step;
  const int32_t *mult, *shift;
  int32_t ioff, amin, amax;  // amin is the output offset (the floor 0)
  int8_t* y;                 // channel 0's first output
  int32_t channels;
  const int8_t* window;  // the plane's first line
  int32_t line_stride, outputs, lines_out, line_step, y_step, y_line_jump;
  int32_t zero;
  // The stride's subroutines (depthwise_rows.S; they run on the channel loop's frame, not callable
  // from C): once per strip, the lines' slots; per channel, its lines.
  void (*prep_fn)();
  void (*lines_fn)();
  // 1: every channel is dyadic (cmsis::requant_dyadic_ok) and prep_fn / lines_fn are the _dy
  // subroutines, which requantize with one mul
  int32_t dyadic;
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwK3Channels, odd) == 28 && offsetof(DwK3Channels, ioff) == 60 &&
                   offsetof(DwK3Channels, y) == 72 && offsetof(DwK3Channels, y_line_jump) == 104 &&
                   offsetof(DwK3Channels, prep_fn) == 112 &&
                   offsetof(DwK3Channels, lines_fn) == 116 &&
                   offsetof(DwK3Channels, dyadic) == 120),
              "DwK3Channels layout differs from the one depthwise_rows.S reads");
}  // namespace int8
}  // namespace kernels
}  // namespace etmcu

#if defined(__riscv)
extern "C" void etmcu_xpulp_dw_k3_channels(const etmcu::kernels::int8::DwK3Channels* c);
// The channel loop's subroutines, by stride (DwK3Channels::prep_fn, lines_fn).
extern "C" void etmcu_xpulp_dw_k3_prep();
extern "C" void etmcu_xpulp_dw_k3_lines();
extern "C" void etmcu_xpulp_dw_k3_prep_dy();
extern "C" void etmcu_xpulp_dw_k3_lines_dy();
extern "C" void etmcu_xpulp_dw_k3s2_prep();
extern "C" void etmcu_xpulp_dw_k3s2_lines();
extern "C" void etmcu_xpulp_dw_k3s2_prep_dy();
extern "C" void etmcu_xpulp_dw_k3s2_lines_dy();
extern "C" void etmcu_xpulp_dw_row_k3(const etmcu::kernels::int8::DwRowArgs* a);
extern "C" void etmcu_xpulp_dw_row(const etmcu::kernels::int8::DwRowArgs* a);
extern "C" void etmcu_xpulp_dw_row4(const etmcu::kernels::int8::DwRow4Args* a);
extern "C" void etmcu_xpulp_dw_row4_dy(const etmcu::kernels::int8::DwRow4Args* a);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

struct XpulpPlanes {
  // the row kernels dw_takes_planes can send layers to (util/depthwise_planes.h)
  static constexpr bool kRow1 = true, kRow4 = true;
  static constexpr bool kRowSubroutines = false;  // (DwRowArgs::rows_fn stays null)
  static constexpr bool kDyadicRows = false;      // (DwRowArgs::dyadic stays 0)
  // four dyadic channels in rows of five-window passes: row4_dy (depthwise_planes asks
  // rows4_dyadic once a layer)
  static constexpr bool kDyadicRow4 = true;
  // its row kernels honour DwRowArgs::y_row_jump: 3x3 layers may take transposed planes
  static constexpr bool kTransposedK3 = true;
  // its own loop over a strip's channels for 3x3 layers of stride 1 or 2 with the floor 0
  // (channel_loop)
  static constexpr bool kChannelLoop = true;
  // One strip of a layer with channel multiplier 1 in one call of etmcu_xpulp_dw_k3_channels, when
  // it is 3x3 with stride 1 or 2 (kPathDwK3Stride2: the stride-2 subroutines) and the floor 0;
  // false: the C loop runs it. a: the strip's row-kernel geometry (rows1_geometry), g: its gather.
  static bool channel_loop(const DwJob& j, const DwRowArgs& a, const DwGather& g, int32_t oy0,
                           bool columns) {
#if defined(__riscv)
    // (a plane line of two input bytes at least: the gather's pair loop; the same stride, 1 or 2,
    // in both directions)
    const int32_t s = j.stride.h;
    if (j.kh != 3 || j.kw != 3 || s != j.stride.w || s > 2 || a.neg_floor != 0 || g.lines < 1 ||
        g.n < 2)
      return false;
    const int32_t line_step = a.outputs * a.x_step + a.row_jump;
    if (((line_step | a.line_stride | reinterpret_cast<uintptr_t>(a.window)) & 3) != 0)
      return false;
    if (s == 2 && !kernel_path_or_fallback(kPathDwK3Stride2)) return false;
    DwK3Channels c;
    c.src = g.src;
    c.dst = g.dst;
    c.along = g.stride;
    c.src_skip = g.src_row - g.n * g.stride;
    c.dst_skip = g.dst_row - g.n;
    c.lines = g.lines;
    c.pairs = g.n >> 1;
    c.odd = g.n & 1;
    c.w = j.w;
    // window row r's taps t: filter element (r, t) upright, (t, r) from a transposed plane
    c.tap_step = (columns ? j.kw : 1) * j.out.c;
    c.word_step = (columns ? 1 : j.kw) * j.out.c - 2 * c.tap_step;
    c.zero = 0;
    c.bias = j.bias ? j.bias : &c.zero;
    c.bias_step = j.bias ? 4 : 0;
    c.mult = j.mult;
    c.shift = j.shift;
    c.ioff = j.ioff;
    c.amin = a.amin;
    c.amax = a.amax;
    c.y = j.y + (static_cast<size_t>(oy0) * j.out.w) * j.out.c;
    c.channels = j.in.c;
    c.window = a.window;
    c.line_stride = a.line_stride;
    c.outputs = a.outputs;
    c.lines_out = a.out_rows;
    c.line_step = line_step;
    c.y_step = a.y_step;
    c.y_line_jump = a.y_row_jump;
    // the lines of the layer's requantization form, each behind its path bit (a program of one
    // form links the other's subroutines not at all); with neither, the C loop's row kernels
    // (the path's bit first, as pointwise_strips: a build without it compiles no test)
    c.dyadic = kernel_path_on(kPathDyadic) && cmsis::all_dyadic(j.mult, j.shift, j.in.c) &&
               kernel_path_or_fallback(kPathDyadic);
    if (c.dyadic) {
      c.prep_fn = s == 2 ? etmcu_xpulp_dw_k3s2_prep_dy : etmcu_xpulp_dw_k3_prep_dy;
      c.lines_fn = s == 2 ? etmcu_xpulp_dw_k3s2_lines_dy : etmcu_xpulp_dw_k3_lines_dy;
    } else if (kernel_path_or_fallback(kPathFrexp)) {
      c.prep_fn = s == 2 ? etmcu_xpulp_dw_k3s2_prep : etmcu_xpulp_dw_k3_prep;
      c.lines_fn = s == 2 ? etmcu_xpulp_dw_k3s2_lines : etmcu_xpulp_dw_k3_lines;
    } else {
      return false;
    }
    etmcu_xpulp_dw_k3_channels(&c);
    return true;
#else
    (void)j, (void)a, (void)g, (void)oy0, (void)columns;
    return false;
#endif
  }
  static void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                          int32_t stride, int32_t n, int32_t lines) {
    xpulp::gather_rows(dst, dst_row, src, src_row, stride, n, lines);
  }
  static void row(const DwRowArgs& a) {
#if defined(__riscv)
    if (a.rows == 3)
      etmcu_xpulp_dw_row_k3(&a);
    else
      etmcu_xpulp_dw_row(&a);
#else
    dw_row_c(a, sdot);
#endif
  }
  // The frexp four-channel kernel where the program has that form (upstream's) or not the dyadic
  // one; a dyadic program's multiplier-4 layers that row4_dy leaves (no fused ReLU, stride 1,
  // rows not of five-window passes: none in the zoo) run the C row, the same bits, instead of
  // linking it (its path bit, kPathFrexp, would link every frexp kernel of the program).
  static void row4(const DwRow4Args& a) {
#if defined(__riscv)
    if (kernel_path_on(kPathFrexp) || !kernel_path_on(kPathDyadic))
      etmcu_xpulp_dw_row4(&a);
    else
      dw_row4_c(a, sdot);
#else
    dw_row4_c(a, sdot);
#endif
  }
  // A dyadic block (DwRow4Args; depthwise_planes asked kPathDyadic: rows4_dyadic)
  static void row4_dy(const DwRow4Args& a) {
#if defined(__riscv)
    etmcu_xpulp_dw_row4_dy(&a);
#else
    dw_row4_c<true>(a, sdot);
#endif
  }
  // cv.sdotsp.b of a (possibly misaligned) plane word and a weight word
  static int32_t sdot(int32_t acc, const int8_t* x, uint32_t w) {
    uint32_t v;
    memcpy(&v, x, 4);
    return xpulp::sdotsp_b(acc, v, w);
  }
};

// One cv.mac.
struct DepthwiseMac {
  static int32_t mac(int32_t acc, int32_t a, int32_t b) { return xpulp::mac(acc, a, b); }
};

// Whether this ISA's planes take the layer, by its geometry (*ls, *strip; the op asks once and
// hands it to depthwise_fast, which adds the values' checks).
// Not the stride-2 layers of the words path (depthwise_s2.h) whose out is over their input where
// that path cannot run them whole: without planes the op runs them in slabs of rows, which that
// path can.
inline bool dw_takes_planes(const DwJob& j, int32_t* ls, int32_t* strip) {
  if (dw_s2_words_takes(j) && !dw_s2_words_whole_safe(j)) return false;
  return dw_plane_geometry(j, ls, strip);
}

// The layers this ISA runs whole straight from NHWC, asked by the op before the plane buffer and
// any slabs: 3 x 3 output planes at stride 1 (depthwise_small.h) and stride-2 layers whose out is
// not over their input, or far enough before it (depthwise_s2.h dw_s2_words_whole_safe).
__attribute__((always_inline)) inline bool depthwise_whole(const DwJob& j) {
  return dw_small_words_path(j) || dw_s2_words_path(j, /*strip: planes, not slabs*/ 1);
}

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
// (Always inlined into the op: GCC made it a function of its own, 136 B more on upstream KWS.)
__attribute__((always_inline)) inline bool depthwise_fast(const DwJob& j, const DwPlanes& planes) {
  // First, the slabs of 3x3 stride-2 layers without padding, dyadic with a fused ReLU, whose out
  // is over their input (depthwise_whole ran the others; dw_takes_planes left these out)
  if (dw_s2_words_path(j, planes.strip)) return true;
  if (depthwise_planes_path<XpulpPlanes>(j, planes)) return true;
  return depthwise_blocks_path<DepthwiseMac>(j);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
