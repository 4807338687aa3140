// The depthwise plane path for windows up to four taps wide (3x3, KWS's 10x4 first layer, ...), on
// cores without vector lanes: per input channel, a plane of the rows a strip of output rows needs
// is gathered into the kernel's buffer (its planned scratch or temp), padded with the input's zero
// point (-input_offset, whose taps then add nothing: (zp + input_offset) * w = 0), so every window
// is inside the plane and needs no border case. A window row is then four bytes of the plane, and
// an output is v = full + sum over rows of dot4(plane word, weight word), full = bias +
// input_offset * sum(w), requantized in the 2v form (cmsis_math.h) by the ISA's row kernels (one
// output channel along an output row; four channels that share the plane when the channel
// multiplier is a multiple of 4). isa/xpulp has them in assembly (cv.sdotsp.b); the C forms here
// serve the others.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/paths.h"
#include "kernels/cortex_m/util/pointwise.h"  // negative_floor

namespace etmcu {
namespace kernels {
namespace int8 {

// The row kernels' argument block (isa/xpulp/depthwise_rows.S reads it at these offsets).
struct DwRowArgs {
  const int8_t* window;  // the first output's window in the plane
  int32_t line_stride;   // bytes between plane rows
  int32_t x_step;        // bytes between consecutive windows (the horizontal stride)
  int32_t outputs;       // >= 1
  int8_t* y;             // the first output
  int32_t y_step;        // bytes between consecutive outputs
  int32_t full, mult, offset_high, right, amin, amax;
  int32_t rows;       // window rows (kh), 1 .. kDwMaxRows
  int32_t out_rows;   // output rows, >= 1
  int32_t row_jump;   // bytes from the window after a row's last output to the next row's first
  uint32_t w[12];     // one weight word per window row (taps past kw zero)
  int32_t neg_floor;  // sums below this give amin unrequantized (util/pointwise.h negative_floor)
  // The requantization in the 4v form too (cmsis::Requant4v, the plain RISC-V kernels'): offset
  // * 2^(r+1) and r + 1.
  int32_t offset_high4, right4;
  // Bytes y moves after each output row's last output has advanced it (0: rows follow each
  // other; a transposed plane's rows are the layer's columns). Read by the row kernels of ISAs
  // with kTransposedK3 only.
  int32_t y_row_jump;
  // The ISA's subroutine for every row of the call, or null (plain RV32, with a fused ReLU:
  // etmcu_rv32_dw_quint5 for rows of five outputs at stride 1, etmcu_rv32_dw_pairs_s2 at stride
  // 2); set by rows1_geometry through Isa::set_row_subroutines, read by that ISA's row kernel
  // only.
  void (*rows_fn)();
  // 1: every channel of the layer is dyadic with a fused ReLU and the ISA's row kernel takes
  // them in that form (Isa::kDyadicRows: plain RV32, etmcu_rv32_dw_row_k3_dy); mult then holds
  // m = multiplier >> 11, offset_high offset * 2^21 + 3 * 2^19 and right the channel's clamp V
  // (cmsis::dyadic_relu_bound). Set by rows1_geometry, per channel by planes_rows1.
  int32_t dyadic;
};
constexpr int32_t kDwMaxRows = 12;

// The four-channel row kernel's argument block (a channel multiplier that is a multiple of 4).
struct DwRow4Args {
  const int8_t* window;
  int32_t line_stride, x_step, outputs;
  int8_t* y;  // the first output of the first of the four channels (the four are consecutive)
  int32_t y_step;
  int32_t full[4], mult[4], offset_high[4], right[4];
  int32_t amin, amax;
  int32_t rows, out_rows, row_jump;
  uint32_t w[4 * 12];                  // w[4 * r + k]: window row r of channel k
  int32_t neg_floor;                   // as DwRowArgs
  int32_t offset_high4[4], right4[4];  // as DwRowArgs
  // A block for the ISA's dyadic four-channel kernel (Isa::row4_dy, where Isa::kDyadicRow4:
  // four dyadic channels with a fused ReLU, every row five-window passes: x_step 2, outputs a
  // multiple of 5, the floor 0) holds in mult m = multiplier >> 11, in offset_high offset * 2^21 +
  // 2^19 (cmsis::dyadic_offset_high: the kernel's rounding adds the 2^20) and in right the
  // channel's clamp V (cmsis::dyadic_relu_bound); its 2v and 4v fields are unused.
};
// The largest plane buffer (the kernel's planned scratch or temp; kernels/api/kernel_scratch.h):
// strips of rows keep within it. Layers whose strip of one output row does not fit take
// depthwise_blocks.
constexpr int32_t kDwPlaneBytes = 720;

static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwRowArgs, rows) == 48 && offsetof(DwRowArgs, w) == 60 &&
                   offsetof(DwRowArgs, neg_floor) == 108 &&
                   offsetof(DwRowArgs, offset_high4) == 112 && offsetof(DwRowArgs, right4) == 116 &&
                   offsetof(DwRowArgs, y_row_jump) == 120 && offsetof(DwRowArgs, rows_fn) == 124),
              "DwRowArgs layout differs from the one depthwise_rows.S reads");

static_assert(sizeof(void*) != 4 ||
                  (offsetof(DwRow4Args, amin) == 88 && offsetof(DwRow4Args, rows) == 96 &&
                   offsetof(DwRow4Args, w) == 108 && offsetof(DwRow4Args, neg_floor) == 300 &&
                   offsetof(DwRow4Args, offset_high4) == 304 &&
                   offsetof(DwRow4Args, right4) == 320),
              "DwRow4Args layout differs from the one depthwise_rows.S reads");

// The row kernels in C: what the assembly ones compute (the host tests of the xpulp variant
// and the plain-RV32 variant run these). The taps of a window row are the bytes of its weight
// word; Dot4 is the ISA's four-byte dot product of a plane word and a weight word.
template <class Dot4>
void dw_row_c(const DwRowArgs& a, Dot4 dot4) {
  const cmsis::Requant4v q{a.mult, a.offset_high4, a.right4};
  const int8_t* window = a.window;
  int8_t* y = a.y;
  for (int32_t row = 0; row < a.out_rows; ++row, window += a.row_jump, y += a.y_row_jump) {
    for (int32_t o = 0; o < a.outputs; ++o, window += a.x_step, y += a.y_step) {
      int32_t v = a.full;
      for (int32_t r = 0; r < a.rows; ++r) v = dot4(v, window + r * a.line_stride, a.w[r]);
      *y = static_cast<int8_t>(
          v < a.neg_floor ? a.amin
                          : cmsis::clamp(cmsis::requantize_offset_4v(v, q), a.amin, a.amax));
    }
  }
}

// kDyadic: a dyadic block's (DwRow4Args): the sum clamped to [0, V], one product, as the
// dyadic kernel.
template <bool kDyadic = false, class Dot4>
void dw_row4_c(const DwRow4Args& a, Dot4 dot4) {
  const int8_t* window = a.window;
  int8_t* y = a.y;
  for (int32_t row = 0; row < a.out_rows; ++row, window += a.row_jump) {
    for (int32_t o = 0; o < a.outputs; ++o, window += a.x_step, y += a.y_step) {
      for (int k = 0; k < 4; ++k) {
        int32_t v = a.full[k];
        for (int32_t r = 0; r < a.rows; ++r)
          v = dot4(v, window + r * a.line_stride, a.w[4 * r + k]);
        if constexpr (kDyadic) {
          y[k] = static_cast<int8_t>(cmsis::dyadic_relu_requantize(v, a.mult[k], a.right[k],
                                                                   a.offset_high[k] + (1 << 20)));
          continue;
        }
        const cmsis::Requant4v q{a.mult[k], a.offset_high4[k], a.right4[k]};
        y[k] = static_cast<int8_t>(
            v < a.neg_floor ? a.amin
                            : cmsis::clamp(cmsis::requantize_offset_4v(v, q), a.amin, a.amax));
      }
    }
  }
}

// acc + the four products of the plane bytes x[0..3] and the bytes of the weight word w.
inline int32_t dot4_bytes(int32_t acc, const int8_t* x, uint32_t w) {
  return acc + x[0] * static_cast<int8_t>(w) + x[1] * static_cast<int8_t>(w >> 8) +
         x[2] * static_cast<int8_t>(w >> 16) + x[3] * static_cast<int8_t>(w >> 24);
}

// The plane's geometry for this layer, when the plane path can take it: windows up to four taps
// wide and up to kDwMaxRows tall, a zero point that fits int8, and a strip of at least one output
// row fitting kDwPlaneBytes. *line_stride and *strip_rows get the plane's geometry. O(1): the
// kernel's buffer declaration follows from it (dw_plane_bytes), asked at method load.
inline bool dw_plane_geometry(const DwJob& j, int32_t* line_stride, int32_t* strip_rows) {
  if (j.kw > 4 || j.kh > kDwMaxRows || j.ioff < -127 || j.ioff > 128) return false;
  const int32_t ls = ((j.out.w - 1) * j.stride.w + 4 + 3) / 4 * 4;
  // rows for R output rows: (R - 1) * stride + kh, plus one spare line (dw_row reads one row past
  // the window's last)
  const int32_t lines = kDwPlaneBytes / ls - j.kh - 1;
  if (lines < 0) return false;
  int32_t r = lines / j.stride.h + 1;
  if (r > j.out.h) r = j.out.h;
  *line_stride = ls;
  *strip_rows = r;
  return true;
}

// The plane geometry the op found for a layer (strip 0: this ISA's planes do not take it, by the
// geometry or by the layer's values, dw_plane_values_ok). A slab of the layer's rows
// (by_row_slabs) keeps it: the line stride is the same, its strips stop at its last row, and its
// values are the layer's.
struct DwPlanes {
  int32_t ls = 0, strip = 0;
};

// The bytes of the plane buffer for this geometry: one strip's lines and the spare line
// (at most kDwPlaneBytes).
inline uint32_t dw_plane_bytes(const DwJob& j, int32_t ls, int32_t strip) {
  return static_cast<uint32_t>(((strip - 1) * j.stride.h + j.kh + 1) * ls);
}

// The values' part of the plane path's condition: every channel's requantization in the 2v and
// 4v forms and its sums below 2^29. The op asks it once per call, before any slab.
inline bool dw_plane_values_ok(const DwJob& j) {
  // |full| <= |bias| + |ioff| * sum |w| <= |bias| + kh * kw * 2^14 (|ioff| <= 128 by the geometry):
  // a bias inside lim needs no sum (every layer of the zoo's; the sums cost upstream KWS with
  // Xpulp about 45,000 cycles)
  const int32_t lim = (int32_t(1) << 28) - j.kh * j.kw * (int32_t(1) << 14);
  // requant_2v_ok and the bias range as unsigned compares without branches; the sums only when a
  // bias is out of range (upstream KWS with Xpulp: the plane path's per-call checks 29 -> 19
  // cycles per channel)
  const int32_t n = j.out.c;
  const int32_t *m = j.mult, *sh = j.shift, *bias = j.bias;
  const uint32_t ulim = static_cast<uint32_t>(lim) - 1, span = 2 * static_cast<uint32_t>(lim) - 2;
  const int32_t zero = 0;
  const int32_t* b = bias ? bias : &zero;
  const int32_t b_step = bias ? 1 : 0;
  uint32_t bad = 0, far = 0;  // far: a bias outside (-lim, lim)
  int32_t c = 0;
  for (; c < n; ++c, b += b_step) {
    bad |= static_cast<uint32_t>(m[c] <= 0) |
           static_cast<uint32_t>(static_cast<uint32_t>(sh[c]) + 20 > 19u);
    far |= static_cast<uint32_t>(static_cast<uint32_t>(*b) + ulim > span);
  }
  if (bad != 0) return false;
  if (far == 0) return true;
  for (c = 0; c < n; ++c) {
    if (static_cast<uint32_t>(bias[c]) + ulim <= span) continue;
    int32_t sw = 0;
    for (int32_t t = 0; t < j.kh * j.kw; ++t) sw += j.w[static_cast<size_t>(t) * j.out.c + c];
    const int64_t full = static_cast<int64_t>(bias[c]) + int64_t(j.ioff) * sw;
    if (full <= -(int64_t(1) << 28) || full >= (int64_t(1) << 28)) return false;
  }
  return true;
}

// `taps` (<= 4) filter elements `step` bytes apart from p as one word (the first in its low byte,
// taps past the last zero); *sum += them. Windows 3 and 4 taps wide are written out: the loop cost
// upstream KWS's depthwise setup about 10 cycles per tap with Xpulp.
inline uint32_t pack_taps(const int8_t* p, int32_t step, int32_t taps, int32_t* sum) {
  if (taps == 3 || taps == 4) {
    const int8_t a = p[0], b = p[step], c = p[2 * step];
    const int8_t d = taps == 4 ? p[3 * step] : 0;
    *sum += a + b + c + d;
    return static_cast<uint32_t>(static_cast<uint8_t>(a)) |
           static_cast<uint32_t>(static_cast<uint8_t>(b)) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(c)) << 16 |
           static_cast<uint32_t>(static_cast<uint8_t>(d)) << 24;
  }
  uint32_t word = 0;
  for (int32_t t = 0; t < taps; ++t, p += step) {
    *sum += *p;
    word |= static_cast<uint32_t>(static_cast<uint8_t>(*p)) << (8 * t);
  }
  return word;
}

// The plane path (dw_plane_geometry and dw_plane_values_ok are true; j.buffer holds
// dw_plane_bytes). Isa provides gather_rows (a 2-D strided byte copy:
// dst[l * dst_row + i] = src[l * src_row + i * stride]), the row kernels row and row4, and kRow1 /
// kRow4: which of the two its layers can reach (the ISA's dw_takes_planes decides which layers
// take the planes; a form no layer reaches is not compiled).
// The fields DwRowArgs and DwRow4Args share: the plane, its geometry, the outputs' stride and
// range.
template <class Args>
void set_plane_geometry(const DwJob& j, const int8_t* plane, int32_t ls, int32_t n_out, Args* a) {
  a->window = plane;
  a->line_stride = ls;
  a->x_step = j.stride.w;
  a->outputs = j.out.w;
  a->y_step = j.out.c;
  a->amin = j.amin;
  a->amax = j.amax;
  a->neg_floor = negative_floor(j.amin, j.ooff);
  a->rows = j.kh;
  a->out_rows = n_out;
  a->row_jump = j.stride.h * ls - j.out.w * j.stride.w;
}

// A 3x3 layer whose output rows are shorter than its columns (KWS: 25 x 5) runs faster from the
// transposed plane (a line per input column): each row kernel call then takes the long side, so
// the pairs of neighbouring outputs outnumber the odd last output and the per-row work. Taken
// only when the layer is one strip (the channels then go in the same order, so an out over its
// input sees the same writes) and the transposed plane fits the buffer declared for the upright
// one; *ls_t gets its line stride.
inline bool dw_transposed_fits(const DwJob& j, int32_t ls, int32_t strip, int32_t* ls_t) {
  if (j.kh != 3 || j.kw != 3 || j.cm % 4 == 0 || j.out.w >= j.out.h || strip < j.out.h)
    return false;
  const int32_t lt = ((j.out.h - 1) * j.stride.h + 4 + 3) / 4 * 4;
  const int32_t lines = (j.out.w - 1) * j.stride.w + j.kw + 1;  // and the spare line
  if (static_cast<uint32_t>(lines * lt) > dw_plane_bytes(j, ls, strip)) return false;
  *ls_t = lt;
  return true;
}

// Window row r's weight words of the four output channels oc .. oc + 3 into w[4 * r + k] (channel
// k's taps, tap 0 in the low byte, taps past kw zero) and the four channels' tap sums into sums
// (which the tap-word path below leaves zero when the input offset is 0: full needs none). The
// filter is channels last, so in a window four taps wide (KWS's and DS-CNN's 10x4 first layers)
// tap t of a row is one word for the four channels when the words are aligned (out.c and the
// block's first channel multiples of 4, the weights aligned): per row four word loads and a 4x4
// byte transpose, the sums from the words in 16-bit lanes (each byte + 128, so the lanes add
// unsigned). Otherwise pack_taps byte by byte: about 35 cycles per channel and row on the
// CV32E40P; DS-CNN's first layer, its blocks set up again for each slab of rows, spent 155,000 of
// its cycles with Xpulp packing so.
template <bool kSums>
inline void pack_rows4_words(const int8_t* row, int32_t step, int32_t kh, uint32_t* w,
                             int32_t* sums) {
  const uint32_t m = 0x00FF00FFu, flip = 0x80808080u;
  uint32_t even = 0, odd = 0;  // channels 0 and 2, 1 and 3: at most 48 taps of 255 a lane
  for (int32_t r = 0; r < kh; ++r, row += 4 * step, w += 4) {
    uint32_t t0, t1, t2, t3;
    memcpy(&t0, __builtin_assume_aligned(row, 4), 4);
    memcpy(&t1, __builtin_assume_aligned(row + step, 4), 4);
    memcpy(&t2, __builtin_assume_aligned(row + 2 * step, 4), 4);
    memcpy(&t3, __builtin_assume_aligned(row + 3 * step, 4), 4);
    if constexpr (kSums) {  // (a word pair at a time: few values live at once, for Thumb)
      const uint32_t u0 = t0 ^ flip, u1 = t1 ^ flip;
      even += (u0 & m) + (u1 & m);
      odd += ((u0 >> 8) & m) + ((u1 >> 8) & m);
      const uint32_t u2 = t2 ^ flip, u3 = t3 ^ flip;
      even += (u2 & m) + (u3 & m);
      odd += ((u2 >> 8) & m) + ((u3 >> 8) & m);
    }
    // taps 0 and 1, 2 and 3 interleaved by channel pairs, then the pairs' halves joined: channels
    // 0 and 2, then 1 and 3
    const uint32_t t01e = (t0 & m) | ((t1 & m) << 8);  // channel 0: t0 t1, channel 2: t0 t1
    const uint32_t t23e = (t2 & m) | ((t3 & m) << 8);
    w[0] = (t01e & 0xFFFFu) | (t23e << 16);
    w[2] = (t01e >> 16) | (t23e & 0xFFFF0000u);
    const uint32_t t01o = ((t0 >> 8) & m) | (t1 & ~m);  // channels 1 and 3
    const uint32_t t23o = ((t2 >> 8) & m) | (t3 & ~m);
    w[1] = (t01o & 0xFFFFu) | (t23o << 16);
    w[3] = (t01o >> 16) | (t23o & 0xFFFF0000u);
  }
  const int32_t lift = kSums ? 128 * 4 * kh : 0;
  sums[0] = static_cast<int32_t>(even & 0xFFFFu) - lift;
  sums[1] = static_cast<int32_t>(odd & 0xFFFFu) - lift;
  sums[2] = static_cast<int32_t>(even >> 16) - lift;
  sums[3] = static_cast<int32_t>(odd >> 16) - lift;
}
inline void pack_rows4(const DwJob& j, int32_t oc, uint32_t* w, int32_t* sums) {
  const int8_t* row = j.w + oc;
  const int32_t step = j.out.c;  // bytes from one tap to the next
  if (j.kw != 4 || ((reinterpret_cast<uintptr_t>(row) | static_cast<uint32_t>(step)) & 3u) != 0) {
    for (int k = 0; k < 4; ++k) {
      sums[k] = 0;
      const int8_t* p = row + k;
      for (int32_t r = 0; r < j.kh; ++r, p += j.kw * step)
        w[4 * r + k] = pack_taps(p, step, j.kw, &sums[k]);
    }
  } else if (j.ioff != 0) {  // (the loop without the sums: GCC computed them ahead of the test)
    pack_rows4_words<true>(row, step, j.kh, w, sums);
  } else {
    pack_rows4_words<false>(row, step, j.kh, w, sums);
  }
}

// The output channels of input channel ci over one strip of output rows, from the gathered plane:
// four per call of Isa::row4 when the channel multiplier is a multiple of 4, else one per call of
// Isa::row. (Each in a function of its own, so that only one argument block is on the stack
// beside the plane.) kDyadic: a layer rows4_dyadic takes, its blocks in the dyadic form for
// Isa::row4_dy. (Two instances, not one function with a flag: the dyadic set-up inside the frexp
// blocks' loop moved GCC's register choices for their weight packing, 9 instructions more a
// window row on upstream KWS with Xpulp.)
template <class Isa, bool kDyadic = false>
ETMCU_HOT_ALIGN __attribute__((noinline)) void planes_rows4(const DwJob& j, const int8_t* plane,
                                                            int32_t ls, int32_t ci, int32_t oy0,
                                                            int32_t n_out) {
  DwRow4Args b;
  set_plane_geometry(j, plane, ls, n_out, &b);
  for (int32_t m = 0; m < j.cm; m += 4) {
    const int32_t oc = ci * j.cm + m;
    int32_t sums[4];
    pack_rows4(j, oc, b.w, sums);  // filter element (r, t) at (r * kw + t) * out.c
    for (int k = 0; k < 4; ++k) {
      b.full[k] = cmsis::wrap_add(j.bias ? j.bias[oc + k] : 0, cmsis::wrap_mul(j.ioff, sums[k]));
      if constexpr (kDyadic) {
        const cmsis::DyadicRelu q = cmsis::dyadic_relu(j.mult[oc + k], j.ooff, j.amax);
        b.mult[k] = q.m;
        b.offset_high[k] = cmsis::dyadic_offset_high(j.ooff);
        b.right[k] = q.v_max;
      } else {
        const cmsis::Requant2v q = cmsis::requant_2v(j.mult[oc + k], j.shift[oc + k], j.ooff);
        b.mult[k] = q.multiplier;
        b.offset_high[k] = q.offset_high;
        b.right[k] = q.right;
        const cmsis::Requant4v q4 = cmsis::requant_4v(j.mult[oc + k], j.shift[oc + k], j.ooff);
        b.offset_high4[k] = q4.offset_high;
        b.right4[k] = q4.right;
      }
    }
    b.y = j.y + (static_cast<size_t>(oy0) * j.out.w) * j.out.c + oc;
    if constexpr (kDyadic)
      Isa::row4_dy(b);
    else
      Isa::row4(b);
  }
}

// Whether the ISA's dyadic four-channel kernel (Isa::row4_dy) takes this layer's rows: a
// multiplier of 4, every channel dyadic with a fused ReLU (amin the offset, the floor 0; amax >=
// amin, as dyadic_relu_bound needs) and every row five-window passes (stride 2 along the rows,
// outputs a multiple of 5). Once per layer. Behind kPathDwLanesMult4 (the four-channel kernels)
// and kPathDyadic, so a program links it only with such layers; the ISA's row4 keeps its frexp
// kernel for the programs that have that form.
template <class Isa>
bool rows4_dyadic(const DwJob& j) {
  if constexpr (Isa::kDyadicRow4)
    return kernel_path_on(kPathDyadic) && kernel_path_on(kPathDwLanesMult4) && j.cm % 4 == 0 &&
           j.amin == j.ooff && j.stride.w == 2 && j.out.w % 5 == 0 &&
           cmsis::all_dyadic(j.mult, j.shift, j.out.c) && kernel_path(kPathDyadic) &&
           kernel_path(kPathDwLanesMult4);
  (void)j;
  return false;
}

// The fields of a row kernel's arguments that every channel of a strip shares (set once per strip:
// per channel they cost upstream KWS with Xpulp about 6,300 cycles).
template <class Isa>
void rows1_geometry(const DwJob& j, const int8_t* plane, int32_t ls, int32_t n_out, bool columns,
                    DwRowArgs* a) {
  set_plane_geometry(j, plane, ls, n_out, a);
  a->y_row_jump = 0;
  if (Isa::kTransposedK3 && columns) {
    a->x_step = j.stride.h;
    a->outputs = j.out.h;
    a->y_step = j.out.w * j.out.c;
    a->rows = j.kw;
    a->out_rows = j.out.w;
    a->row_jump = j.stride.w * ls - j.out.h * j.stride.h;
    a->y_row_jump = j.out.c - j.out.h * j.out.w * j.out.c;
  }
  a->rows_fn = nullptr;
  a->dyadic = 0;
  if constexpr (Isa::kDyadicRows) a->dyadic = Isa::dyadic_rows(j);
  if constexpr (Isa::kRowSubroutines) Isa::set_row_subroutines(a);
}

// Input channel ci's output channels from its plane: a holds rows1_geometry's fields.
template <class Isa>
ETMCU_HOT_ALIGN __attribute__((noinline)) void planes_rows1(const DwJob& j, DwRowArgs& a,
                                                            int32_t ci, int32_t oy0, bool columns) {
  // window row r's taps t: filter element (r, t) upright; (t, r) from a transposed plane, whose
  // rows are the layer's columns (dw_transposed_fits: one strip)
  const bool transposed = Isa::kTransposedK3 && columns;
  const int32_t word_step = transposed ? 1 : j.kw, tap_step = transposed ? j.kw : 1;
  const int32_t taps = transposed ? j.kh : j.kw;
  for (int32_t m = 0; m < j.cm; ++m) {
    const int32_t oc = ci * j.cm + m;
    int32_t sw = 0;
    const int8_t* row = j.w + oc;
    for (int32_t r = 0; r < a.rows; ++r, row += word_step * j.out.c)
      a.w[r] = pack_taps(row, tap_step * j.out.c, taps, &sw);
    a.full = cmsis::wrap_add(j.bias ? j.bias[oc] : 0, cmsis::wrap_mul(j.ioff, sw));
    a.y = j.y + (static_cast<size_t>(oy0) * j.out.w) * j.out.c + oc;
    if constexpr (Isa::kDyadicRows) {
      if (kernel_path_on(kPathDyadic) && a.dyadic) {  // (the 2v and 4v forms unused: V instead)
        const cmsis::DyadicRelu q = cmsis::dyadic_relu(j.mult[oc], j.ooff, j.amax);
        a.mult = q.m;
        a.offset_high = q.offset_high;
        a.right = q.v_max;
        Isa::row(a);
        continue;
      }
    }
    const cmsis::Requant2v q = cmsis::requant_2v(j.mult[oc], j.shift[oc], j.ooff);
    a.mult = q.multiplier;
    a.offset_high = q.offset_high;
    a.right = q.right;
    const cmsis::Requant4v q4 = cmsis::requant_4v(j.mult[oc], j.shift[oc], j.ooff);
    a.offset_high4 = q4.offset_high;
    a.right4 = q4.right;
    Isa::row(a);
  }
}

// One strip's plane gather for input channel 0 (channel ci: src + ci): lines lines of n bytes,
// dst[l * dst_row + i] = src[l * src_row + i * stride] (nothing when lines or n < 1).
struct DwGather {
  int8_t* dst;
  const int8_t* src;
  int32_t dst_row, src_row, stride, n, lines;
};

// columns: the transposed planes of dw_transposed_fits (ls its line stride; one strip): line l is
// input column l - pad.w, its byte i input row i - pad.h.
template <class Isa>
ETMCU_HOT_LOOPS __attribute__((noinline)) void depthwise_planes(const DwJob& j, int32_t ls,
                                                                int32_t strip, bool columns) {
  int8_t* const plane = j.buffer;  // 4-byte aligned (kernel_scratch.h)
  const int8_t zp = static_cast<int8_t>(-j.ioff);
  const int32_t cin = j.in.c, sy = j.stride.h;
  const int32_t cols = (j.out.w - 1) * j.stride.w + j.kw;       // plane columns a window can touch
  [[maybe_unused]] const bool rows4_dy = rows4_dyadic<Isa>(j);  // (false on most ISAs)
  for (int32_t oy0 = 0; oy0 < j.out.h; oy0 += strip) {
    const int32_t n_out = j.out.h - oy0 < strip ? j.out.h - oy0 : strip;
    const int32_t n_lines = (n_out - 1) * sy + j.kh;
    const int32_t iy_first = oy0 * sy - j.pad.h;
    const int32_t ix_first = -j.pad.w;
    // the plane's lines (dst_row apart) and bytes per line from the input: first and past the
    // last of each, the input's step along a line and from one line to the next
    int32_t l0, l1, b0, b1, along, across;
    const int8_t* src;
    const bool transposed = Isa::kTransposedK3 && columns;
    if (transposed) {
      l0 = -ix_first;
      l1 = j.in.w - ix_first < cols ? j.in.w - ix_first : cols;
      b0 = -iy_first;
      b1 = j.in.h - iy_first < n_lines ? j.in.h - iy_first : n_lines;
      along = j.in.w * cin;
      across = cin;
      memset(plane, zp, static_cast<size_t>(cols + 1) * ls);
    } else {
      l0 = iy_first < 0 ? -iy_first : 0;  // the input rows the strip's lines cover
      l1 = j.in.h - iy_first < n_lines ? j.in.h - iy_first : n_lines;
      b0 = ix_first < 0 ? -ix_first : 0;  // columns -pad.w .. + cols
      b1 = j.in.w - ix_first < cols ? j.in.w - ix_first : cols;
      along = cin;
      across = j.in.w * cin;
      // The zero point outside the input (and in the spare line and the word tail): the same
      // bytes for every channel, which each gather below leaves alone.
      memset(plane, zp, static_cast<size_t>(n_lines + 1) * ls);
    }
    src = j.x + (static_cast<size_t>(iy_first + (transposed ? b0 : l0)) * j.in.w +
                 (ix_first + (transposed ? l0 : b0))) *
                    cin;
    // Four output channels a row-kernel call when the multiplier is a multiple of 4; an ISA that
    // also has the one-channel kernel keeps the four-channel one behind kPathDwLanesMult4, so a
    // program without such layers links neither it nor its set-up (and one whose firmware left it
    // out runs them a channel at a time: the same bits); the dyadic one behind that bit and
    // kPathDyadic (rows4_dy)
    [[maybe_unused]] bool rows4 = false;
    if constexpr (Isa::kRow4)
      rows4 = rows4_dy ||
              (j.cm % 4 == 0 && (!Isa::kRow1 || kernel_path_or_fallback(kPathDwLanesMult4)));
    [[maybe_unused]] DwRowArgs a1;
    if constexpr (Isa::kRow1) {
      if (!rows4) rows1_geometry<Isa>(j, plane, ls, n_out, columns, &a1);
    }
    if constexpr (Isa::kChannelLoop) {
      // an ISA's own loop over the strip's channels (gather, weights and rows), when it takes
      // the layer
      const DwGather g{
          plane + static_cast<size_t>(l0) * ls + b0, src, ls, across, along, b1 - b0, l1 - l0};
      if (j.cm == 1 && Isa::channel_loop(j, a1, g, oy0, columns)) continue;
    }
    for (int32_t ci = 0; ci < cin; ++ci) {
      if (l1 > l0 && b1 > b0)
        Isa::gather_rows(plane + static_cast<size_t>(l0) * ls + b0, ls, src + ci, across, along,
                         b1 - b0, l1 - l0);
      if constexpr (Isa::kRow1 && Isa::kRow4) {
        if constexpr (Isa::kDyadicRow4) {
          if (rows4_dy) {  // (rows4 too)
            planes_rows4<Isa, true>(j, plane, ls, ci, oy0, n_out);
            continue;
          }
        }
        if (rows4)
          planes_rows4<Isa>(j, plane, ls, ci, oy0, n_out);
        else
          planes_rows1<Isa>(j, a1, ci, oy0, columns);
      } else if constexpr (Isa::kRow4) {  // (dw_takes_planes: multipliers of 4 only)
        planes_rows4<Isa>(j, plane, ls, ci, oy0, n_out);
      } else {  // (dw_takes_planes: multiplier 1 only)
        planes_rows1<Isa>(j, a1, ci, oy0, columns);
      }
    }
  }
}

// Whether the plane path runs this layer (planes: the op's dw_takes_planes) in one strip with
// channel multiplier 1: each channel's whole input is then gathered before any of its outputs is
// written, channel after channel. An out over the input at a distance that is a multiple of the
// channel count puts every output byte on an input byte of its own channel, which the path has
// gathered already, so such a plan needs no slabs of rows, whatever the distance and its sign.
// (DS-CNN's last two depthwise layers, their outs 5 rows after their inputs: in slabs 0.31
// MAC/cycle with Xpulp, 0.5 in one call.) Exactly the conditions under which depthwise_planes_path
// takes the layer, so the op may rely on it.
inline bool dw_planes_own_channels(const DwJob& j, const DwPlanes& planes) {
  if (planes.strip < j.out.h || j.cm != 1 || j.in.c != j.out.c || j.in.c < 1) return false;
  const ptrdiff_t d = j.y - j.x;
  return d % j.in.c == 0 && kernel_path_on(kPathDwPlanes);
}

// The plane path of an ISA's depthwise_fast: runs the layer when the op found that this ISA's
// planes take it (planes.strip > 0: dw_takes_planes and dw_plane_values_ok) and the build keeps
// the path; false otherwise (the ISA's next path).
// (Always inlined: it replaced the same three lines in each ISA's depthwise_fast, and without the
// attribute upstream KWS with Xpulp measured 136 B and 4,300 cycles more.)
template <class Isa>
__attribute__((always_inline)) inline bool depthwise_planes_path(const DwJob& j,
                                                                 const DwPlanes& planes) {
  if (planes.strip <= 0 || !kernel_path(kPathDwPlanes)) return false;
  int32_t lt;
  if (Isa::kTransposedK3 && dw_transposed_fits(j, planes.ls, planes.strip, &lt))
    depthwise_planes<Isa>(j, lt, j.out.h, true);
  else
    depthwise_planes<Isa>(j, planes.ls, planes.strip, false);
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
