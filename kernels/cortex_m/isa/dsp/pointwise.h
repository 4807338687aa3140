// The pointwise micro-kernel with the Arm DSP extension (Cortex-M4/M7/M33, and the SMLAD path of
// isa/mve): util/pointwise.h's contract in C with ACLE intrinsics. SMLAD needs both operands as
// 16-bit pairs (SXTB16 of a word and of the word rotated by 8). A block's weights are widened once
// per call into a stack buffer, four channels interleaved per word (LDRD reads a channel's two
// pairs), and reused for every pixel of the run, so a pixel costs one load and two SXTB16 per
// input word and one LDRD and two SMLAD per channel: 15 instructions per 16 multiply-accumulates,
// all accumulators in registers. Short runs (gathered columns: two pixels) widen both operands on
// the fly. On the host the plain C form.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/util/paths.h"
#include "kernels/cortex_m/util/pointwise.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// Linear layers in blocks of four features (op_quantized_linear.cpp linear_blocks), any layer: a
// one-pixel run (a linear layer's row) widens both operands on the fly, cheaper than the row
// path's two channels per pass.
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
// Reads no PointwiseBlock::w_row_skip: border windows are gathered instead (op_quantized_conv2d).
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

#if defined(__ARM_FEATURE_DSP)
namespace dsp {

inline uint32_t ror8(uint32_t v) { return (v >> 8) | (v << 24); }
// SXTB16 of v rotated by 8 in one instruction (GCC does not fold the rotate into it).
inline uint32_t sxtb16_ror8(uint32_t v) {
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}
// Two words at p + kOff bytes in one LDRD (GCC splits a 64-bit load into two LDRs here).
template <int kOff>
inline void ldrd(const uint32_t* p, uint32_t& lo, uint32_t& hi) {
  __asm__("ldrd %0, %1, [%2, #%c3]"
          : "=r"(lo), "=r"(hi)
          : "r"(p), "n"(kOff), "m"(*reinterpret_cast<const uint64_t(*)[4]>(p)));
}
inline uint32_t load32(const int8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

// Words of a channel's filter the widened buffer holds (16 words: a 64-channel 1x1 layer), and
// the shortest run worth widening the weights for (the widening costs ~6 instructions per word).
constexpr int32_t kWideWords = 16;
constexpr int32_t kWideMinPixels = 4;

// CMSIS-NN's requantization plus offset and clamp, in the 2v form (cmsis_math.h): SMULL, then the
// high word's two carries, one add and shift (|v| < 2^30 by the contract).
inline int8_t requant_2v(int32_t v, int32_t mult, int32_t round_high, int32_t right, int32_t amin,
                         int32_t amax) {
  const int64_t p = static_cast<int64_t>(v + v) * mult;
  const int32_t high = static_cast<int32_t>(p >> 32) +
                       static_cast<int32_t>(static_cast<uint32_t>(p) >> 31) + (v >> 31);
  int32_t r = (high + round_high) >> right;
  r = r < amin ? amin : r;
  return static_cast<int8_t>(r > amax ? amax : r);
}

// The four accumulators of one pixel requantized and stored.
inline void store4(const PointwiseBlock& b, int8_t* y, int32_t a0, int32_t a1, int32_t a2,
                   int32_t a3) {
  y[0] = requant_2v(a0, b.mult[0], b.round_high[0], b.right[0], b.amin, b.amax);
  y[1] = requant_2v(a1, b.mult[1], b.round_high[1], b.right[1], b.amin, b.amax);
  y[2] = requant_2v(a2, b.mult[2], b.round_high[2], b.right[2], b.amin, b.amax);
  y[3] = requant_2v(a3, b.mult[3], b.round_high[3], b.right[3], b.amin, b.amax);
}

// Four outputs in one word when the activation range is within int8 (kPacked): SSAT #8 per
// output, then the range as two byte-wise selects (SSUB8 sets GE per byte, SEL picks), one store:
// 12 instructions per four outputs instead of a compare pair and a store each.
inline bool packed_ok(const PointwiseBlock& b) {
  return b.amin >= -128 && b.amax <= 127 && b.amin <= b.amax;
}
inline int32_t requant_raw(int32_t v, int32_t mult, int32_t round_high, int32_t right) {
  const int64_t p = static_cast<int64_t>(v + v) * mult;
  const int32_t high = static_cast<int32_t>(p >> 32) +
                       static_cast<int32_t>(static_cast<uint32_t>(p) >> 31) + (v >> 31);
  return (high + round_high) >> right;
}
inline void store4_packed(const PointwiseBlock& b, int8_t* y, uint32_t lo4, uint32_t hi4,
                          int32_t a0, int32_t a1, int32_t a2, int32_t a3) {
  const uint32_t r0 =
      static_cast<uint8_t>(__ssat(requant_raw(a0, b.mult[0], b.round_high[0], b.right[0]), 8));
  const uint32_t r1 =
      static_cast<uint8_t>(__ssat(requant_raw(a1, b.mult[1], b.round_high[1], b.right[1]), 8));
  const uint32_t r2 =
      static_cast<uint8_t>(__ssat(requant_raw(a2, b.mult[2], b.round_high[2], b.right[2]), 8));
  const uint32_t r3 =
      static_cast<uint32_t>(__ssat(requant_raw(a3, b.mult[3], b.round_high[3], b.right[3]), 8));
  uint32_t word = r0 | (r1 << 8) | (r2 << 16) | (r3 << 24);
  __ssub8(word, lo4);
  word = __sel(word, lo4);  // max(word, amin) per byte
  __ssub8(word, hi4);
  word = __sel(hi4, word);  // min(word, amax) per byte
  memcpy(y, &word, 4);
}

// Runs whose filter fits kWideWords: widen the weights once, then one pixel per pass. kOneRun: the
// receptive field is one run (1x1 layers), two words per loop step.
template <bool kOneRun, bool kPacked>
__attribute__((noinline)) void pointwise_wide_t(const PointwiseBlock& b, const uint32_t* wide) {
  const int32_t words = b.words, skip = b.row_skip, rows = kOneRun ? 1 : b.rows;
  const int32_t run = kOneRun ? b.rows * words : words;  // words per run
  const int32_t pixels = b.pixels, x_step = b.x_step, y_step = b.y_step;
  const uint32_t lo4 = 0x01010101u * static_cast<uint8_t>(b.amin);
  const uint32_t hi4 = 0x01010101u * static_cast<uint8_t>(b.amax);
  const int8_t* x = b.x;
  int8_t* y = b.y;
  for (int32_t p = 0; p < pixels; ++p, x += x_step, y += y_step) {
    int32_t a0 = b.full[0], a1 = b.full[1], a2 = b.full[2], a3 = b.full[3];
    const uint32_t* wp = wide;
    const int8_t* xr = x;
    auto step = [&](const int8_t* xq, const uint32_t* wq) {
      const uint32_t v = load32(xq);
      const uint32_t xe = __sxtb16(v), xo = sxtb16_ror8(v);
      uint32_t e, o;
      ldrd<0>(wq, e, o);
      a0 = __smlad(xe, e, a0);
      a0 = __smlad(xo, o, a0);
      ldrd<8>(wq, e, o);
      a1 = __smlad(xe, e, a1);
      a1 = __smlad(xo, o, a1);
      ldrd<16>(wq, e, o);
      a2 = __smlad(xe, e, a2);
      a2 = __smlad(xo, o, a2);
      ldrd<24>(wq, e, o);
      a3 = __smlad(xe, e, a3);
      a3 = __smlad(xo, o, a3);
    };
    for (int32_t r = 0; r < rows; ++r, xr += skip) {
      const int8_t* end = xr + 4 * run;
      if (kOneRun) {
        if (run & 1) {
          step(xr, wp);
          xr += 4;
          wp += 8;
        }
        for (; xr < end; xr += 8, wp += 16) {
          step(xr, wp);
          step(xr + 4, wp + 8);
        }
      } else {
        for (; xr < end; xr += 4, wp += 8) step(xr, wp);
      }
    }
    if (kPacked)
      store4_packed(b, y, lo4, hi4, a0, a1, a2, a3);
    else
      store4(b, y, a0, a1, a2, a3);
  }
}

// Other runs: both operands widened on the fly, one pixel by four channels per pass.
__attribute__((noinline)) inline void pointwise_narrow(const PointwiseBlock& b) {
  const int32_t words = b.words, ws = b.w_stride, skip = b.row_skip;
  const int8_t* x = b.x;
  int8_t* y = b.y;
  for (int32_t p = 0; p < b.pixels; ++p, x += b.x_step, y += b.y_step) {
    int32_t a0 = b.full[0], a1 = b.full[1], a2 = b.full[2], a3 = b.full[3];
    const int8_t* w = b.w;
    const int8_t* xr = x;
    for (int32_t r = 0; r < b.rows; ++r, xr += skip) {
      const int8_t* end = xr + 4 * words;
      for (; xr < end; xr += 4, w += 4) {
        const uint32_t v = load32(xr);
        const uint32_t xe = __sxtb16(v), xo = sxtb16_ror8(v);
        uint32_t t = load32(w);
        a0 = __smlad(xe, __sxtb16(t), a0);
        a0 = __smlad(xo, sxtb16_ror8(t), a0);
        t = load32(w + ws);
        a1 = __smlad(xe, __sxtb16(t), a1);
        a1 = __smlad(xo, sxtb16_ror8(t), a1);
        t = load32(w + 2 * ws);
        a2 = __smlad(xe, __sxtb16(t), a2);
        a2 = __smlad(xo, sxtb16_ror8(t), a2);
        t = load32(w + 3 * ws);
        a3 = __smlad(xe, __sxtb16(t), a3);
        a3 = __smlad(xo, sxtb16_ror8(t), a3);
      }
    }
    store4(b, y, a0, a1, a2, a3);
  }
}

__attribute__((noinline)) inline void pointwise_wide(const PointwiseBlock& b) {
  const int32_t n = b.rows * b.words;
  // wide[8 * i + 2 * k + {0, 1}]: word i of channel k as its even and its odd byte pairs
  uint32_t wide[8 * kWideWords] __attribute__((aligned(8)));
  for (int k = 0; k < 4; ++k) {
    const int8_t* w = b.w + static_cast<ptrdiff_t>(k) * b.w_stride;
    for (int32_t i = 0; i < n; ++i) {
      const uint32_t v = load32(w + 4 * i);
      wide[8 * i + 2 * k] = __sxtb16(v);
      wide[8 * i + 2 * k + 1] = sxtb16_ror8(v);
    }
  }
  const bool one_run = b.rows == 1 || b.row_skip == 0;
  // Windows of several runs (the convolutions' block paths) and an activation range past int8 (no
  // caller makes one today) are kernel paths of their own; without them, the narrow loop.
  if ((!one_run && !kernel_path_or_fallback(kPathMicroMultiRun)) ||
      (!packed_ok(b) && !kernel_path_or_fallback(kPathMicroUnpacked))) {
    pointwise_narrow(b);
    return;
  }
  if (packed_ok(b)) {
    if (one_run)
      pointwise_wide_t<true, true>(b, wide);
    else
      pointwise_wide_t<false, true>(b, wide);
  } else {
    if (one_run)
      pointwise_wide_t<true, false>(b, wide);
    else
      pointwise_wide_t<false, false>(b, wide);
  }
}

}  // namespace dsp
#endif

inline void pointwise_4ch(const PointwiseBlock& b) {
#if defined(__ARM_FEATURE_DSP)
  if (b.pixels >= dsp::kWideMinPixels && b.rows * b.words <= dsp::kWideWords)
    dsp::pointwise_wide(b);
  else
    dsp::pointwise_narrow(b);
#else
  pointwise_4ch_c(b, [](int32_t acc, const int8_t* x, const int8_t* w) {
    return acc + x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
  });
#endif
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
