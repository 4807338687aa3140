// The average pool's micro-kernel in plain C (every core without a specialised one): the sums of
// four neighbouring channels over a pooling window, four channels per word load in two registers
// of 16-bit lanes (SWAR): each int8 is biased to 0..255 (xor 0x80), the even and the odd bytes are
// masked into separate lane pairs, and a window of up to kPoolMaxTaps taps (util/avg_pool.h) cannot
// carry across a lane (257 * 255 < 2^16). About 2.5 instructions per input byte against 10 for the
// reference's strided per-channel loop.
#pragma once
#include <stdint.h>
#include <string.h>

namespace etmcu {
namespace kernels {
namespace int8 {

// sums[k] = the sum over rows r < rows and columns i < cols of p[r * row_step + i * col_step + k]
// (k < 4; p word-aligned, row_step and col_step multiples of 4, rows * cols <= kPoolMaxTaps).
inline void window_sums4(const int8_t* p, int32_t rows, int32_t cols, int32_t row_step,
                         int32_t col_step, int32_t sums[4]) {
  uint32_t even = 0, odd = 0;  // lanes: channels 0, 2 / 1, 3
  for (int32_t r = 0; r < rows; ++r, p += row_step) {
    const int8_t* q = p;
    for (int32_t i = 0; i < cols; ++i, q += col_step) {
      uint32_t v;
      memcpy(&v, __builtin_assume_aligned(q, 4), 4);
      v ^= 0x80808080u;
      even += v & 0x00ff00ffu;
      odd += (v >> 8) & 0x00ff00ffu;
    }
  }
  const int32_t bias = 128 * rows * cols;
  sums[0] = static_cast<int32_t>(even & 0xffffu) - bias;
  sums[1] = static_cast<int32_t>(odd & 0xffffu) - bias;
  sums[2] = static_cast<int32_t>(even >> 16) - bias;
  sums[3] = static_cast<int32_t>(odd >> 16) - bias;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
