// The pointwise micro-kernel for a plain RV32IMC core (the CV32E40P without Xpulp):
// isa/rv32/pointwise_4ch.S (two pixels by four channels, 22 instructions per 8 multiply-
// accumulates, the requantization in the same routine). On the host the same arithmetic in C.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/pointwise.h"

#if defined(__riscv)
extern "C" void etmcu_rv32_pointwise_4ch(const etmcu::kernels::int8::PointwiseBlock* b);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// A run of one pixel is computed as a pair with itself (linear layers keep their row path).
constexpr bool kPointwiseSingle = false;
constexpr bool kPointwise4ch = true;
// Its kernels read only PointwiseBlock's 4v requantization fields (set_requant skips the 2v).
constexpr bool kPointwiseRequant2v = false;
// One requantization form (no dyadic kernel).
constexpr bool kPointwiseDyadic = false;
// The kernel reads PointwiseBlock::w_row_skip (border windows clipped to the input).
constexpr bool kPointwiseWeightSkip = true;
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
  etmcu_rv32_pointwise_4ch(&b);
#else
  pointwise_4ch_c(b, [](int32_t acc, const int8_t* x, const int8_t* w) {
    return acc + x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
  });
#endif
}

// One pixel (a linear layer's row): the same kernel with b.pixels == 1.
inline void pointwise_1px(const PointwiseBlock& b) { pointwise_4ch(b); }

// No subroutine for several kernel rows: this ISA's kernel never reads PointwiseBlock::rows_fn.
inline void set_rows_kernel(PointwiseBlock&) {}

// Blocks of four channels one after another (PointwiseBlock::groups): one kernel call per block.
inline void pointwise_groups(PointwiseBlock& b) {
  pointwise_groups_c<kPointwiseRequant2v, kPointwiseDyadic>(
      b, [](const PointwiseBlock& one) { pointwise_4ch(one); });
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
