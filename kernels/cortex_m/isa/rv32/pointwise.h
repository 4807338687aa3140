// The pointwise micro-kernel for a plain RV32IMC core (the CV32E40P without Xpulp):
// isa/rv32/pointwise_4ch.S (two pixels by four channels, 22 instructions per 8 multiply-
// accumulates, the requantization in the same routine). On the host the same arithmetic in C.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/pointwise.h"

#if defined(__riscv)
// One row of pixels (rows null), or rows->out_rows rows (util/pointwise.h PointwiseRows)
extern "C" void etmcu_rv32_pointwise_4ch(const etmcu::kernels::int8::PointwiseBlock* b,
                                         etmcu::kernels::int8::PointwiseRows* rows);
extern "C" void etmcu_rv32_pointwise_runs9();  // (a subroutine of the kernel's pass: its registers)
extern "C" void etmcu_rv32_pointwise_runs9s1();  // (the same at stride 1: shared input bytes)
extern "C" void etmcu_rv32_requant3_relu_dy();   // (the same: a pass's dyadic ReLU outputs)
extern "C" void etmcu_rv32_requant3_clamp_dy();  // (and its dyadic outputs of any other range)
// A linear row's blocks of four features (pointwise_linear_row; linear_row.S), in the frexp form
// and in the dyadic ones (util/pointwise.h set_linear_dyadic)
extern "C" void etmcu_rv32_linear_row(const etmcu::kernels::int8::PointwiseBlock* b,
                                      const int32_t* ksum, int32_t blocks, int32_t xterm);
extern "C" void etmcu_rv32_linear_row_dy(const etmcu::kernels::int8::PointwiseBlock* b,
                                         const int32_t* ksum, int32_t blocks, int32_t xterm);
#else
// (the host runs the C form, pointwise_4ch_c: stand-ins for the two subroutines, never called)
inline void etmcu_rv32_requant3_relu_dy() {}
inline void etmcu_rv32_requant3_clamp_dy() {}
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// Linear layers in blocks of four features (op_quantized_linear.cpp linear_blocks) where they have
// 16 features or more: a row's blocks in one call of etmcu_rv32_linear_row (isa/rv32/
// linear_row.S; on the autoencoder about 63 cycles a feature less than the row path, whose C
// requantizes). The zoo's classifiers of 2 to 12 features keep the row path, so their firmware
// links none of it (660 to 1,800 B with the blocks at 4 features, measured).
constexpr int32_t kLinearBlocksMinFeatures = 16;
// Its linear row kernel has the dyadic forms (set_linear_dyadic; each form's function behind its
// path, kPathDyadic or kPathFrexp, so a program links the one its layers take).
constexpr bool kLinearDyadic = true;
constexpr bool kPointwise4ch = true;
// Its kernels read only PointwiseBlock's 4v requantization fields (set_requant skips the 2v).
constexpr bool kPointwiseRequant2v = false;
// The frexp form for every block but those of the convolution's interior whose channels are
// dyadic (set up once per layer or slab: util/pointwise.h set_dyadic_block), whose pass hands its
// sums to etmcu_rv32_requant3_relu_dy (a fused ReLU: clamped to [1, V], one mul, add and shift,
// in two flows by the sums' sign: 6 cycles a sum above 0 against 12, 2 one of 0 or less) or
// etmcu_rv32_requant3_clamp_dy (other activations: clamped to [Vlo, V], in two flows by sign as
// well: 6 cycles a sum against 16).
// Behind kPathDyadic and (on this ISA) kPathDwLanes3x3, so a program links the ones its layers
// take.
constexpr bool kPointwiseDyadic = false;
struct PointwiseDyadicBlocks {
  static constexpr bool on = true;
  static constexpr void (*relu)() = etmcu_rv32_requant3_relu_dy;
  static constexpr void (*clamp)() = etmcu_rv32_requant3_clamp_dy;
  static constexpr uint32_t clamp_path = kPathDwLanes3x3;
};
// The kernel reads PointwiseBlock::w_row_skip (border windows clipped to the input).
constexpr bool kPointwiseWeightSkip = true;
// Its kernel loops over output rows (pointwise_4ch_rows: the convolution's interior in one call a
// block instead of one a block and row; a call left out saved about 80 cycles on ResNet-8).
constexpr bool kPointwiseRowLoop = true;
// Runs of any length (PointwiseBlock::run_bytes): the kernel loads bytes, so a 3-channel
// layer's 9-byte window rows go unwidened.
constexpr bool kPointwiseByteRuns = true;
// Its byte runs read a 3-channel layer's window rows as they are: no columns (conv's
// im2col_runs).
constexpr bool kPointwiseIm2colRuns = false;
inline void copy_lines(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row, int32_t n,
                       int32_t lines) {
  copy_lines_c(dst, dst_row, src, src_row, n, lines);
}

inline void pointwise_4ch(const PointwiseBlock& b) {
#if defined(__riscv)
  etmcu_rv32_pointwise_4ch(&b, nullptr);
#else
  pointwise_4ch_c<true>(b, [](int32_t acc, const int8_t* x, const int8_t* w) {
    return acc + x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
  });
#endif
}

// Several output rows (PointwiseRows) in one call.
inline void pointwise_4ch_rows(PointwiseBlock& b, PointwiseRows& r) {
#if defined(__riscv)
  etmcu_rv32_pointwise_4ch(&b, &r);
#else
  pointwise_rows_c(b, r, [](const PointwiseBlock& row) { pointwise_4ch(row); });
#endif
}

// One pixel (a linear layer's row): the same kernel with b.pixels == 1.
inline void pointwise_1px(const PointwiseBlock& b) { pointwise_4ch(b); }

// A linear layer's row, blocks of four features (util/pointwise.h linear_row_blocks_c): on the
// core one call of etmcu_rv32_linear_row, or _dy for a block set_linear_dyadic set (the one-pixel
// kernel, a pair with itself, would take twice the multiply-accumulates).
__attribute__((always_inline)) inline void pointwise_linear_row(PointwiseBlock& b,
                                                                const int32_t* ksum, int32_t blocks,
                                                                int32_t xterm) {
#if defined(__riscv)
  // (the path tests first: a build without a form drops its function's address)
  if (kernel_path_on(kPathDyadic) && b.dyadic != 0)
    etmcu_rv32_linear_row_dy(&b, ksum, blocks, xterm);
  else if (kernel_path_on(kPathFrexp))
    etmcu_rv32_linear_row(&b, ksum, blocks, xterm);
#else
  if (b.dyadic != 0)
    linear_row_dyadic_c(b, ksum, blocks, xterm, [](int32_t acc, const int8_t* x, const int8_t* w) {
      return acc + x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
    });
  else
    linear_row_blocks_c(b, ksum, blocks, xterm,
                        [](const PointwiseBlock& one) { pointwise_1px(one); });
#endif
}

// Blocks whose receptive fields are several kernel rows of 9 bytes, their channels' filters 27
// bytes apart (a 3x3 window on 3 channels) run each three-pixel pass's rows in
// etmcu_rv32_pointwise_runs9: the kernel's entry dispatch into its 16-byte step (a 9-byte run
// enters at byte 7, by branches) once a pass instead of once a row (docs/int8.md: the first
// layers); at stride 1 (x_step 3: the three windows share 15 bytes a row) in
// etmcu_rv32_pointwise_runs9s1, which loads each of those bytes once. Behind kPathMicroMultiRun
// and (stride 1) kPathMicroUnpacked (on this ISA they name these subroutines), so a program links
// only the one its layers take (each about 1 KB); without them the kernel's own loop gives the
// same bits. Called after set_run, rows, w_stride and x_step. (The kernel tests run, rows and
// w_stride again itself, not x_step: interior_blocks' border columns change x_step but keep the
// subroutine, and their runs are never 9 bytes there.)
inline void set_rows_kernel(PointwiseBlock& b) {
  b.rows_fn = nullptr;
#if defined(__riscv)
  if (b.run_bytes == 9 && b.rows > 1 && b.w_stride == 27) {
    if (b.x_step == 3 && kernel_path_or_fallback(kPathMicroUnpacked))
      b.rows_fn = etmcu_rv32_pointwise_runs9s1;
    else if (kernel_path_or_fallback(kPathMicroMultiRun))
      b.rows_fn = etmcu_rv32_pointwise_runs9;
  }
#endif
}

// Pixels a pass of this kernel takes over several kernel rows (interior_blocks' interior
// columns): three at any x_step; 0 for 9-byte runs over several rows, whose subroutine
// depends on x_step (set_rows_kernel).
inline int32_t rows_pass_pixels(const PointwiseBlock& b) {
  return b.rows > 1 && b.run_bytes == 9 ? 0 : 3;
}

// Blocks of four channels one after another (PointwiseBlock::groups): one kernel call per block.
inline void pointwise_groups(PointwiseBlock& b) {
  pointwise_groups_c<kPointwiseRequant2v, kPointwiseDyadic>(
      b, [](const PointwiseBlock& one) { pointwise_4ch(one); });
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
