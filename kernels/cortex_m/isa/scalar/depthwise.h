// Depthwise micro-kernels for cores without SIMD (Armv6-M; the host build of the scalar variant):
// four channels per block, the input offset folded out of inner windows
// (util/depthwise_blocks.h); on Armv6-M multiplier-1 layers through the planes (below).
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/util/depthwise_planes.h"

namespace etmcu {
namespace kernels {
namespace int8 {

#if defined(__ARM_ARCH_6M__)
// Armv6-M (Cortex-M0/M0+): the plane path of util/depthwise_planes.h with row kernels in C whose
// taps are int32 weights taken out of the packed words once per call (a byte of a word costs two
// shifts on Thumb-1), kTaps per window row (3 when every row's fourth byte is zero: a zero tap
// adds nothing). depthwise_blocks' four channels per pass spilled r0-r7 (16 instructions per MAC
// on KWS's 3x3 layers).
struct M0Planes {
  // the row kernels dw_takes_planes can send layers to (util/depthwise_planes.h)
  static constexpr bool kRow1 = true, kRow4 = false;
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
  static int32_t tap(uint32_t word, int t) { return static_cast<int8_t>(word >> (8 * t)); }
  static bool three_taps(const uint32_t* w, int32_t n) {
    uint32_t top = 0;
    for (int32_t i = 0; i < n; ++i) top |= w[i] >> 24;
    return top == 0;
  }
  // Plane byte t of p: LDRB with an immediate offset and SXTB (LDRSB has only a register offset).
  static int32_t at(const int8_t* p, int t) {
    return static_cast<int8_t>(reinterpret_cast<const uint8_t*>(p)[t]);
  }
  // kRows: 3 (unrolled) or 0 (a.rows).
  template <int kTaps, int kRows>
  __attribute__((noinline)) static void row_t(const DwRowArgs& a) {
    int32_t w[kDwMaxRows * 4];
    const int32_t rows = kRows ? kRows : a.rows, ls = a.line_stride;
    for (int32_t r = 0; r < rows; ++r)
      for (int t = 0; t < 4; ++t) w[4 * r + t] = tap(a.w[r], t);
    const cmsis::Requant2v q{a.mult, a.offset_high, a.right};
    const int32_t outputs = a.outputs, out_rows = a.out_rows, jump = a.row_jump, ys = a.y_step;
    const int32_t xs = a.x_step, full = a.full, amin = a.amin, amax = a.amax;
    const int8_t* window = a.window;
    int8_t* y = a.y;
    for (int32_t row = 0; row < out_rows; ++row, window += jump) {
      for (int32_t o = 0; o < outputs; ++o, window += xs, y += ys) {
        int32_t v = full;
        const int8_t* p = window;
        const int32_t* wr = w;
#pragma GCC unroll 3
        for (int32_t r = 0; r < rows; ++r, p += ls, wr += 4) {
          v += at(p, 0) * wr[0] + at(p, 1) * wr[1] + at(p, 2) * wr[2];
          if (kTaps == 4) v += at(p, 3) * wr[3];
        }
        *y = static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset_2v(v, q), amin, amax));
      }
    }
  }
  static void row(const DwRowArgs& a) {
    if (a.rows == 3 && three_taps(a.w, 3))
      row_t<3, 3>(a);
    else if (three_taps(a.w, a.rows))
      row_t<3, 0>(a);
    else
      row_t<4, 0>(a);
  }
  // (multiplier 1 only here, so never called; the plane driver's interface)
  static void row4(const DwRow4Args& a) { dw_row4_c(a, dot4_bytes); }
};
#endif

// Whether this ISA's planes take the layer, by its geometry (*ls, *strip; the op asks once and
// hands it to depthwise_fast, which adds the values' checks).
inline bool dw_takes_planes(const DwJob& j, int32_t* ls, int32_t* strip) {
#if defined(__ARM_ARCH_6M__)
  return j.cm == 1 && dw_plane_geometry(j, ls, strip);
#else
  (void)j;
  (void)ls;
  (void)strip;
  return false;
#endif
}

// (No layers run whole straight from NHWC before the planes on this ISA: isa/rv32/depthwise.h,
// isa/xpulp/depthwise.h.)
inline bool depthwise_whole(const DwJob&) { return false; }

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j, const DwPlanes& planes) {
  (void)planes;  // (the planes are Armv6-M's only)
#if defined(__ARM_ARCH_6M__)
  // (multiplier 1 only: four-channel rows with their 768 bytes of weights beside the plane took
  // the stack peak to 3,600 B, past the micro:bit's 3 KiB, for 0.3 M fewer instructions on KWS)
  if (depthwise_planes_path<M0Planes>(j, planes)) return true;
#endif
  return depthwise_blocks_path<WrapMac>(j);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
