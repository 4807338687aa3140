// The pointwise micro-kernel for the CV32E40P with its PULP extensions: isa/xpulp/pointwise_4ch.S
// (in 1x1 stride-1 layers five pixels by four channels per hardware-loop pass, 29 cycles per 80
// multiply-accumulates, where the layer has a fused ReLU and rows of an even number of words, else
// four pixels, 24 cycles per 64, as in layers of several kernel rows with the subroutine of
// pointwise_rows.S; then three, two or one pixel; the requantization with
// cv.addRNr / cv.max / cv.min). On the host the same arithmetic in C.
#pragma once
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/isa/xpulp/xpulp_insn.h"
#include "kernels/cortex_m/util/pointwise.h"

#if defined(__riscv)
// (writes *b when b->groups > 0: see pointwise_groups; with rows, its x and y: pointwise_4ch_rows)
extern "C" void etmcu_xpulp_pointwise_4ch(etmcu::kernels::int8::PointwiseBlock* b,
                                          etmcu::kernels::int8::PointwiseRows* rows);
extern "C" void etmcu_xpulp_pointwise_1px(const etmcu::kernels::int8::PointwiseBlock* b,
                                          const int8_t* x, int8_t* y);
// A linear row's blocks of four features, the constants kernel_sum + xterm (pointwise_linear_row;
// b's x, w, y, words, w_stride and the frexp requantization of channel 0 are read)
extern "C" void etmcu_xpulp_linear_row(const etmcu::kernels::int8::PointwiseBlock* b,
                                       const int32_t* ksum, int32_t blocks, int32_t xterm);
// The same in the dyadic forms (util/pointwise.h set_linear_dyadic; the layer's m, V, Vlo read)
extern "C" void etmcu_xpulp_linear_row_dy(const etmcu::kernels::int8::PointwiseBlock* b,
                                          const int32_t* ksum, int32_t blocks, int32_t xterm);
// The same assembled for dyadic blocks (pointwise_4ch_dy.S: PointwiseBlock::dyadic)
extern "C" void etmcu_xpulp_pointwise_4ch_dy(etmcu::kernels::int8::PointwiseBlock* b,
                                             etmcu::kernels::int8::PointwiseRows* rows);
// Both forms' subroutine for four pixels over several kernel rows (pointwise_rows.S; it runs on
// their frame: not callable from C)
extern "C" void etmcu_xpulp_pointwise_rows();
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// Linear layers in blocks of four features (op_quantized_linear.cpp linear_blocks), any layer: a
// row's blocks in one call of etmcu_xpulp_linear_row.
constexpr int32_t kLinearBlocksMinFeatures = 4;
// Its linear row kernel has the dyadic forms (set_linear_dyadic; each form's function behind its
// path, kPathDyadic or kPathFrexp, so a program links the one its layers take).
constexpr bool kLinearDyadic = true;
constexpr bool kPointwise4ch = true;
// Its kernels read only PointwiseBlock's 4v requantization fields (set_requant skips the 2v).
constexpr bool kPointwiseRequant2v = false;
// Blocks of four dyadic channels take the dyadic kernel (etmcu_xpulp_pointwise_4ch_dy).
constexpr bool kPointwiseDyadic = true;
// No dyadic forms of their own for the convolution's interior blocks (util/pointwise.h
// set_dyadic_block): the dyadic kernel above takes them.
struct PointwiseDyadicBlocks {
  static constexpr bool on = false;
  static constexpr void (*relu)() = nullptr;
  static constexpr void (*clamp)() = nullptr;
  static constexpr uint32_t clamp_path = 0;
};
// The kernel reads PointwiseBlock::w_row_skip (border windows clipped to the input).
constexpr bool kPointwiseWeightSkip = true;
// Its kernel loops over output rows (pointwise_4ch_rows: the convolution's interior in one call a
// block instead of one a block and row; a call left out saved about 57 cycles on ResNet-8).
constexpr bool kPointwiseRowLoop = true;
// Runs are whole words (PointwiseBlock::words).
constexpr bool kPointwiseByteRuns = false;
// Layers whose window rows are not whole words (a 3-channel first layer: 27 taps, widened to 36)
// and strided 1x1 layers go through conv's im2col_runs: their windows gathered (copy_lines) into
// contiguous columns, which this kernel's four- and five-pixel loops take as a 1x1 layer.
constexpr bool kPointwiseIm2colRuns = true;
// Whole aligned words (a strided 1x1 layer's pixels) word by word; 9-byte runs (a 3x3 window row
// on 3 channels) as two words and a byte in one hardware loop, the misaligned word loads and
// stores done by the core (two cycles each), against two cycles a byte in the general loop
// (gather_rows).
inline void copy_lines(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row, int32_t n,
                       int32_t lines) {
#if defined(__riscv)
  if (n == 9 && lines >= 1) {
    uint32_t a, b, c;
    __asm__ volatile(
        ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
        ".option push\n\t"
        ".option norvc\n\t"                      // the loop end counts 4-byte words
        ".insn i 0x2b, 4, x15, %[lines], 9\n\t"  // cv.setup 1: 8 instructions
        "lw %[a], 0(%[s])\n\t"
        "lw %[b], 4(%[s])\n\t"
        "lb %[c], 8(%[s])\n\t"
        "add %[s], %[s], %[sr]\n\t"
        "sw %[a], 0(%[d])\n\t"
        "sw %[b], 4(%[d])\n\t"
        "sb %[c], 8(%[d])\n\t"
        "add %[d], %[d], %[dr]\n\t"
        ".option pop\n\t"
        : [s] "+r"(src), [d] "+r"(dst), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c)
        : [lines] "r"(lines), [sr] "r"(src_row), [dr] "r"(dst_row)
        : "memory");
    return;
  }
#endif
  if (((static_cast<uint32_t>(n | dst_row | src_row) | reinterpret_cast<uintptr_t>(dst) |
        reinterpret_cast<uintptr_t>(src)) &
       3u) == 0) {
    for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row)
      for (int32_t i = 0; i < n; i += 4) {
        uint32_t v;
        memcpy(&v, __builtin_assume_aligned(src + i, 4), 4);
        memcpy(__builtin_assume_aligned(dst + i, 4), &v, 4);
      }
    return;
  }
  xpulp::gather_rows(dst, dst_row, src, src_row, 1, n, lines);
}

// The kernel of the block's form (b.dyadic, chosen by pointwise_form_ok: a build has the frexp
// one when a block without the dyadic form reaches here).
inline void run_4ch(PointwiseBlock* b, PointwiseRows* rows = nullptr) {
#if defined(__riscv)
  // (the path tests first: a build without a form drops its kernel's address)
  if (kernel_path_on(kPathDyadic) && b->dyadic != 0)
    etmcu_xpulp_pointwise_4ch_dy(b, rows);
  else if (kernel_path_on(kPathFrexp))
    etmcu_xpulp_pointwise_4ch(b, rows);
#else
  (void)b, (void)rows;
#endif
}

inline void pointwise_4ch(const PointwiseBlock& b) {
#if defined(__riscv)
  // (groups == 0: the kernel only reads the block)
  run_4ch(const_cast<PointwiseBlock*>(&b));
#else
  pointwise_4ch_c<kPointwiseDyadic>(b, [](int32_t acc, const int8_t* x, const int8_t* w) {
    uint32_t xv, wv;
    memcpy(&xv, x, 4);
    memcpy(&wv, w, 4);
    return xpulp::sdotsp_b(acc, xv, wv);
  });
#endif
}
// Several output rows (PointwiseRows) in one call (groups 0).
inline void pointwise_4ch_rows(PointwiseBlock& b, PointwiseRows& r) {
#if defined(__riscv)
  run_4ch(&b, &r);
#else
  pointwise_rows_c(b, r, [](const PointwiseBlock& row) { pointwise_4ch(row); });
#endif
}

// Blocks of four channels one after another (PointwiseBlock::groups): the assembly loops over
// them itself, setting each block's parameters up from the layer's arrays (about 50 cycles a
// block, against a C call per block: the parameters, the call and the kernel's entry and exit).
inline void pointwise_groups(PointwiseBlock& b) {
#if defined(__riscv)
  run_4ch(&b);
#else
  pointwise_groups_c<kPointwiseRequant2v, kPointwiseDyadic>(
      b, [](const PointwiseBlock& one) { pointwise_4ch(one); });
#endif
}

// Blocks whose receptive fields are several kernel rows (a 3x3 convolution's interior) take
// four pixels a pass in etmcu_xpulp_pointwise_rows (24 cycles per 64 multiply-accumulates
// against the three-pixel loop's 19 per 48) where their runs are an even number of words. Set
// only by the convolution's interior path, so a program without such layers links none of it.
inline void set_rows_kernel(PointwiseBlock& b) {
#if defined(__riscv)
  b.rows_fn = etmcu_xpulp_pointwise_rows;
#else
  (void)b;
#endif
}

// Pixels a pass of this kernel takes over several kernel rows (interior_blocks' interior
// columns): four in the rows subroutine (runs of an even number of words), else three; 0 for
// one-row blocks, whose pass depends on x_step (conv's interior does not split those).
inline int32_t rows_pass_pixels(const PointwiseBlock& b) {
  if (b.rows < 2) return 0;
  return b.rows_fn != nullptr && (b.words & 1) == 0 ? 4 : 3;
}

// One pixel: the assembly's one-pixel function on its own (in its own section; the four-channel
// kernel calls it for a run's odd last pixel). Linear layers take pointwise_linear_row instead.
inline void pointwise_1px(const PointwiseBlock& b) {
#if defined(__riscv)
  etmcu_xpulp_pointwise_1px(&b, b.x, b.y);
#else
  pointwise_4ch(b);  // b.pixels == 1
#endif
}

// A linear layer's row in blocks of four features (util/pointwise.h linear_row_blocks_c): on the
// core one call of etmcu_xpulp_linear_row, which loops over the blocks itself with the layer's
// requantization in registers (its own section: linked by programs with such layers only).
__attribute__((always_inline)) inline void pointwise_linear_row(PointwiseBlock& b,
                                                                const int32_t* ksum, int32_t blocks,
                                                                int32_t xterm) {
#if defined(__riscv)
  // (the path tests first: a build without a form drops its function's address)
  if (kernel_path_on(kPathDyadic) && b.dyadic != 0)
    etmcu_xpulp_linear_row_dy(&b, ksum, blocks, xterm);
  else if (kernel_path_on(kPathFrexp))
    etmcu_xpulp_linear_row(&b, ksum, blocks, xterm);
#else
  if (b.dyadic != 0)
    linear_row_dyadic_c(b, ksum, blocks, xterm, [](int32_t acc, const int8_t* x, const int8_t* w) {
      uint32_t xv, wv;
      memcpy(&xv, x, 4);
      memcpy(&wv, w, 4);
      return xpulp::sdotsp_b(acc, xv, wv);
    });
  else
    linear_row_blocks_c(b, ksum, blocks, xterm,
                        [](const PointwiseBlock& one) { pointwise_1px(one); });
#endif
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
