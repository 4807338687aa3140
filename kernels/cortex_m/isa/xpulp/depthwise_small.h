// Depthwise 3x3 layers of 3 x 3 -> 3 x 3 output planes at stride 1 with padding 1 (MobileNetV1's
// last depthwise layer at 96 x 96) for the CV32E40P with its PULP extensions: one channel at a
// time straight from NHWC, each window row one cv.sdotsp.b (isa/xpulp/depthwise_small.S; the
// C form below is what the host runs for the same bits).
//
// Why not util/depthwise_small.h's C path as on the plain core: with cv.mac it measured 214 cycles
// a channel (0.33 MAC/cycle), its 49 products and 18 loads one instruction each. Here a channel's
// input row r is one word D_r = [x_r0, x_r1, x_r2, 0] and its tap row k one word W_k (the fourth
// byte 0); output column 0 takes L_r = [pad, x_r0, x_r1, *] (D_r << 8), column 1 D_r, column 2
// R_r = [x_r1, x_r2, pad, 0] (D_r >> 8), so an output is two or three cv.sdotsp.b. The padding is
// the raw value z = -ioff (the input's zero point, whose products cancel: the layer's ioff must
// be at least -127, so that z is a byte), in the columns' words as in a row above or below the
// image, which adds z * (that tap row's sum): the three rows' starts are
//   top (window row 0 outside)     bias - z * (sum W_1 + sum W_2)
//   middle                         bias - z * (sum W_0 + sum W_1 + sum W_2)
//   bottom (window row 2 outside)  bias - z * (sum W_0 + sum W_1),
// three cv.dotsp.b with z in every byte. So each sum is exactly bias + sum of w * (x + ioff) over
// the taps inside the image. Requantized in cmsis::requant_dyadic's form for a sum >= 0 with a
// fused ReLU: the sum clamped to [0, B] (B = 2^(30-L) - 1 from cv.fl1 of m: the product fits),
// one product, cv.addRN, then the clamp to amax (not util/depthwise_small.h's clamp to
// V = T / m, which saves the last clamp but costs a division, 21 cycles a channel here).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel_paths.h"
#include "kernels/cortex_m/isa/xpulp/depthwise_channels.h"
#include "kernels/cortex_m/isa/xpulp/xpulp_insn.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_small.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The layer for etmcu_xpulp_dw_small_s1 (isa/xpulp/depthwise_small.S reads it at these offsets).
struct DwSmallWords {
  DwWordsChannels ch;
  uint32_t z;           // the padding's raw value -ioff in each byte
  int32_t amax;         // the upper clamp (the lower one is the offset: a fused ReLU)
  int32_t offset_high;  // offset * 2^21 + 2^19 (cv.addRN adds the other 2^20)
  int32_t zero;
};
static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwSmallWords, z) == 32 && offsetof(DwSmallWords, offset_high) == 40),
              "DwSmallWords layout differs from the one depthwise_small.S reads");

// What etmcu_xpulp_dw_small_s1 computes, word for word (the host's xpulp variant runs it).
inline void dw_small_words_c(const DwSmallWords& a) {
  const int32_t C = a.ch.c_step;
  const uint32_t zb = a.z & 0xffu;
  for (int32_t c = 0; c < a.ch.channels; ++c) {
    uint32_t d[3], w[3];
    for (int r = 0; r < 3; ++r) {
      d[r] = w[r] = 0;
      for (int i = 0; i < 3; ++i) {
        const ptrdiff_t at = static_cast<ptrdiff_t>(3 * r + i) * C + c;
        d[r] |= static_cast<uint32_t>(static_cast<uint8_t>(a.ch.x[at])) << (8 * i);
        w[r] |= static_cast<uint32_t>(static_cast<uint8_t>(a.ch.w[at])) << (8 * i);
      }
    }
    const int32_t b = dw_words_bias(a.ch, c);
    const int32_t z0 = xpulp::sdotsp_b(0, a.z, w[0]), z1 = xpulp::sdotsp_b(0, a.z, w[1]),
                  z2 = xpulp::sdotsp_b(0, a.z, w[2]);
    const int32_t start[3] = {b - z1 - z2, b - z1 - z2 - z0, b - z1 - z0};
    const int32_t m = a.ch.mult[c] >> 11;
    const int32_t bound = 0x1fffffff >> (31 - __builtin_clz(static_cast<uint32_t>(m)));
    for (int ox = 0; ox < 3; ++ox) {
      uint32_t col[3];
      for (int r = 0; r < 3; ++r)
        col[r] = ox == 0 ? (d[r] << 8) | zb : (ox == 1 ? d[r] : (d[r] >> 8) | (zb << 16));
      for (int oy = 0; oy < 3; ++oy) {
        int32_t v = start[oy];
        for (int k = 0; k < 3; ++k) {
          const int r = oy + k - 1;  // the input row under tap row k
          if (r >= 0 && r < 3) v = xpulp::sdotsp_b(v, col[r], w[k]);
        }
        v = v < 0 ? 0 : (v > bound ? bound : v);
        v = (v * m + a.offset_high + (1 << 20)) >> 21;
        a.ch.y[static_cast<ptrdiff_t>(3 * oy + ox) * C + c] =
            static_cast<int8_t>(v < a.amax ? v : a.amax);
      }
    }
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu

#if defined(__riscv)
extern "C" void etmcu_xpulp_dw_small_s1(const etmcu::kernels::int8::DwSmallWords* a);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// The path's bit on this ISA: kPathDwLanesTail (MVE's lanes' tail and the plain core's direct
// paths elsewhere; no bit is free).
constexpr uint32_t kPathDwSmallWords = kPathDwLanesTail;

// Layers of 3 x 3 output planes at stride 1 with padding 1 (depthwise_whole, isa/xpulp/
// depthwise.h: the op asks before the planes' checks); true when it ran the layer. The stride-2
// geometry (7 x 7 -> 3 x 3) goes with the other stride-2 layers (depthwise_s2.h).
__attribute__((always_inline)) inline bool dw_small_words_path(const DwJob& j) {
  // (Both bits first, folded with the mask: no code in a program without the path.)
  if (!kernel_path_on(kPathDwSmallWords) || !kernel_path_on(kPathDyadic)) return false;
  if (dw_small_kind(j) != 1 || j.ioff < -127 || !dw_small_ok(j, 1) ||
      !kernel_path(kPathDwSmallWords))
    return false;
  kernel_path_mark(kPathDyadic);
  DwSmallWords a;
  a.zero = 0;
  a.ch = dw_words_channels(j, &a.zero);
  a.z = static_cast<uint32_t>(static_cast<uint8_t>(-j.ioff)) * 0x01010101u;
  a.amax = j.amax;
  a.offset_high = cmsis::dyadic_offset_high(j.ooff);
#if defined(__riscv)
  etmcu_xpulp_dw_small_s1(&a);
#else
  dw_small_words_c(a);
#endif
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
