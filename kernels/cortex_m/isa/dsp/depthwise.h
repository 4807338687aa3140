// Depthwise micro-kernels with the Arm DSP extension (Cortex-M4/M7/M33): the plane path of
// util/depthwise_planes.h for windows up to four taps wide, with row kernels in C and ACLE
// intrinsics: a window row is one (possibly misaligned) word of the plane, widened by two SXTB16,
// against the row's weight word widened once per call, two SMLAD. Three-row windows keep the six
// widened weights in registers. Other layers take util/depthwise_blocks.h (a 32-bit MLA per tap).
#pragma once
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/util/depthwise_planes.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

#include "kernels/cortex_m/isa/dsp/pointwise.h"  // dsp::sxtb16_ror8, dsp::requant_2v
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

#if defined(__ARM_FEATURE_DSP)
namespace dsp {

// acc + the four products of the plane word at x and the weight word widened to (we, wo).
inline int32_t dot4_wide(int32_t acc, const int8_t* x, uint32_t we, uint32_t wo) {
  uint32_t v;
  memcpy(&v, x, 4);  // misaligned: fine on these cores
  acc = __smlad(__sxtb16(v), we, acc);
  return __smlad(sxtb16_ror8(v), wo, acc);
}

// One output channel along out_rows rows of outputs, kRows window rows (0: a.rows of them).
template <int kRows>
__attribute__((noinline)) void dw_row(const DwRowArgs& a) {
  const int32_t rows = kRows ? kRows : a.rows, ls = a.line_stride, xs = a.x_step;
  uint32_t we[kDwMaxRows], wo[kDwMaxRows];
  for (int32_t r = 0; r < rows; ++r) {
    we[r] = __sxtb16(a.w[r]);
    wo[r] = sxtb16_ror8(a.w[r]);
  }
  const int32_t full = a.full, mult = a.mult, right = a.right, amin = a.amin, amax = a.amax;
  const int32_t round_high = a.offset_high + (int32_t(1) << (right - 1));
  // (locals: the int8 stores may alias the argument block, which GCC would then reload)
  const int32_t outputs = a.outputs, out_rows = a.out_rows, jump = a.row_jump, ys = a.y_step;
  const int8_t* window = a.window;
  int8_t* y = a.y;
  for (int32_t row = 0; row < out_rows; ++row, window += jump) {
    for (int32_t o = 0; o < outputs; ++o, window += xs, y += ys) {
      int32_t v = full;
      const int8_t* x = window;
#pragma GCC unroll 3
      for (int32_t r = 0; r < rows; ++r, x += ls) v = dot4_wide(v, x, we[r], wo[r]);
      *y = requant_2v(v, mult, round_high, right, amin, amax);
    }
  }
}

// Four output channels sharing the plane (channel multiplier a multiple of 4): each plane word is
// loaded and widened once for the four.
__attribute__((noinline)) inline void dw_row4(const DwRow4Args& a) {
  const int32_t rows = a.rows, ls = a.line_stride, xs = a.x_step;
  // wide[4 * r + k]: window row r of channel k, even and odd pairs
  uint32_t we[4 * kDwMaxRows], wo[4 * kDwMaxRows];
  for (int32_t i = 0; i < 4 * rows; ++i) {
    we[i] = __sxtb16(a.w[i]);
    wo[i] = sxtb16_ror8(a.w[i]);
  }
  int32_t round_high[4];
  for (int k = 0; k < 4; ++k) round_high[k] = a.offset_high[k] + (int32_t(1) << (a.right[k] - 1));
  const int32_t outputs = a.outputs, out_rows = a.out_rows, jump = a.row_jump, ys = a.y_step;
  const int8_t* window = a.window;
  int8_t* y = a.y;
  for (int32_t row = 0; row < out_rows; ++row, window += jump) {
    for (int32_t o = 0; o < outputs; ++o, window += xs, y += ys) {
      int32_t v0 = a.full[0], v1 = a.full[1], v2 = a.full[2], v3 = a.full[3];
      const int8_t* x = window;
      for (int32_t r = 0; r < rows; ++r, x += ls) {
        uint32_t v;
        memcpy(&v, x, 4);
        const uint32_t xe = __sxtb16(v), xo = sxtb16_ror8(v);
        const uint32_t* e = we + 4 * r;
        const uint32_t* d = wo + 4 * r;
        v0 = __smlad(xo, d[0], __smlad(xe, e[0], v0));
        v1 = __smlad(xo, d[1], __smlad(xe, e[1], v1));
        v2 = __smlad(xo, d[2], __smlad(xe, e[2], v2));
        v3 = __smlad(xo, d[3], __smlad(xe, e[3], v3));
      }
      y[0] = requant_2v(v0, a.mult[0], round_high[0], a.right[0], a.amin, a.amax);
      y[1] = requant_2v(v1, a.mult[1], round_high[1], a.right[1], a.amin, a.amax);
      y[2] = requant_2v(v2, a.mult[2], round_high[2], a.right[2], a.amin, a.amax);
      y[3] = requant_2v(v3, a.mult[3], round_high[3], a.right[3], a.amin, a.amax);
    }
  }
}

}  // namespace dsp
#endif

struct DspPlanes {
  // the row kernels dw_takes_planes can send layers to (util/depthwise_planes.h)
  static constexpr bool kRow1 = true, kRow4 = true;
  static constexpr bool kRowSubroutines = false;  // (DwRowArgs::rows_fn stays null)
  static constexpr bool kDyadicRows = false;      // (DwRowArgs::dyadic stays 0)
  static constexpr bool kDyadicRow4 = false;      // (no row4_dy)
  // (its row kernels ignore DwRowArgs::y_row_jump: upright planes only)
  static constexpr bool kTransposedK3 = false;
  // (no channel loop of its own: depthwise_planes runs the channels, util/depthwise_planes.h)
  static constexpr bool kChannelLoop = false;
  static void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                          int32_t stride, int32_t n, int32_t lines) {
    for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row) {
      const int8_t* s = src;
      for (int32_t i = 0; i < n; ++i, s += stride) dst[i] = *s;
    }
  }
  static void row(const DwRowArgs& a) {
#if defined(__ARM_FEATURE_DSP)
    if (a.rows == 3)
      dsp::dw_row<3>(a);
    else
      dsp::dw_row<0>(a);
#else
    dw_row_c(a, dot4_bytes);
#endif
  }
  static void row4(const DwRow4Args& a) {
#if defined(__ARM_FEATURE_DSP)
    dsp::dw_row4(a);
#else
    dw_row4_c(a, dot4_bytes);
#endif
  }
};

// Whether this ISA's planes take the layer, by its geometry (*ls, *strip; the op asks once and
// hands it to depthwise_fast, which adds the values' checks).
inline bool dw_takes_planes(const DwJob& j, int32_t* ls, int32_t* strip) {
  return dw_plane_geometry(j, ls, strip);
}

// (No layers run whole straight from NHWC before the planes on this ISA: isa/rv32/depthwise.h,
// isa/xpulp/depthwise.h.)
inline bool depthwise_whole(const DwJob&) { return false; }

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j, const DwPlanes& planes) {
  if (depthwise_planes_path<DspPlanes>(j, planes)) return true;
  return depthwise_blocks_path<WrapMac>(j);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
