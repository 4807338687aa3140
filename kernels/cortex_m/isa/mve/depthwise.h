// Depthwise micro-kernel with Helium (MVE, Cortex-M55/M85): the four channels of a block are the
// lanes of one vector (VLDRB.S32 widening loads, VMLA, or VMLA by a shared input byte).
#pragma once
#include <arm_mve.h>
#include <stdint.h>

#include "kernels/cortex_m/isa/mve/pointwise.h"  // mve::requant4
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/depthwise_planes.h"
#include "kernels/cortex_m/util/output_q.h"

namespace etmcu {
namespace kernels {
namespace int8 {

using cmsis::wrap_add;

// Dilation 1; multiplier 1 (kShared false: output channel ch reads input channel ch) or a multiple
// of 4 (kShared: the four output channels of a block read the one input channel ch / multiplier).
// Four output channels are the lanes of one vector (VLDRB.S32 widens four bytes), the channel
// block outermost so that its constants stay in registers: inside the input the input offset is
// folded out of the taps (acc = bias + ioff * sum(w) + sum(x * w), wrapping like ref's sum), a tap
// then two loads, VMUL and VADD (MVE has no integer vector-by-vector VMLA), or with kShared one
// VMLA by the shared input byte; border windows add the offset per valid tap. The last c % 4
// channels are a predicated block (VCTP.32), not a scalar tail. Requantization in lanes
// (isa/mve/pointwise.h's requant4) when every channel of the block has multiplier > 0 and shift in
// [-31, -1], else per lane (cmsis::requantize). kK: 3 for a 3x3 window (the taps unrolled), 0 for
// any other.
// Four bytes widened to the lanes; predicated (VPST + VLDRBT) only in the last, partial block.
template <bool kTail>
inline int32x4_t load4(const int8_t* p, mve_pred16_t pred) {
  return kTail ? vldrbq_z_s32(p, pred) : vldrbq_s32(p);
}

// A run of `count` 3x3 windows inside the input along an output row (multiplier 1, four full
// lanes, requantization in lanes): the nine weight vectors widened once per block into `wide`
// and read back with immediate offsets, the input's three row pointers advanced per tap, so the
// addresses no longer spill (96 instructions per four outputs before, MobileNetV1's layers).
struct Dw3x3Run {
  int32_t wide[36] __attribute__((aligned(16)));
  int32x4_t full, mult, neg_right, ooff, lo, hi;
  int32_t cin, in_row, x_step, c;
};
__attribute__((noinline)) inline void dw3x3_run(const Dw3x3Run& r, const int8_t* xr, int8_t* y,
                                                int32_t count) {
  const int32_t* w = r.wide;
  const int32_t cin = r.cin, in_row = r.in_row, x_step = r.x_step, c = r.c;
  for (int32_t i = 0; i < count; ++i, xr += x_step, y += c) {
    int32x4_t acc = r.full;
    const int8_t* q = xr;
#pragma GCC unroll 3
    for (int32_t ky = 0; ky < 3; ++ky, q += in_row - 2 * cin) {
      acc = vaddq_s32(acc, vmulq_s32(vldrbq_s32(q), vldrwq_s32(w + 12 * ky)));
      q += cin;
      acc = vaddq_s32(acc, vmulq_s32(vldrbq_s32(q), vldrwq_s32(w + 12 * ky + 4)));
      q += cin;
      acc = vaddq_s32(acc, vmulq_s32(vldrbq_s32(q), vldrwq_s32(w + 12 * ky + 8)));
    }
    vstrbq_s32(y, mve::requant4(acc, r.mult, r.neg_right, r.ooff, r.lo, r.hi));
  }
}

// The blocks [ch_begin, ch_end) (kTail: the one partial block at ch_begin).
template <bool kShared, int kK, bool kTail>
__attribute__((noinline)) void depthwise_lanes(const DwJob& j, int32_t ch_begin, int32_t ch_end) {
  const int32_t cin = j.in.c, c = j.out.c, kh = kK ? kK : j.kh, kw = kK ? kK : j.kw;
  const int32_t ioff = j.ioff, cm = j.cm;
  const int32_t in_row = j.in.w * cin, w_row = kw * c;
  const OutputQ oq{j.ooff, j.amin, j.amax};
  const int32x4_t ooff = vdupq_n_s32(j.ooff), lo = vdupq_n_s32(j.amin), hi = vdupq_n_s32(j.amax);
  for (int32_t ch = ch_begin; ch < ch_end; ch += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c - ch));
    const int32x4_t bias = j.bias ? vldrwq_z_s32(j.bias + ch, p) : vdupq_n_s32(0);
    int32x4_t sw = vdupq_n_s32(0);
    for (int32_t t = 0; t < kh * kw; ++t) sw = vaddq_s32(sw, load4<kTail>(j.w + t * c + ch, p));
    const int32x4_t full = vmlaq_n_s32(bias, sw, ioff);
    bool lanes = true;
    for (int32_t k = ch; k < c && k < ch + 4; ++k)
      lanes = lanes && j.mult[k] > 0 && j.shift[k] <= -1 && j.shift[k] >= -31;
    const int32x4_t mult = vldrwq_z_s32(j.mult + ch, p);
    const int32x4_t neg_right = vldrwq_z_s32(j.shift + ch, p);
    const int8_t* xc = j.x + (kShared ? ch / cm : ch);
    const int8_t* wc = j.w + ch;
    int8_t* py = j.y + ch;
    Dw3x3Run run3;
    if (kK == 3 && !kShared && !kTail && lanes) {
      for (int32_t t = 0; t < 9; ++t)
        vstrwq_s32(run3.wide + 4 * t, vldrbq_s32(wc + (t / 3) * w_row + (t % 3) * c));
      run3.full = full;
      run3.mult = mult;
      run3.neg_right = neg_right;
      run3.ooff = ooff;
      run3.lo = lo;
      run3.hi = hi;
      run3.cin = cin;
      run3.in_row = in_row;
      run3.x_step = j.stride.w * cin;
      run3.c = c;
    }
    // A window inside the input: full + the taps (kw unrolled for 3x3).
    auto inner = [&](const int8_t* xr) {
      int32x4_t acc = full;
      const int8_t* wr = wc;
#pragma GCC unroll 3
      for (int32_t ky = 0; ky < kh; ++ky, xr += in_row, wr += w_row) {
#pragma GCC unroll 3
        for (int32_t t = 0; t < kw; ++t) {
          const int32x4_t wv = load4<kTail>(wr + t * c, p);
          if (kShared)
            acc = vmlaq_n_s32(acc, wv, xr[t * cin]);
          else
            acc = vaddq_s32(acc, vmulq_s32(load4<kTail>(xr + t * cin, p), wv));
        }
      }
      return acc;
    };
    auto store = [&](int8_t* y, int32x4_t acc) {
      if (lanes) {
        const int32x4_t q = mve::requant4(acc, mult, neg_right, ooff, lo, hi);
        if (kTail)
          vstrbq_p_s32(y, q, p);
        else
          vstrbq_s32(y, q);
      } else {
        int32_t a[4];
        vst1q_s32(a, acc);
        for (int32_t k = 0; k < 4 && ch + k < c; ++k)
          y[k] = finish(oq, j.mult[ch + k], j.shift[ch + k], a[k]);
      }
    };
    // The output columns whose windows are inside the input horizontally: [x_first, x_end).
    const int32_t x_first = (j.pad.w + j.stride.w - 1) / j.stride.w;
    int32_t x_end = j.in.w - kw + j.pad.w < 0 ? 0 : (j.in.w - kw + j.pad.w) / j.stride.w + 1;
    if (x_end > j.out.w) x_end = j.out.w;
    const int32_t x_step = j.stride.w * cin;
    for (int32_t oy = 0; oy < j.out.h; ++oy) {
      const int32_t iy0 = oy * j.stride.h - j.pad.h;
      const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
      const int32_t ky1 = iy0 + kh > j.in.h ? j.in.h - iy0 : kh;
      const bool rows_inside = ky0 == 0 && ky1 == kh;
      for (int32_t ox = 0; ox < j.out.w; ++ox, py += c) {
        if (rows_inside && ox == x_first && x_first < x_end) {
          // The row's inner windows without border tests (the last one falls through below).
          const int8_t* xr = xc + iy0 * in_row + (ox * j.stride.w - j.pad.w) * cin;
          if (kK == 3 && !kShared && !kTail && lanes) {
            const int32_t n = x_end - 1 - ox;
            dw3x3_run(run3, xr, py, n);
            ox += n;
            py += n * c;
          } else {
            for (; ox + 1 < x_end; ++ox, py += c, xr += x_step) store(py, inner(xr));
          }
        }
        const int32_t ix0 = ox * j.stride.w - j.pad.w;
        const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
        const int32_t kx1 = ix0 + kw > j.in.w ? j.in.w - ix0 : kw;
        int32x4_t acc;
        if (rows_inside && kx0 == 0 && kx1 == kw) {
          acc = inner(xc + iy0 * in_row + ix0 * cin);
        } else {  // a border window: the valid taps, each with the offset
          acc = bias;
          const int8_t* xr = xc + (iy0 + ky0) * in_row + (ix0 + kx0) * cin;
          const int8_t* wr = wc + ky0 * w_row + kx0 * c;
          for (int32_t ky = ky0; ky < ky1; ++ky, xr += in_row, wr += w_row)
            for (int32_t t = 0; t < kx1 - kx0; ++t) {
              const int32x4_t wv = load4<kTail>(wr + t * c, p);
              if (kShared)
                acc = vmlaq_n_s32(acc, wv, xr[t * cin] + ioff);
              else
                acc =
                    vaddq_s32(acc, vmulq_s32(vaddq_n_s32(load4<kTail>(xr + t * cin, p), ioff), wv));
            }
        }
        store(py, acc);
      }
    }
  }
}

// The plane path (util/depthwise_planes.h) with Helium: a window of up to four rows of four taps
// is one gather load (VLDRB.U8 of the sixteen bytes at r * line_stride + t: byte gathers have no
// alignment requirement, windows start at any byte; predicated past the last row, so nothing past
// the window is read) against the rows' weight words, one VMLADAVA.S8. The byte offsets limit it
// to line strides up to kMaxLine.
struct MvePlanes {
  // the row kernels dw_takes_planes can send layers to (util/depthwise_planes.h)
  static constexpr bool kRow1 = false, kRow4 = true;
  static constexpr bool kDyadicRow4 = false;  // (no row4_dy)
  // (its row kernels ignore DwRowArgs::y_row_jump: upright planes only)
  static constexpr bool kTransposedK3 = false;
  // (no channel loop of its own: depthwise_planes runs the channels, util/depthwise_planes.h)
  static constexpr bool kChannelLoop = false;
  // Eight plane bytes per gather (VLDRB.U16 at offsets i * stride, predicated at the line's end)
  // and one narrowing store.
  static void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                          int32_t stride, int32_t n, int32_t lines) {
    if (stride > 0xffff / 8) {
      for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row)
        for (int32_t i = 0; i < n; ++i) dst[i] = src[i * stride];
      return;
    }
    const uint16x8_t offs = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(stride));
    for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row) {
      const uint8_t* s = reinterpret_cast<const uint8_t*>(src);
      uint8_t* d = reinterpret_cast<uint8_t*>(dst);
      for (int32_t i = 0; i < n; i += 8, s += 8 * stride, d += 8) {
        const mve_pred16_t p = vctp16q(static_cast<uint32_t>(n - i));
        vstrbq_p_u16(d, vldrbq_gather_offset_z_u16(s, offs, p), p);
      }
    }
  }
  static constexpr int32_t kMaxLine = (255 - 3) / 3;
  // Byte i of a group: row i / 4, tap i % 4.
  static uint8x16_t row_offsets(int32_t ls) {
    const uint8x16_t i = vidupq_n_u8(0, 1);
    return vaddq_u8(vandq_u8(i, vdupq_n_u8(3)),
                    vmulq_n_u8(vshrq_n_u8(i, 2), static_cast<uint8_t>(ls)));
  }
  // Rows [4g, 4g + 4) of the window at w, bytes past `rows` zero (not read).
  static int8x16_t window4(const int8_t* w, uint8x16_t offs, mve_pred16_t p) {
    return vreinterpretq_s8_u8(
        vldrbq_gather_offset_z_u8(reinterpret_cast<const uint8_t*>(w), offs, p));
  }
  // One channel (the plane driver's interface: depthwise_fast below sends multiplier-1 layers to
  // depthwise_lanes, so only row4 runs).
  static void row(const DwRowArgs& a) {
    const int32_t rows = a.rows, ls = a.line_stride, groups = (rows + 3) / 4;
    const uint8x16_t offs = row_offsets(ls);
    int32x4_t wv[3];
    mve_pred16_t gp[3];
    for (int32_t g = 0; g < 3; ++g) {
      const int32_t n = rows - 4 * g > 0 ? rows - 4 * g : 0;
      gp[g] = vctp8q(static_cast<uint32_t>(4 * n));
      wv[g] = vldrwq_z_s32(reinterpret_cast<const int32_t*>(a.w) + 4 * g, vctp32q(n));
    }
    const cmsis::Requant2v q{a.mult, a.offset_high, a.right};
    const int32_t outputs = a.outputs, out_rows = a.out_rows, jump = a.row_jump, ys = a.y_step;
    const int32_t xs = a.x_step, full = a.full, amin = a.amin, amax = a.amax;
    const int8_t* window = a.window;
    int8_t* y = a.y;
    for (int32_t r = 0; r < out_rows; ++r, window += jump) {
      for (int32_t o = 0; o < outputs; ++o, window += xs, y += ys) {
        int32_t v = vmladavaq_s8(full, window4(window, offs, gp[0]), vreinterpretq_s8_s32(wv[0]));
        for (int32_t g = 1; g < groups; ++g)
          v = vmladavaq_s8(v, window4(window + 4 * g * ls, offs, gp[g]),
                           vreinterpretq_s8_s32(wv[g]));
        *y = static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset_2v(v, q), amin, amax));
      }
    }
  }
  // Four output channels sharing the window: the gathers once, four VMLADAVA per group, the four
  // sums requantized in lanes and stored by one narrowing VSTRB.32.
  static void row4(const DwRow4Args& a) {
    const int32_t rows = a.rows, ls = a.line_stride, groups = (rows + 3) / 4;
    const uint8x16_t offs = row_offsets(ls);
    // wk[12 * k + r]: row r of channel k (zero past the rows)
    uint32_t wk[4 * 12] = {};
    for (int32_t r = 0; r < rows; ++r)
      for (int k = 0; k < 4; ++k) wk[12 * k + r] = a.w[4 * r + k];
    mve_pred16_t gp[3];
    for (int32_t g = 0; g < 3; ++g)
      gp[g] = vctp8q(static_cast<uint32_t>(rows - 4 * g > 0 ? 4 * (rows - 4 * g) : 0));
    const int32x4_t mult = vldrwq_s32(a.mult);
    const int32x4_t neg_right = vnegq_s32(vldrwq_s32(a.right));
    const int32x4_t offset = vshlq_s32(vldrwq_s32(a.offset_high), neg_right);
    const int32x4_t lo = vdupq_n_s32(a.amin), hi = vdupq_n_s32(a.amax);
    const int32_t outputs = a.outputs, out_rows = a.out_rows, jump = a.row_jump, ys = a.y_step;
    const int32_t xs = a.x_step, f0 = a.full[0], f1 = a.full[1], f2 = a.full[2], f3 = a.full[3];
    const int8_t* window = a.window;
    int8_t* y = a.y;
    for (int32_t r = 0; r < out_rows; ++r, window += jump) {
      for (int32_t o = 0; o < outputs; ++o, window += xs, y += ys) {
        int32_t a0 = f0, a1 = f1, a2 = f2, a3 = f3;
        for (int32_t g = 0; g < groups; ++g) {
          const int8x16_t xv = window4(window + 4 * g * ls, offs, gp[g]);
          const int8_t* wg = reinterpret_cast<const int8_t*>(wk + 4 * g);
          a0 = vmladavaq_s8(a0, xv, vldrbq_s8(wg));
          a1 = vmladavaq_s8(a1, xv, vldrbq_s8(wg + 48));
          a2 = vmladavaq_s8(a2, xv, vldrbq_s8(wg + 96));
          a3 = vmladavaq_s8(a3, xv, vldrbq_s8(wg + 144));
        }
        int32x4_t acc = vdupq_n_s32(a0);
        acc = vsetq_lane_s32(a1, acc, 1);
        acc = vsetq_lane_s32(a2, acc, 2);
        acc = vsetq_lane_s32(a3, acc, 3);
        vstrbq_s32(y, mve::requant4(acc, mult, neg_right, offset, lo, hi));
      }
    }
  }
};

// Whether this ISA's planes take the layer, by its geometry (*ls, *strip; the op asks once and
// hands it to depthwise_fast, which adds the values' checks).
inline bool dw_takes_planes(const DwJob& j, int32_t* ls, int32_t* strip) {
  return j.cm % 4 == 0 && dw_plane_geometry(j, ls, strip) && *ls <= MvePlanes::kMaxLine;
}

// (No layers run whole straight from NHWC before the planes on this ISA: isa/rv32/depthwise.h,
// isa/xpulp/depthwise.h.)
inline bool depthwise_whole(const DwJob&) { return false; }

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j, const DwPlanes& planes) {
  // (multiplier 1 through the planes measured slower on KWS: 2.50 M against 2.22 M)
  if (depthwise_planes_path<MvePlanes>(j, planes)) return true;
  // The vector lanes (this ISA's block path), one kernel path per instantiation (each is about
  // 2 KB); every path a layer needs is checked before it writes anything.
  const int32_t full = j.out.c / 4 * 4;
  if (j.cm == 1) {
    const bool k3 = j.kh == 3 && j.kw == 3, tail = full < j.out.c;
    if (!kernel_path(k3 ? kPathDwLanes3x3 : kPathDwBlocks) ||
        (tail && !kernel_path(kPathDwLanesTail)))
      return false;
    if (k3)
      depthwise_lanes<false, 3, false>(j, 0, full);
    else
      depthwise_lanes<false, 0, false>(j, 0, full);
    if (tail) depthwise_lanes<false, 0, true>(j, full, j.out.c);
    return true;
  }
  if (j.cm % 4 == 0 && kernel_path(kPathDwLanesMult4)) {  // e.g. KWS's first layer: 1 -> 64
    depthwise_lanes<true, 0, false>(j, 0, j.out.c);
    return true;
  }
  return false;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
