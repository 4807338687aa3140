// Depthwise 3x3 layers with output planes of 3 x 3 (MobileNetV1's last two at 96 x 96: 7 x 7 ->
// 3 x 3 at stride 2, then 3 x 3 -> 3 x 3 at stride 1 with padding 1): one channel at a time, its
// taps and its inputs in registers, every multiply-accumulate straight from NHWC.
//
// Why a path of its own: the plane path (util/depthwise_planes.h) gathers each channel's
// zero-point-padded plane into a buffer, packs its weights into words and runs its lines; on a
// plane of nine outputs those costs are per channel and the lines' set-up per line, so the layer
// cost 38 cycles an output with Xpulp (0.24 MAC/cycle) and 95 on the plain core. Here a channel
// is its 9 (or 49) input bytes, loaded once with the pixel stride, its 9 weights, and only the
// products inside the image: at stride 1 the corners take 4 taps, the edges 6, the centre 9 (49
// multiply-accumulates where the plane computes 81 with the padding's).
//
// Taken when every channel is dyadic (cmsis::requant_dyadic_ok) with a fused ReLU (amin is the
// output offset): a sum is clamped to [0, V] (cmsis::dyadic_relu_bound, one division per channel)
// and requantized with one product, as the Xpulp lines' REQ_DY. Isa provides the loads, the
// multiply-accumulate and that requantization (isa/<isa>/depthwise.h: post-increment loads and
// cv.mac, cv.clipur, cv.addRN with Xpulp).
//
// An out over its input: each channel's outputs are stored after its inputs are read, so an out a
// whole number of pixels from its input (the same channel's bytes) is safe at stride 1 (all nine
// inputs read first) and at stride 2 when the out does not start after the input (output row q
// is stored below input row 2q + 2, the next one read). Other overlaps take the next path.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The C forms of the ISA hooks (the host, and ISAs without their own).
struct DwSmallC {
  // *p, then p += step
  static int32_t load(const int8_t*& p, int32_t step) {
    const int32_t v = *p;
    p += step;
    return v;
  }
  static int32_t mac(int32_t acc, int32_t a, int32_t b) {
    return cmsis::wrap_add(acc, cmsis::wrap_mul(a, b));
  }
  // cmsis::DyadicRelu's requantization
  static int32_t requant(int32_t v, const cmsis::DyadicRelu& q) {
    return cmsis::dyadic_relu_requantize(v, q);
  }
};

// n values from p, `step` apart, plus `add`, into v (p moves past them)
template <class Isa, int n>
__attribute__((always_inline)) inline void dw_small_load(const int8_t*& p, int32_t step,
                                                         int32_t add, int32_t (&v)[n]) {
#pragma GCC unroll 9
  for (int i = 0; i < n; ++i) v[i] = Isa::load(p, step) + add;
}

// The geometries: 0 none, 1 stride 1 (3 x 3 -> 3 x 3, padding 1), 2 stride 2 (7 x 7 -> 3 x 3,
// no padding).
inline int32_t dw_small_kind(const DwJob& j) {
  if (j.kh != 3 || j.kw != 3 || j.cm != 1 || j.in.c != j.out.c || j.in.n != 1 || j.out.h != 3 ||
      j.out.w != 3 || j.stride.h != j.stride.w || j.pad.h != j.pad.w || j.in.h != j.in.w)
    return 0;
  if (j.stride.h == 1 && j.pad.h == 1 && j.in.h == 3) return 1;
  if (j.stride.h == 2 && j.pad.h == 0 && j.in.h == 7) return 2;
  return 0;
}

// Whether the layer's values and its out's place allow the path (the geometry's kind k).
inline bool dw_small_ok(const DwJob& j, int32_t k) {
  if (j.amin != j.ooff || j.amax < j.ooff || j.ioff < -128 || j.ioff > 128 ||
      !cmsis::all_dyadic(j.mult, j.shift, j.in.c))
    return false;
  if (!bytes_overlap(j.x, j.in, j.y, j.out)) return true;
  const ptrdiff_t d = j.y - j.x;
  return d % j.in.c == 0 && (k == 1 || d <= 0);
}

// One output: requantized and stored at y, y += step.
template <class Isa>
inline void dw_small_store(int8_t*& y, int32_t step, int32_t v, const cmsis::DyadicRelu& r) {
  *y = static_cast<int8_t>(Isa::requant(v, r));
  y += step;
}

// Stride 1, padding 1: the nine inputs x (plus the input offset) and taps w of a channel in
// registers; each output sums the products inside the image and is stored at once (fewer sums
// live: GCC kept the nine in registers only by spilling the taps).
template <class Isa>
ETMCU_HOT_LOOPS void dw_small_s1(const DwJob& j) {
  const int32_t C = j.in.c, ioff = j.ioff;
  const int8_t* px = j.x;
  const int8_t* pw = j.w;
  const int32_t* bias = j.bias;
  int8_t* py = j.y;
  for (int32_t c = 0; c < C; ++c, ++px, ++pw, ++py) {
    const int8_t* p = px;
    const int8_t* q = pw;
    int32_t x[9], w[9];
    dw_small_load<Isa>(p, C, ioff, x);
    dw_small_load<Isa>(q, C, 0, w);
    const int32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6],
                  x7 = x[7], x8 = x[8];
    const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
                  w7 = w[7], w8 = w[8];
    const int32_t b = bias ? bias[c] : 0;
    const cmsis::DyadicRelu r = cmsis::dyadic_relu(j.mult[c], j.ooff, j.amax);
    int8_t* y = py;
    // output (oy, ox) takes input (oy + ky - 1, ox + kx - 1) with tap (ky, kx)
    int32_t o = Isa::mac(Isa::mac(Isa::mac(Isa::mac(b, x0, w4), x1, w5), x3, w7), x4, w8);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(b, x0, w3), x1, w4), x2, w5);
    o = Isa::mac(Isa::mac(Isa::mac(o, x3, w6), x4, w7), x5, w8);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(Isa::mac(b, x1, w3), x2, w4), x4, w6), x5, w7);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(b, x0, w1), x1, w2), x3, w4);
    o = Isa::mac(Isa::mac(Isa::mac(o, x4, w5), x6, w7), x7, w8);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(b, x0, w0), x1, w1), x2, w2);
    o = Isa::mac(Isa::mac(Isa::mac(o, x3, w3), x4, w4), x5, w5);
    o = Isa::mac(Isa::mac(Isa::mac(o, x6, w6), x7, w7), x8, w8);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(b, x1, w0), x2, w1), x4, w3);
    o = Isa::mac(Isa::mac(Isa::mac(o, x5, w4), x7, w6), x8, w7);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(Isa::mac(b, x3, w1), x4, w2), x6, w4), x7, w5);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(b, x3, w0), x4, w1), x5, w2);
    o = Isa::mac(Isa::mac(Isa::mac(o, x6, w3), x7, w4), x8, w5);
    dw_small_store<Isa>(y, C, o, r);
    o = Isa::mac(Isa::mac(Isa::mac(Isa::mac(b, x4, w0), x5, w1), x7, w3), x8, w4);
    dw_small_store<Isa>(y, C, o, r);
  }
}

// Stride 2 on 7 x 7 (no padding: every window is whole, so the input offset goes into the sum's
// start, bias + ioff * the taps' sum): an output row's three sums from its three window rows of
// seven inputs each.
template <class Isa>
ETMCU_HOT_LOOPS void dw_small_s2(const DwJob& j) {
  const int32_t C = j.in.c, row = 7 * C, ioff = j.ioff;
  const int8_t* px = j.x;
  const int8_t* pw = j.w;
  const int32_t* bias = j.bias;
  int8_t* py = j.y;
  for (int32_t c = 0; c < C; ++c, ++px, ++pw, ++py) {
    const int8_t* q = pw;
    int32_t w[9];
    dw_small_load<Isa>(q, C, 0, w);
    int32_t full = bias ? bias[c] : 0;
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) full = Isa::mac(full, ioff, w[t]);
    const cmsis::DyadicRelu r = cmsis::dyadic_relu(j.mult[c], j.ooff, j.amax);
    const int8_t* p = px;
    int8_t* y = py;
    for (int32_t oy = 0; oy < 3; ++oy) {
      int32_t a0 = full, a1 = full, a2 = full;
#pragma GCC unroll 3
      for (int32_t ky = 0; ky < 3; ++ky) {
        const int32_t t0 = w[3 * ky], t1 = w[3 * ky + 1], t2 = w[3 * ky + 2];
        int32_t i[7];
        dw_small_load<Isa>(p, C, 0, i);
        a0 = Isa::mac(Isa::mac(Isa::mac(a0, i[0], t0), i[1], t1), i[2], t2);
        a1 = Isa::mac(Isa::mac(Isa::mac(a1, i[2], t0), i[3], t1), i[4], t2);
        a2 = Isa::mac(Isa::mac(Isa::mac(a2, i[4], t0), i[5], t1), i[6], t2);
      }
      p -= row;  // the next output row's first window row is this one's last
      dw_small_store<Isa>(y, C, a0, r);
      dw_small_store<Isa>(y, C, a1, r);
      dw_small_store<Isa>(y, C, a2, r);
    }
  }
}

// The path: true when it ran the layer (its geometry, its values and the firmware's path bit
// `bit`, the one that names this path on the ISA: isa/<isa>/depthwise.h).
template <class Isa>
__attribute__((always_inline)) inline bool dw_small_path(const DwJob& j, uint32_t bit) {
  // (Both bits first, folded with the mask: no code in a program without the path. Not
  // kernel_path_or_fallback after the checks: DS-CNN's firmware would carry them, +480 B; a mask
  // recorded before this path runs these layers on the planes, the same bits.)
  if (!kernel_path_on(bit) || !kernel_path_on(kPathDyadic)) return false;
  const int32_t k = dw_small_kind(j);
  if (k == 0 || !dw_small_ok(j, k) || !kernel_path(bit)) return false;
  if (k == 1)
    dw_small_s1<Isa>(j);
  else
    dw_small_s2<Isa>(j);
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
