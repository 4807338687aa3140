// Depthwise micro-kernels for the CV32E40P with its PULP extensions: the plane path of
// util/depthwise_planes.h with the row kernels of depthwise_rows.S (a window row is one misaligned
// word and one cv.sdotsp.b) and the plane gathered by nested hardware loops; other layers
// util/depthwise_blocks.h with each tap one cv.mac.
#pragma once
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/isa/xpulp/xpulp_insn.h"
#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/util/depthwise_planes.h"

#if defined(__riscv)
extern "C" void etmcu_xpulp_dw_row_k3(const etmcu::kernels::int8::DwRowArgs* a);
extern "C" void etmcu_xpulp_dw_row(const etmcu::kernels::int8::DwRowArgs* a);
extern "C" void etmcu_xpulp_dw_row4(const etmcu::kernels::int8::DwRow4Args* a);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

struct XpulpPlanes {
  // the row kernels dw_takes_planes can send layers to (util/depthwise_planes.h)
  static constexpr bool kRow1 = true, kRow4 = true;
  // its row kernels honour DwRowArgs::y_row_jump: 3x3 layers may take transposed planes
  static constexpr bool kTransposedK3 = true;
  static void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                          int32_t stride, int32_t n, int32_t lines) {
    xpulp::gather_rows(dst, dst_row, src, src_row, stride, n, lines);
  }
  static void row(const DwRowArgs& a) {
#if defined(__riscv)
    if (a.rows == 3)
      etmcu_xpulp_dw_row_k3(&a);
    else
      etmcu_xpulp_dw_row(&a);
#else
    dw_row_c(a, sdot);
#endif
  }
  static void row4(const DwRow4Args& a) {
#if defined(__riscv)
    etmcu_xpulp_dw_row4(&a);
#else
    dw_row4_c(a, sdot);
#endif
  }
  // cv.sdotsp.b of a (possibly misaligned) plane word and a weight word
  static int32_t sdot(int32_t acc, const int8_t* x, uint32_t w) {
    uint32_t v;
    memcpy(&v, x, 4);
    return xpulp::sdotsp_b(acc, v, w);
  }
};

// One cv.mac.
struct DepthwiseMac {
  static int32_t mac(int32_t acc, int32_t a, int32_t b) { return xpulp::mac(acc, a, b); }
};

// Whether this ISA's planes take the layer, by its geometry (*ls, *strip; the op asks once and
// hands it to depthwise_fast, which adds the values' checks).
inline bool dw_takes_planes(const DwJob& j, int32_t* ls, int32_t* strip) {
  return dw_plane_geometry(j, ls, strip);
}

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
// (Always inlined into the op: GCC made it a function of its own, 136 B more on upstream KWS.)
__attribute__((always_inline)) inline bool depthwise_fast(const DwJob& j, const DwPlanes& planes) {
  if (depthwise_planes_path<XpulpPlanes>(j, planes)) return true;
  return depthwise_blocks_path<DepthwiseMac>(j);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
