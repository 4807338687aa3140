// The pointwise micro-kernel's contract (isa/<isa>/pointwise.h implements pointwise_4ch): one
// block of four output channels over a run of pixels whose receptive field is one contiguous row
// each (1x1 convolutions), dot products and requantization together. The layout is fixed: the
// Xpulp assembly (isa/xpulp/pointwise_4ch.S) and isa/rv32/pointwise_4ch.S read it at
// these offsets.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct PointwiseBlock {
  const int8_t* x;      // the first pixel's row (4-byte aligned)
  int32_t x_step;       // bytes from one pixel's row to the next (a multiple of 4)
  int32_t pixels;       // >= 1
  int32_t words;        // row length / 4 (>= 1)
  const int8_t* w;      // four weight rows of 4 * words bytes, one after the other (aligned)
  int8_t* y;            // output of the first pixel, first channel of the block
  int32_t y_step;       // bytes from one pixel's outputs to the next
  int32_t amin, amax;   // activation range
  int32_t full[4];      // bias + input_offset * sum(w) per channel, |full| < 2^29
  int32_t mult[4];      // cmsis::Requant2v per channel (requant_2v_ok)
  int32_t offset_high[4];
  int32_t right[4];
  int32_t round_high[4];  // offset_high + 2^(right - 1) (kernels without cv.addRNr)
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(PointwiseBlock, full) == 36 && offsetof(PointwiseBlock, mult) == 52 &&
                   offsetof(PointwiseBlock, offset_high) == 68 &&
                   offsetof(PointwiseBlock, right) == 84 &&
                   offsetof(PointwiseBlock, round_high) == 100),
              "PointwiseBlock layout differs from the one pointwise_4ch.S reads");

// The sums stay below 2^30 (the 2v requantization's bound) when |full| < 2^29 and the row is
// shorter than 2^15 bytes (|sum(x * w)| <= 2^14 per byte).
constexpr int32_t kPointwiseMaxRow = 1 << 15;
constexpr int32_t kPointwiseMaxFull = 1 << 29;

// The arithmetic in C, one pixel and channel at a time (the ISAs without a pointwise micro-kernel
// of their own, and the host build of the xpulp one with the instruction's arithmetic in dot4).
template <class Dot4>
void pointwise_4ch_c(const PointwiseBlock& b, Dot4 dot4) {
  for (int32_t p = 0; p < b.pixels; ++p) {
    const int8_t* x = b.x + static_cast<ptrdiff_t>(p) * b.x_step;
    int8_t* y = b.y + static_cast<ptrdiff_t>(p) * b.y_step;
    for (int k = 0; k < 4; ++k) {
      const int8_t* w = b.w + static_cast<ptrdiff_t>(k) * 4 * b.words;
      int32_t v = b.full[k];
      for (int32_t i = 0; i < b.words; ++i) v = dot4(v, x + 4 * i, w + 4 * i);
      const cmsis::Requant2v q{b.mult[k], b.offset_high[k], b.right[k]};
      y[k] = static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset_2v(v, q), b.amin, b.amax));
    }
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
