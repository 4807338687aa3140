// Depthwise micro-kernels for a plain RV32IMC core: the plane path of util/depthwise_planes.h
// with its three-row kernel in assembly (depthwise_rows.S: the nine weights in registers; its C
// form, util/depthwise_planes.h, on the host), other layers util/depthwise_blocks.h.
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
  // depthwise_fast below takes this path for three rows of up to three taps only.
  static void row(const DwRowArgs& a) {
#if defined(__riscv)
    etmcu_rv32_dw_row_k3(&a);  // isa/rv32/depthwise_rows.S
#else
    dw_row_c(a, dot4_bytes);
#endif
  }
  // (multiplier 1 only here, so never called; the plane driver's interface)
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
