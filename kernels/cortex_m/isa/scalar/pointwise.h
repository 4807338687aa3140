// No pointwise micro-kernel of its own here: the conv op's row path (opt/op_quantized_conv2d.cpp)
// computes 1x1 layers. pointwise_4ch is the C form, so that the op's code for it compiles.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/pointwise.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// Linear layers keep the row path, dot products per feature (0: no blocks of four features; the
// pointwise kernel would compute a one-pixel run as a pair with itself).
constexpr int32_t kLinearBlocksMinFeatures = 0;
// No dyadic forms in its linear row kernel (util/pointwise.h set_linear_dyadic): the frexp one.
constexpr bool kLinearDyadic = false;
constexpr bool kPointwise4ch = false;
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
// The kernel reads PointwiseBlock::w_row_skip (border windows clipped to the input).
constexpr bool kPointwiseWeightSkip = false;
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

inline void pointwise_4ch(const PointwiseBlock& b) {
  pointwise_4ch_c(b, [](int32_t acc, const int8_t* x, const int8_t* w) {
    return acc + x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
  });
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
