// Depthwise micro-kernels for a plain RV32IMC core: the plane path of util/depthwise_planes.h
// with its row kernels in C (a window row is four byte loads, multiplies and adds) and, for
// three rows of up to three taps, in assembly (depthwise_rows.S: the nine weights in registers), other layers util/depthwise_blocks.h.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/util/depthwise_planes.h"

#if defined(__riscv)
extern "C" void etmcu_rv32_dw_row_k3(const etmcu::kernels::int8::DwRowArgs* a);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

struct Rv32Planes {
  static void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                          int32_t stride, int32_t n, int32_t lines) {
    for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row) {
      const int8_t* s = src;
      for (int32_t i = 0; i < n; ++i, s += stride) dst[i] = *s;
    }
  }
  // Three window rows of up to three taps: the nine weights held in registers.
  static void row_k3(const DwRowArgs& a) {
    const int32_t w0 = static_cast<int8_t>(a.w[0]), w1 = static_cast<int8_t>(a.w[0] >> 8),
                  w2 = static_cast<int8_t>(a.w[0] >> 16), w3 = static_cast<int8_t>(a.w[1]),
                  w4 = static_cast<int8_t>(a.w[1] >> 8), w5 = static_cast<int8_t>(a.w[1] >> 16),
                  w6 = static_cast<int8_t>(a.w[2]), w7 = static_cast<int8_t>(a.w[2] >> 8),
                  w8 = static_cast<int8_t>(a.w[2] >> 16);
    const cmsis::Requant2v q{a.mult, a.offset_high, a.right};
    const int32_t ls = a.line_stride, amin = a.amin, amax = a.amax, full = a.full;
    const int8_t* window = a.window;
    int8_t* y = a.y;
    for (int32_t row = 0; row < a.out_rows; ++row, window += a.row_jump) {
      for (int32_t o = 0; o < a.outputs; ++o, window += a.x_step, y += a.y_step) {
        const int8_t* x = window;
        int32_t v = full + x[0] * w0 + x[1] * w1 + x[2] * w2;
        x += ls;
        v += x[0] * w3 + x[1] * w4 + x[2] * w5;
        x += ls;
        v += x[0] * w6 + x[1] * w7 + x[2] * w8;
        *y = static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset_2v(v, q), amin, amax));
      }
    }
  }
  static void row(const DwRowArgs& a) {
    // (the weight word's fourth byte is zero when kw <= 3)
    if (a.rows == 3 && (a.w[0] >> 24) == 0 && (a.w[1] >> 24) == 0 && (a.w[2] >> 24) == 0)
#if defined(__riscv)
      etmcu_rv32_dw_row_k3(&a);  // isa/rv32/depthwise_rows.S
#else
      row_k3(a);
#endif
    else
      dw_row_c(a, dot4_bytes);
  }
  static void row4(const DwRow4Args& a) { dw_row4_c(a, dot4_bytes); }
};

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j) {
  int32_t ls = 0, strip = 0;
  // The plane path where its rows are in assembly (three rows of up to three taps, one channel
  // per input channel): in C its rows were slower than depthwise_blocks (KWS's 10x4 first layer
  // 2.62 M cycles against 1.91 M).
  if (j.kh == 3 && j.kw <= 3 && j.cm == 1 && dw_plane_applies(j, &ls, &strip)) {
    depthwise_planes<Rv32Planes>(j, ls, strip);
    return true;
  }
  return depthwise_blocks_any<WrapMac>(j);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
