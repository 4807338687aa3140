// Depthwise micro-kernels for a plain RV32IMC core: 3x3 stride-1 layers with padding 1 straight
// from NHWC (util/depthwise_direct.h, depthwise_direct.S) where they are dyadic with a fused ReLU
// and their rows long enough; otherwise the plane path of util/depthwise_planes.h with its row
// kernels in assembly (depthwise_rows.S: three rows with the nine weights in registers; four
// channels sharing a plane, two pixels per pass; their C forms, util/depthwise_planes.h, on the
// host), other layers util/depthwise_blocks.h.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/util/depthwise_direct.h"
#include "kernels/cortex_m/util/depthwise_planes.h"
#include "kernels/cortex_m/util/depthwise_small.h"

#if defined(__riscv)
extern "C" void etmcu_rv32_dw_row_k3(const etmcu::kernels::int8::DwRowArgs* a);
extern "C" void etmcu_rv32_dw_row4(const etmcu::kernels::int8::DwRow4Args* a);
extern "C" void etmcu_rv32_dw_quint5();    // (a subroutine of etmcu_rv32_dw_row_k3: its registers)
extern "C" void etmcu_rv32_dw_pairs_s2();  // (the same)
extern "C" void etmcu_rv32_dw_row_k3_dy(const etmcu::kernels::int8::DwRowArgs* a);
extern "C" void etmcu_rv32_dw_quint5_dy();  // (subroutines of etmcu_rv32_dw_row_k3_dy)
extern "C" void etmcu_rv32_dw_pairs_s2_dy();
extern "C" void etmcu_rv32_dw_direct_channel(const etmcu::kernels::int8::DwDirectArgs* a);
extern "C" void etmcu_rv32_dw_direct_s2_channel(const etmcu::kernels::int8::DwDirectS2Args* a);
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// The bit of the direct path (util/depthwise_direct.h, depthwise_fast below): kPathDwLanesTail,
// which on this ISA also names the stride-2 rows' pairs and the 3 x 3 output planes (no bit is
// free; MobileNetV1-like networks have all three).
constexpr uint32_t kPathDwDirect = kPathDwLanesTail;

// The direct path's channel kernel: isa/rv32/depthwise_direct.S (its C form on the host).
struct Rv32Direct {
  static void direct_channel(const DwDirectArgs& a) {
#if defined(__riscv)
    etmcu_rv32_dw_direct_channel(&a);
#else
    dw_direct_channel_c(a);
#endif
  }
  static void direct_s2_channel(const DwDirectS2Args& a) {
#if defined(__riscv)
    etmcu_rv32_dw_direct_s2_channel(&a);
#else
    dw_direct_s2_channel_c(a);
#endif
  }
};

struct Rv32Planes {
  // the row kernels dw_takes_planes can send layers to (util/depthwise_planes.h)
  static constexpr bool kRow1 = true, kRow4 = true;
  // Rows of five outputs at stride 1 with a fused ReLU (DS-CNN's and KWS's 25 x 5 layers) go
  // five outputs a pass, every row of the call in etmcu_rv32_dw_quint5 (seven plane bytes a window
  // row for fifteen mul + add), where a quad and a single output took fifteen plane loads a row
  // and the single its own pass. In a section of its own behind kPathDwK3Stride2 (which names it
  // on this ISA), so only programs with such rows link it; without it the row kernel's quads and
  // single give the same bits.
  // Rows of an even number of outputs at stride 2 with a fused ReLU (MobileNetV1's stride-2
  // layers but its last, of 3 x 3 outputs) go two outputs a pass, every row of the call in
  // etmcu_rv32_dw_pairs_s2 (five plane bytes a window row for six mul + add, where the row
  // kernel takes one output at a time), behind kPathDwLanesTail (which names it on this ISA).
  static constexpr bool kRowSubroutines = true;
  static void set_row_subroutines(DwRowArgs* a) {
#if defined(__riscv)
    if (a->rows != 3 || a->neg_floor != 0) return;
    // (each form's subroutine behind its path bit, as the row kernels: row below)
    const bool dy = kernel_path_on(kPathDyadic) && a->dyadic;
    if (!dy && !kernel_path_on(kPathFrexp)) return;
    if (a->x_step == 1 && a->outputs == 5 && kernel_path_or_fallback(kPathDwK3Stride2))
      a->rows_fn = dy ? etmcu_rv32_dw_quint5_dy : etmcu_rv32_dw_quint5;
    else if (a->x_step == 2 && a->outputs % 2 == 0 && kernel_path_or_fallback(kPathDwLanesTail))
      a->rows_fn = dy ? etmcu_rv32_dw_pairs_s2_dy : etmcu_rv32_dw_pairs_s2;
#else
    (void)a;
#endif
  }
  // Layers whose channels are all dyadic with a fused ReLU: the row kernel and its subroutines
  // in the dyadic form (etmcu_rv32_dw_row_k3_dy and the _dy subroutines: REQ_K3D, one mul
  // against the 4v form's mulh, 7 cycles a sum at or above 0 against 12), V computed per channel
  // by planes_rows1 (one division). Each form behind its path bit (kPathDyadic, kPathFrexp), so a
  // program links the forms its layers take (ours the dyadic one, upstream KWS the 4v one);
  // dw_takes_planes below leaves a layer whose form this firmware lacks to the op's other paths.
  // The host runs the 4v form's C row (the same bits).
  static constexpr bool kDyadicRows = true;
  static constexpr bool kDyadicRow4 = false;  // (no row4_dy: the 4v row4 kernel)
  // Whether this firmware has the row kernel of the layer's form (multipliers of 4 take the
  // four-channel kernel; dw_takes_planes asks). (Not inlined, nor dyadic_values: inlined into
  // the op, the channel loop of all_dyadic took its frame 16 B deeper.)
  __attribute__((noinline)) static bool has_form(const DwJob& j) {
    return j.cm != 1 || dyadic_rows(j) || kernel_path_or_fallback(kPathFrexp);
  }
  static bool dyadic_rows(const DwJob& j) {
#if defined(__riscv)
    return kernel_path_on(kPathDyadic) && dyadic_values(j);  // (folded without the path)
#else
    (void)j;
    return false;
#endif
  }
  __attribute__((noinline)) static bool dyadic_values(const DwJob& j) {
    return j.kh == 3 && j.amin == j.ooff && cmsis::all_dyadic(j.mult, j.shift, j.out.c) &&
           kernel_path_or_fallback(kPathDyadic);
  }
  // (its row kernels ignore DwRowArgs::y_row_jump: upright planes only)
  static constexpr bool kTransposedK3 = false;
  // (no channel loop of its own: depthwise_planes runs the channels, util/depthwise_planes.h)
  static constexpr bool kChannelLoop = false;
  // Four bytes a pass (their addresses from one pointer and its steps), the last n mod 4 one at a
  // time: the byte loop took 7 cycles a byte (its branch taken each byte), this one 16 cycles per
  // four bytes (etmcu-sim --trace, MobileNetV1).
  static void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                          int32_t stride, int32_t n, int32_t lines) {
    const int32_t s2 = 2 * stride, s3 = 3 * stride, s4 = 4 * stride;
    for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row) {
      const int8_t* s = src;
      int8_t* d = dst;
      int8_t* const quads_end = dst + (n & ~3);
      while (d != quads_end) {
        const int8_t a = s[0], b = s[stride], c = s[s2], e = s[s3];
        s += s4;
        d[0] = a;
        d[1] = b;
        d[2] = c;
        d[3] = e;
        d += 4;
      }
      for (int32_t i = n & 3; i > 0; --i, s += stride) *d++ = *s;
    }
  }
  // depthwise_fast below takes this path for three rows of up to three taps only.
  static void row(const DwRowArgs& a) {
#if defined(__riscv)
    if (kernel_path_on(kPathDyadic) && a.dyadic)
      etmcu_rv32_dw_row_k3_dy(&a);  // isa/rv32/depthwise_rows.S
    else if (kernel_path_on(kPathFrexp))
      etmcu_rv32_dw_row_k3(&a);  // (dw_takes_planes: a layer reaches here in a form it has)
#else
    dw_row_c(a, dot4_bytes);
#endif
  }
  static void row4(const DwRow4Args& a) {
#if defined(__riscv)
    etmcu_rv32_dw_row4(&a);  // isa/rv32/depthwise_rows.S
#else
    dw_row4_c(a, dot4_bytes);
#endif
  }
};

// Whether this ISA's planes take the layer, by its geometry (*ls, *strip; the op asks once and
// hands it to depthwise_fast, which adds the values' checks).
// A one-channel layer needs the row kernel of its form in this firmware (Rv32Planes::has_form;
// without it, a stale mask: the op's other paths, the same bits, and the mask recorded again).
inline bool dw_takes_planes(const DwJob& j, int32_t* ls, int32_t* strip) {
  // (not the layers of the direct path, depthwise_fast below: they need no plane buffer)
  return !dw_direct_takes(j, kPathDwDirect) &&
         ((j.kh == 3 && j.kw <= 3 && j.cm == 1) || j.cm % 4 == 0) &&
         dw_plane_geometry(j, ls, strip) && Rv32Planes::has_form(j);
}

// Layers of 3 x 3 output planes in C (util/depthwise_small.h; the op asks before the planes'
// checks), behind kPathDwLanesTail, which names it on this ISA with the stride-2 rows' pairs
// (etmcu_rv32_dw_pairs_s2): 3 x 3 planes end networks with stride-2 depthwise layers
// (MobileNetV1), so a program that has one path nearly always has the other, and no bit is free.
// (The op's depthwise_whole: the layers an ISA runs whole straight from NHWC, checking their
// out's place itself, asked before the plane buffer and any slabs.)
__attribute__((always_inline)) inline bool depthwise_whole(const DwJob& j) {
  return dw_small_path<DwSmallC>(j, kPathDwLanesTail);
}

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
// (Always inlined into the op: GCC made it a function of its own, 136 B more on upstream KWS.)
__attribute__((always_inline)) inline bool depthwise_fast(const DwJob& j, const DwPlanes& planes) {
  // The plane path where its rows are in assembly (three rows of up to three taps, one channel
  // per input channel): in C its rows were slower than depthwise_blocks (KWS's 10x4 first layer
  // 2.62 M cycles against 1.91 M).
  // Multipliers of 4 (KWS's 1 -> 64 first layer) take it with the four-channel row kernel
  // (depthwise_rows.S: 2.75 instructions per multiply-accumulate in its loop; depthwise_blocks
  // took 1.90 M cycles for that layer).
  // First, 3x3 layers of stride 1 and padding 1, dyadic with a fused ReLU and rows of 6 or more,
  // straight from NHWC (util/depthwise_direct.h: no plane; MobileNetV1's stride-1 layers, 35 to
  // 49 cycles an output against the planes' 43 to 55; DS-CNN's rows of 5 stay on the planes).
  if (dw_direct_path<Rv32Direct>(j, kPathDwDirect)) return true;
  if (depthwise_planes_path<Rv32Planes>(j, planes)) return true;
  return depthwise_blocks_path<WrapMac>(j);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
