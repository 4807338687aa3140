// The pointwise micro-kernel with Helium (MVE, Cortex-M55/M85): util/pointwise.h's contract with
// ACLE intrinsics. Per pixel, four VMLADAVA.S8 chains (one per output channel) over the receptive
// field's runs, sixteen bytes per step and one input load shared by the four channels: 9
// instructions per 64 multiply-accumulates; a run's last len % 16 bytes in one predicated step
// (VCTP.8), no scalar tail. The four sums are then requantized as the lanes of one vector
// (VQRDMULH, the rounding divide as VRSHL after adding the sign, offset, clamp) and stored by one
// narrowing VSTRB.32.
#pragma once
#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel_paths.h"
#include "kernels/cortex_m/util/paths.h"
#include "kernels/cortex_m/util/pointwise.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// Linear layers in blocks of four features (op_quantized_linear.cpp linear_blocks), any layer: a
// one-pixel run (a linear layer's row) costs one pixel.
constexpr int32_t kLinearBlocksMinFeatures = 4;
// No dyadic forms in its linear row kernel (util/pointwise.h set_linear_dyadic): the frexp one.
constexpr bool kLinearDyadic = false;
constexpr bool kPointwise4ch = true;
// Its kernels read PointwiseBlock's 2v requantization fields (set_requant).
constexpr bool kPointwiseRequant2v = true;
// One requantization form (no dyadic kernel).
constexpr bool kPointwiseDyadic = false;
// No dyadic forms of their own for the convolution's interior blocks (util/pointwise.h
// set_dyadic_block).
struct PointwiseDyadicBlocks {
  static constexpr bool on = false;
  static constexpr void (*relu)() = nullptr;
  static constexpr void (*clamp)() = nullptr;
  static constexpr uint32_t clamp_path = 0;
};
// Reads PointwiseBlock::w_row_skip (border windows clipped to the input, nothing gathered).
constexpr bool kPointwiseWeightSkip = true;
// Its kernel takes one output row a call: pointwise_4ch_rows is a call a row (unused: the
// convolution's interior loops over the rows itself where kPointwiseRowLoop is false).
constexpr bool kPointwiseRowLoop = false;
// Runs are whole words (PointwiseBlock::words).
constexpr bool kPointwiseByteRuns = false;
// Layers of window rows that are not whole words keep the widened rows (conv's im2col_runs is
// measured on the CV32E40P only).
constexpr bool kPointwiseIm2colRuns = false;
inline void copy_lines(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row, int32_t n,
                       int32_t lines) {
  copy_lines_c(dst, dst_row, src, src_row, n, lines);
}

namespace mve {

// CMSIS-NN's requantization of four sums (one per lane) for multiplier > 0 and shift in [-31, -1]
// (any sum), plus the offset, clamped:
//   h = VQRDMULH(v, m) = (v * m + 2^30) >> 31 (no saturation: m > 0), then the divide's ties away
//   from zero as (h + [h < 0 ? -1 : 0] + 2^(r-1)) >> r = VRSHL(h + (h >> 31), -r).
inline int32x4_t requant4(int32x4_t v, int32x4_t mult, int32x4_t neg_right, int32x4_t offset,
                          int32x4_t lo, int32x4_t hi) {
  int32x4_t h = vqrdmulhq_s32(v, mult);
  h = vaddq_s32(h, vshrq_n_s32(h, 31));
  h = vaddq_s32(vrshlq_s32(h, neg_right), offset);
  return vminq_s32(vmaxq_s32(h, lo), hi);
}

}  // namespace mve

// Receptive fields of `rows` runs of a multiple of 16 bytes (1x1 layers with 16, 32, 64 ... input
// channels: one run; 3x3 layers with 16, 32, ...: three), `skip` bytes apart in the input: four
// moving weight pointers (a channel's runs are contiguous in its weights) and post-incremented
// loads, 10 instructions per 64 multiply-accumulates with the loop's LE.
// (kOneRun: the 1x1 form without the row loop, whose setup per pixel measured 0.7 M on MobileNet)
template <bool kOneRun>
__attribute__((noinline)) void pointwise_run16(const PointwiseBlock& b, int32_t rows, int32_t steps,
                                               int32_t skip, int32_t wskip) {
  const int32x4_t mult = vldrwq_s32(b.mult);
  const int32x4_t neg_right = vnegq_s32(vldrwq_s32(b.right));
  const int32x4_t offset = vshlq_s32(vldrwq_s32(b.offset_high), neg_right);
  const int32x4_t lo = vdupq_n_s32(b.amin), hi = vdupq_n_s32(b.amax);
  const int32_t f0 = b.full[0], f1 = b.full[1], f2 = b.full[2], f3 = b.full[3];
  const int32_t ws = b.w_stride, pixels = b.pixels, x_step = b.x_step, y_step = b.y_step;
  const int8_t* x = b.x;
  int8_t* y = b.y;
  for (int32_t p = 0; p < pixels; ++p, x += x_step, y += y_step) {
    int32_t a0 = f0, a1 = f1, a2 = f2, a3 = f3;
    const int8_t* xr = x;
    const int8_t* w0 = b.w;
    const int8_t* w1 = w0 + ws;
    const int8_t* w2 = w1 + ws;
    const int8_t* w3 = w2 + ws;
    for (int32_t r = 0; r < (kOneRun ? 1 : rows);
         ++r, xr += skip, w0 += wskip, w1 += wskip, w2 += wskip, w3 += wskip) {
      for (int32_t i = 0; i < steps; ++i) {
        const int8x16_t xv = vldrbq_s8(xr);
        a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w0));
        a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1));
        a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2));
        a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3));
        xr += 16;
        w0 += 16;
        w1 += 16;
        w2 += 16;
        w3 += 16;
      }
    }
    int32x4_t acc = vdupq_n_s32(a0);
    acc = vsetq_lane_s32(a1, acc, 1);
    acc = vsetq_lane_s32(a2, acc, 2);
    acc = vsetq_lane_s32(a3, acc, 3);
    vstrbq_s32(y, mve::requant4(acc, mult, neg_right, offset, lo, hi));
  }
}

inline void pointwise_4ch(const PointwiseBlock& b) {
  if ((b.rows == 1 || (b.row_skip == 0 && b.w_row_skip == 0)) && (b.rows * b.words) % 4 == 0) {
    pointwise_run16<true>(b, 1, b.rows * b.words / 4, 0, 0);
    return;
  }
  // Windows of several runs in 16-byte steps are a kernel path (a program without them, such as
  // KWS, ships without this form); without it, the general loop below gives the same bits.
  if (b.words % 4 == 0 && kernel_path_or_fallback(kPathMicroMultiRun)) {
    pointwise_run16<false>(b, b.rows, b.words / 4, b.row_skip, b.w_row_skip);
    return;
  }
  const int32_t len = 4 * b.words, ws = b.w_stride, skip = b.row_skip, rows = b.rows;
  const int32_t steps = len / 16, tail = len % 16;
  const mve_pred16_t tp = vctp8q(static_cast<uint32_t>(tail));
  const int32x4_t mult = vldrwq_s32(b.mult);
  const int32x4_t neg_right = vnegq_s32(vldrwq_s32(b.right));
  // offset_high = offset * 2^r exactly: the arithmetic shift gives the offset back
  const int32x4_t offset = vshlq_s32(vldrwq_s32(b.offset_high), neg_right);
  const int32x4_t lo = vdupq_n_s32(b.amin), hi = vdupq_n_s32(b.amax);
  const int32x4_t full = vldrwq_s32(b.full);
  const int8_t* x = b.x;
  int8_t* y = b.y;
  const int32_t pixels = b.pixels, x_step = b.x_step, y_step = b.y_step;
  for (int32_t p = 0; p < pixels; ++p, x += x_step, y += y_step) {
    int32_t a0 = vgetq_lane_s32(full, 0), a1 = vgetq_lane_s32(full, 1);
    int32_t a2 = vgetq_lane_s32(full, 2), a3 = vgetq_lane_s32(full, 3);
    const int8_t* xr = x;
    const int8_t* w = b.w;
    for (int32_t r = 0; r < rows; ++r, xr += skip, w += b.w_row_skip) {
      for (int32_t i = 0; i < steps; ++i, xr += 16, w += 16) {
        const int8x16_t xv = vldrbq_s8(xr);
        a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w));
        a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w + ws));
        a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w + 2 * ws));
        a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w + 3 * ws));
      }
      if (tail) {
        const int8x16_t xv = vldrbq_z_s8(xr, tp);
        a0 = vmladavaq_p_s8(a0, xv, vldrbq_z_s8(w, tp), tp);
        a1 = vmladavaq_p_s8(a1, xv, vldrbq_z_s8(w + ws, tp), tp);
        a2 = vmladavaq_p_s8(a2, xv, vldrbq_z_s8(w + 2 * ws, tp), tp);
        a3 = vmladavaq_p_s8(a3, xv, vldrbq_z_s8(w + 3 * ws, tp), tp);
        xr += tail;
        w += tail;
      }
    }
    int32x4_t acc = vdupq_n_s32(a0);
    acc = vsetq_lane_s32(a1, acc, 1);
    acc = vsetq_lane_s32(a2, acc, 2);
    acc = vsetq_lane_s32(a3, acc, 3);
    vstrbq_s32(y, mve::requant4(acc, mult, neg_right, offset, lo, hi));
  }
}
inline void pointwise_4ch_rows(PointwiseBlock& b, PointwiseRows& r) {
  pointwise_rows_c(b, r, [](const PointwiseBlock& row) { pointwise_4ch(row); });
}

// One pixel (a linear layer's row): the same kernel with b.pixels == 1.
inline void pointwise_1px(const PointwiseBlock& b) { pointwise_4ch(b); }

// A linear layer's row, blocks of four features (util/pointwise.h linear_row_blocks_c).
__attribute__((always_inline)) inline void pointwise_linear_row(PointwiseBlock& b,
                                                                const int32_t* ksum, int32_t blocks,
                                                                int32_t xterm) {
  linear_row_blocks_c(b, ksum, blocks, xterm,
                      [](const PointwiseBlock& one) { pointwise_1px(one); });
}

// No subroutine for several kernel rows: this ISA's kernel never reads PointwiseBlock::rows_fn.
inline void set_rows_kernel(PointwiseBlock&) {}
// One pixel a pass: nothing for interior_blocks to regroup (0).
inline int32_t rows_pass_pixels(const PointwiseBlock&) { return 0; }

// Blocks of four channels one after another (PointwiseBlock::groups): one kernel call per block.
inline void pointwise_groups(PointwiseBlock& b) {
  pointwise_groups_c<kPointwiseRequant2v, kPointwiseDyadic>(
      b, [](const PointwiseBlock& one) { pointwise_4ch(one); });
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
