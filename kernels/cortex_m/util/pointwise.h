// The pointwise micro-kernel's contract (isa/<isa>/pointwise.h implements pointwise_4ch): one
// block of four output channels over a run of pixels whose receptive field is inside the input
// (1x1 convolutions, and the interior pixels of kh x kw ones: kh runs of kw * C contiguous bytes),
// dot products and requantization together. The layout is fixed: the
// Xpulp assembly (isa/xpulp/pointwise_4ch.S) and isa/rv32/pointwise_4ch.S read it at
// these offsets.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct PointwiseBlock {
  const int8_t* x;     // the first pixel's receptive field (4-byte aligned but for byte runs)
  int32_t x_step;      // bytes from one pixel's row to the next (a multiple of 4, as x)
  int32_t pixels;      // >= 1
  int32_t words;       // run length / 4 (>= 1; set_run sets it and run_bytes)
  const int8_t* w;     // the block's first channel's weights (aligned, as x); the next w_stride on
  int8_t* y;           // output of the first pixel, first channel of the block
  int32_t y_step;      // bytes from one pixel's outputs to the next
  int32_t amin, amax;  // activation range
  int32_t full[4];     // bias + input_offset * sum(w) per channel, |full| < 2^28
  int32_t mult[4];     // cmsis::Requant2v per channel (requant_4v_ok)
  int32_t offset_high[4];
  int32_t right[4];
  int32_t round_high[4];  // offset_high + 2^(right - 1) (kernels without cv.addRNr)
  int32_t rows;      // kernel rows: a pixel's receptive field is `rows` runs of 4 * words bytes
  int32_t row_skip;  // bytes from the end of one run to the start of the next, in the input
  int32_t w_stride;  // bytes from one channel's weights to the next (rows * 4 * words)
  // Sums below this give amin without their requantization (negative_floor): 0 when amin is the
  // output offset (a fused ReLU, or upstream's KWS ranges), else INT32_MIN (never).
  int32_t neg_floor;
  // Bytes the weight rows skip after each kernel row (0: the filter's rows back to back). With
  // it a border pixel's window is its taps inside the input (ISAs whose kernel reads it:
  // kPointwiseWeightSkip; the others are only given 0).
  int32_t w_row_skip;
  // The same requantization in the 4v form (cmsis::Requant4v, the RISC-V kernels'): offset *
  // 2^(r+1), that plus 2^r (kernels without cv.addRNr), and r + 1.
  int32_t offset_high4[4];
  int32_t round_high4[4];
  int32_t right4[4];
  // Blocks of four channels one after another over the same pixels (pointwise_groups): their
  // count, and per channel from the block's first on its folded bias (as `full`), multiplier and
  // shift (requant_4v_ok), with the output offset; each block's weights w_stride * 4 bytes and its
  // outputs 4 bytes after the last's. 0: one block, its parameters above (pointwise_4ch).
  int32_t groups = 0;
  union {
    const int32_t* group_full;
    // With groups == 0 and rows > 1 (only the convolution's interior path gives a block kernel
    // rows, one block at a time) the ISA's subroutine for pixels over several kernel rows
    // (Xpulp's etmcu_xpulp_pointwise_rows, isa/xpulp/pointwise_rows.S: four pixels; plain RV32's
    // etmcu_rv32_pointwise_runs9: a pass's rows of 9 bytes), or null: the kernel's three-pixel
    // loop. Only those two kernels read it, there; set_rows_kernel sets it, so only programs with
    // such layers link the subroutine. (In the place of group_full, which such a
    // block does not use: the block keeps its size, and the other ISAs' code its layout.)
    void (*rows_fn)();
  };
  union {
    const int32_t* group_mult;
    // With groups == 0 and dyadic kDyadicRelu or kDyadicClamp: the ISA's subroutine for that
    // form (plain RV32's etmcu_rv32_requant3_relu_dy, _clamp_dy, called from its kernel's pass;
    // set_dyadic_block sets it, so only programs with such blocks link it). In the place of
    // group_mult, which such a block does not use.
    void (*requant_fn)();
  };
  const int32_t* group_shift;
  int32_t group_offset;
  // A run's length in bytes: 4 * words, or any length >= 1 where the ISA's kernel loads bytes
  // (kPointwiseByteRuns: rows of a 3-channel layer's window, 9 bytes, without widening).
  int32_t run_bytes;
  // 1: the four channels are dyadic (cmsis::requant_dyadic_ok) and the ISA has a dyadic kernel
  // (kPointwiseDyadic: Xpulp), whose parameters set_requant put in the 2v fields those ISAs do
  // not read: round_high = m, offset_high = offset * 2^21 + 2^19, right = the sums' bound. The
  // 4v fields stay set: a build without the dyadic kernel takes the frexp one.
  // kDyadicRelu (2), kDyadicClamp (3): the same four channels with a fused ReLU, or any other
  // activation, in the forms set_dyadic_block gives (plain RV32): round_high = m, offset_high =
  // offset * 2^21 + 3 * 2^19, right = V, the sums' upper clamp (cmsis::dyadic_relu_bound), and
  // for kDyadicClamp round_high4 = Vlo, the lower one; neg_floor 1, or the lowest Vlo.
  int32_t dyadic = 0;
};
static_assert(
    sizeof(void*) != 4 ||
        (offsetof(PointwiseBlock, full) == 36 && offsetof(PointwiseBlock, mult) == 52 &&
         offsetof(PointwiseBlock, offset_high) == 68 && offsetof(PointwiseBlock, right) == 84 &&
         offsetof(PointwiseBlock, round_high) == 100 && offsetof(PointwiseBlock, rows) == 116 &&
         offsetof(PointwiseBlock, w_stride) == 124 && offsetof(PointwiseBlock, neg_floor) == 128 &&
         offsetof(PointwiseBlock, w_row_skip) == 132 &&
         offsetof(PointwiseBlock, offset_high4) == 136 &&
         offsetof(PointwiseBlock, round_high4) == 152 && offsetof(PointwiseBlock, right4) == 168 &&
         offsetof(PointwiseBlock, groups) == 184 && offsetof(PointwiseBlock, group_full) == 188 &&
         offsetof(PointwiseBlock, group_mult) == 192 &&
         offsetof(PointwiseBlock, group_shift) == 196 &&
         offsetof(PointwiseBlock, group_offset) == 200 &&
         offsetof(PointwiseBlock, run_bytes) == 204 && offsetof(PointwiseBlock, dyadic) == 208 &&
         offsetof(PointwiseBlock, rows_fn) == 188),
    "PointwiseBlock layout differs from the one pointwise_4ch.S reads");

// A run of `bytes` bytes (whole words unless the ISA's kernel takes byte runs).
inline void set_run(PointwiseBlock& b, int32_t bytes) {
  b.words = bytes / 4;
  b.run_bytes = bytes;
}

// A block's pixels over several output rows (the ISA's pointwise_4ch_rows): out_rows rows of
// `pixels` pixels each, row r's first receptive field x + r * x_row_jump and its outputs y + r *
// y_row_jump. Outside the block, which keeps its layout and size: only the ISAs whose kernel loops
// over rows (kPointwiseRowLoop) take it, with a block of groups 0, and may leave the block's x and
// y at the last row's (the Xpulp kernel moves them). The layout is fixed: the RISC-V kernels
// (isa/rv32/pointwise_4ch.S, isa/xpulp/pointwise_4ch.S) read it and count the rows they have done
// in `done` (a new struct for each call: the plain kernel's frame has no word left for the count,
// and the one-row calls pay nothing for it).
struct PointwiseRows {
  int32_t out_rows;  // >= 1
  int32_t x_row_jump, y_row_jump;
  int32_t done = 0;
};
static_assert(offsetof(PointwiseRows, x_row_jump) == 4 &&
                  offsetof(PointwiseRows, y_row_jump) == 8 && offsetof(PointwiseRows, done) == 12,
              "PointwiseRows layout differs from the one pointwise_4ch.S reads");

// What pointwise_4ch_rows computes: `one` (the ISA's pointwise_4ch) row after row.
template <class One>
void pointwise_rows_c(const PointwiseBlock& b, const PointwiseRows& r, One one) {
  PointwiseBlock row = b;
  for (int32_t k = 0; k < r.out_rows; ++k, row.x += r.x_row_jump, row.y += r.y_row_jump) one(row);
}

constexpr int32_t kDyadicRelu = 2;  // PointwiseBlock::dyadic
constexpr int32_t kDyadicClamp = 3;

// `lines` runs of n bytes, src_row apart, to dst_row apart: the portable copy behind each ISA's
// copy_lines (isa/<isa>/pointwise.h), which conv's im2col_runs gathers columns with.
inline void copy_lines_c(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                         int32_t n, int32_t lines) {
  for (int32_t l = 0; l < lines; ++l, dst += dst_row, src += src_row)
    for (int32_t i = 0; i < n; ++i) dst[i] = src[i];
}

// The sums stay below 2^29 (the 4v requantization's bound) when |full| < 2^28 and the filter is
// shorter than 2^14 bytes (|sum(x * w)| <= 2^14 per byte).
constexpr int32_t kPointwiseMaxRow = 1 << 14;
constexpr int32_t kPointwiseMaxFull = 1 << 28;

// Channel k's requantization (requant_4v_ok(mult, shift), offset in [-255, 255]): the 4v form, and
// the 2v one where the ISA's kernels read it (kPointwiseRequant2v in isa/<isa>/pointwise.h; the
// RISC-V ones read only the 4v form, and a block is set up again for every strip of an out over
// its input: MobileNetV1's 5,888 channel setups with Xpulp).
// With kDy (the ISA's kPointwiseDyadic) also the dyadic form's, and b.dyadic from channels 0..k.
template <bool k2v, bool kDy = false>
inline void set_requant(PointwiseBlock& b, int k, int32_t mult, int32_t shift, int32_t offset) {
  b.mult[k] = mult;
  if constexpr (kDy) {
    static_assert(!k2v, "the dyadic parameters take the 2v fields");
    // (a build without the dyadic kernel, kPathDyadic, compiles none of this)
    const bool dy = kernel_path_on(kPathDyadic) && cmsis::requant_dyadic_ok(mult, shift) &&
                    offset >= -128 && offset <= 127;
    if (dy) {
      const cmsis::RequantDyadic q = cmsis::requant_dyadic(mult, offset);
      b.round_high[k] = q.m;
      b.offset_high[k] = q.offset_high;
      b.right[k] = q.bound;
    }
    b.dyadic = (k == 0 || b.dyadic != 0) && dy ? 1 : 0;
  }
  if constexpr (k2v) {
    const cmsis::Requant2v q = cmsis::requant_2v(mult, shift, offset);
    b.offset_high[k] = q.offset_high;
    b.right[k] = q.right;
    b.round_high[k] = q.offset_high + (int32_t(1) << (q.right - 1));
  }
  const cmsis::Requant4v q4 = cmsis::requant_4v(mult, shift, offset);
  b.offset_high4[k] = q4.offset_high;
  b.round_high4[k] = q4.offset_high + (int32_t(1) << (q4.right - 1));
  b.right4[k] = q4.right;
}

// b.groups blocks one after another through `one` (a kernel for one block whose parameters are
// in b): each block's parameters set from the arrays, then its weights and outputs moved on. The
// ISAs whose kernel loops over the blocks itself (kPointwiseGroups) take the same fields.
template <bool k2v, bool kDy, class One>
void pointwise_groups_c(PointwiseBlock& b, One one) {
  const int32_t groups = b.groups;
  const int32_t dyadic = b.dyadic;  // the caller's choice of form for every block (kDy)
  b.groups = 0;
  for (int32_t g = 0; g < groups; ++g) {
    for (int k = 0; k < 4; ++k) {
      b.full[k] = b.group_full[4 * g + k];
      set_requant<k2v, kDy>(b, k, b.group_mult[4 * g + k], b.group_shift[4 * g + k],
                            b.group_offset);
    }
    if constexpr (kDy) b.dyadic = dyadic;
    one(static_cast<const PointwiseBlock&>(b));
    b.w += static_cast<ptrdiff_t>(4) * b.w_stride;
    b.y += 4;
  }
}

// pointwise_groups_c for blocks in set_dyadic_block's ReLU form (kDyadicRelu, Forms::relu: plain
// RV32) whose sums' clamps V the caller computed once for the call, bound[4g + k] for block g's
// channel k (cmsis::dyadic_relu_bound of group_mult's m): a block is then set up without a
// division (a 1x1 layer over its own input sets its blocks up again every strip). The caller
// checked what set_dyadic_block checks (dyadic channels, the fused ReLU's floor 0, the ranges).
template <class Forms, class One>
void pointwise_groups_relu_dy_c(PointwiseBlock& b, const int32_t* bound, One one) {
  const int32_t groups = b.groups;
  const int32_t* const mult = b.group_mult;  // (requant_fn shares its place)
  b.groups = 0;
  b.dyadic = kDyadicRelu;
  b.requant_fn = Forms::relu;
  b.neg_floor = 1;  // (names the form to the kernel; a sum of 0 gives amin too)
  const int32_t koff = cmsis::dyadic_relu_offset_high(b.group_offset);
  for (int k = 0; k < 4; ++k) b.offset_high[k] = koff;
  for (int32_t g = 0; g < groups; ++g) {
    for (int k = 0; k < 4; ++k) {
      b.full[k] = b.group_full[4 * g + k];
      b.round_high[k] = mult[4 * g + k] >> 11;
      b.right[k] = bound[4 * g + k];
    }
    one(static_cast<const PointwiseBlock&>(b));
    b.w += static_cast<ptrdiff_t>(4) * b.w_stride;
    b.y += 4;
  }
  b.group_mult = mult;
}

// Whether the dyadic kernel clamps this activation: a fused ReLU (the floor 0: its own forms), or
// the whole int8 range (the four-pixel path's requantization clamps with one cv.clip to
// [-128, 127], not cv.max and cv.min: 7 instructions an output). Other ranges, which no exporter
// of ours emits without a ReLU, take the frexp form (the same results).
inline bool dyadic_clamp_ok(int32_t amin, int32_t amax, int32_t neg_floor) {
  return neg_floor == 0 || (amin == -128 && amax == 127);
}

// Whether block b's requantization form has its kernel in this build (after set_requant of its
// four channels): with kDy (Xpulp) the dyadic kernel for a block of four dyadic channels
// (kPathDyadic), else the frexp one (kPathFrexp); b.dyadic then names the one to run. The ISAs
// with one form: always.
template <bool kDy>
inline bool pointwise_form_ok(PointwiseBlock& b) {
  if constexpr (!kDy) {
    return true;
  } else {
    if (b.dyadic != 0 && dyadic_clamp_ok(b.amin, b.amax, b.neg_floor) &&
        kernel_path_or_fallback(kPathDyadic))
      return true;
    b.dyadic = 0;
    return kernel_path_or_fallback(kPathFrexp);
  }
}

// A negative sum requantizes to at most the output offset (the multiplier is positive: both
// roundings keep its sign), so where amin is the output offset (a fused ReLU) every negative sum
// gives exactly amin: the kernels store amin for sums below the floor returned here and skip their
// requantization (about half the outputs of a ReLU layer). A sum at or above it requantizes to at
// least amin, so the kernels may also leave out the clamp's lower bound and take the sign term of
// the rounding as +1. (amin above the offset would allow the floor but not those two; no exporter
// emits it, and such layers take the general path.)
inline int32_t negative_floor(int32_t amin, int32_t output_offset) {
  return amin == output_offset ? 0 : INT32_MIN;
}

// The blocks whose set-up runs once per layer, or once per slab of rows (the convolution's
// interior, interior_blocks), on ISAs whose kernel has dyadic forms only there (plain RV32, where
// the per-strip set-up of pointwise layers would cost more than it saves): after the block's four
// channels are set (set_requant), when those channels (mult, shift from its first) are dyadic and
// amin <= offset <= amax, the form kDyadicRelu (a fused ReLU: amin is the offset) or
// kDyadicClamp (any other range), with the ISA's subroutine for it (Forms: the ISA's
// PointwiseDyadicBlocks, `on` where it has the forms, relu and clamp naming them; behind
// kPathDyadic and Forms::clamp_path). The sums' clamps V (and Vlo) take a division per channel
// (on the CV32E40P up to 35 cycles) once per set-up; each output then costs one mul instead of a
// mulh (5 cycles) and no clamp of its result. Else the frexp form (dyadic 0: these ISAs set it
// nowhere else).
//   V   = the largest sum whose result is at most amax (cmsis::dyadic_relu_bound),
//   Vlo = the smallest whose result is at least amin: (v * m + 2^19 + offset * 2^21) >> 21 >= amin
//         for v < 0, so v * m >= (amin - offset) * 2^21 - 2^19 = -N, Vlo = -floor(N / m) <= 0.
// |V * m| and |Vlo * m| stay below 2^29: no overflow bound is needed beside them.
template <class Forms>
inline void set_dyadic_block(PointwiseBlock& b, const int32_t* mult, const int32_t* shift,
                             int32_t offset) {
  if constexpr (Forms::on) {
    b.dyadic = 0;
    b.neg_floor = negative_floor(b.amin, offset);
    const bool relu = b.neg_floor == 0;
    if (offset < -128 || offset > 127 || b.amin < -128 || b.amin > offset || b.amax < offset ||
        b.amax > 127 || !cmsis::all_dyadic(mult, shift, 4) ||
        !kernel_path_or_fallback(relu ? kPathDyadic : Forms::clamp_path))
      return;
    const int32_t below = ((offset - b.amin) << 21) + (1 << 19);  // N
    int32_t lowest = 0;
    for (int k = 0; k < 4; ++k) {
      const int32_t m = mult[k] >> 11;
      b.round_high[k] = m;
      b.offset_high[k] = cmsis::dyadic_relu_offset_high(offset);
      b.right[k] = cmsis::dyadic_relu_bound(m, offset, b.amax);
      if (!relu) {
        b.round_high4[k] = -(below / m);  // Vlo (the frexp kernels' field, unread in this form)
        lowest = b.round_high4[k] < lowest ? b.round_high4[k] : lowest;
      }
    }
    b.dyadic = relu ? kDyadicRelu : kDyadicClamp;
    b.requant_fn = relu ? Forms::relu : Forms::clamp;
    // The floor names the form to the ISA's kernel, and stays one (sums below it give amin): 1
    // with the ReLU (a sum of 0 gives the offset, amin, too), else the lowest Vlo, above
    // INT32_MIN.
    b.neg_floor = relu ? 1 : lowest;
  } else {
    (void)b, (void)mult, (void)shift, (void)offset;
  }
}

// A linear layer's one requantization in the dyadic forms (cmsis::dyadic_linear: the sum clamped
// to [v_min, v_max], which is also the activation clamp, then one mul, add and shift), for ISAs
// whose linear row kernel has them (kLinearDyadic: the CV32E40P's): kDyadicRelu with a fused ReLU
// (amin the offset: a sum below 1 gives amin, no negative sum is multiplied), else kDyadicClamp.
// Taken when the factor is dyadic (cmsis::dyadic_linear_ok: our exporter's linear layers,
// python/etmcu/quantize.py dyadic_linear_requant), amin <= offset <= amax within int8 and the build
// has the form (kPathDyadic). The fields, channel 0's (the kernels read only those: the layer has
// one requantization): round_high m, offset_high K, right v_max, offset_high4 the sign term 2^q,
// round_high4 v_min; neg_floor the form's floor (1, or v_min < 0: its sign names the form). After
// set_requant and neg_floor; returns whether b.dyadic is set (else b is as it was: the frexp form).
// (Every width: a threshold was measured and not kept. The zoo's 12- and 10-feature classifiers
// with Xpulp pay +14 and +34 cycles and +224 and +228 B of code for this set-up, two divisions,
// but in the frexp form they took the kPathFrexp path, which links every frexp kernel of a
// dyadic program: DS-CNN's code +7.6 KB.)
inline bool set_linear_dyadic(PointwiseBlock& b, int32_t mult, int32_t shift, int32_t offset) {
  // (the path first, as set_requant: a build without it, a frexp program's, compiles none of this)
  if (!kernel_path_on(kPathDyadic) || !cmsis::dyadic_linear_ok(mult, shift) || offset < -128 ||
      offset > 127 || b.amin < -128 || b.amin > offset || b.amax < offset || b.amax > 127 ||
      !kernel_path(kPathDyadic))
    return false;
  const bool relu = b.amin == offset;
  const cmsis::DyadicLinear q = cmsis::dyadic_linear(mult, shift, offset, b.amin, b.amax);
  b.round_high[0] = q.m;
  b.offset_high[0] = q.k;
  b.right[0] = q.v_max;
  b.offset_high4[0] = q.sign;  // (the frexp form's fields, unread in these)
  b.round_high4[0] = q.v_min;
  b.dyadic = relu ? kDyadicRelu : kDyadicClamp;
  b.neg_floor = relu ? 1 : q.v_min;
  return true;
}

// A sum's output in those forms (the host's model of the row kernels): cmsis_math.h's arithmetic
// from the block's fields. (The ReLU form's floor 1 in place of v_min gives the same outputs:
// every sum from v_min to 0 gives amin, the offset.)
inline int32_t linear_dyadic_output(const PointwiseBlock& b, int32_t v) {
  const cmsis::DyadicLinear q{b.round_high[0], b.offset_high[0], b.offset_high4[0], b.right[0],
                              b.dyadic == kDyadicRelu ? 0 : b.round_high4[0]};
  return cmsis::requantize_offset_dyadic_linear(v, q);
}

// linear_row_blocks_c for a block set_linear_dyadic set: the same features and arguments, each sum
// the constant plus dot4 over the row's words (the ISA's arithmetic), its output by
// linear_dyadic_output. (The host builds of the ISAs with kLinearDyadic.)
template <class Dot4>
void linear_row_dyadic_c(const PointwiseBlock& b, const int32_t* ksum, int32_t blocks,
                         int32_t xterm, Dot4 dot4) {
  for (int32_t f = 0; f < 4 * blocks; ++f) {
    const int8_t* w = b.w + static_cast<ptrdiff_t>(f) * b.w_stride;
    int32_t v = cmsis::wrap_add(ksum[f], xterm);
    for (int32_t i = 0; i < b.words; ++i) v = dot4(v, b.x + 4 * i, w + 4 * i);
    b.y[f] = static_cast<int8_t>(linear_dyadic_output(b, v));
  }
}

// A linear layer's row in blocks of four features (linear_blocks): block i's constants
// consts[4i + k] + xterm (kernel_sum + foff * sum(x), or constants folded in C with xterm 0), its
// weights 4 * w_stride bytes after the last block's, its outputs 4 bytes after; one pixel each
// through `one` (the ISA's pointwise_1px). The ISAs whose assembly loops over the blocks itself
// (Xpulp) take the same arguments. b's w and y are left as they were (its constants are not).
// (always inlined: linear_blocks, compiled for size, then still knows b.pixels == 1, and an Arm
// build links only its kernel's one-pixel form)
template <class One>
__attribute__((always_inline)) inline void linear_row_blocks_c(PointwiseBlock& b,
                                                               const int32_t* ksum, int32_t blocks,
                                                               int32_t xterm, One one) {
  const int8_t* const w = b.w;
  int8_t* const y = b.y;
  for (int32_t i = 0; i < blocks; ++i, ksum += 4) {
    // (written out: the Os loop cost 10.5 cycles a feature on the CV32E40P)
    b.full[0] = cmsis::wrap_add(ksum[0], xterm);
    b.full[1] = cmsis::wrap_add(ksum[1], xterm);
    b.full[2] = cmsis::wrap_add(ksum[2], xterm);
    b.full[3] = cmsis::wrap_add(ksum[3], xterm);
    one(static_cast<const PointwiseBlock&>(b));
    b.w += static_cast<ptrdiff_t>(4) * b.w_stride;
    b.y += 4;
  }
  b.w = w;
  b.y = y;
}

// The arithmetic in C, one pixel and channel at a time (the ISAs without a pointwise micro-kernel
// of their own, and the host build of the xpulp one with the instruction's arithmetic in dot4).
// kDy: the ISA has the dyadic form (b.dyadic names it; the others never set it).
template <bool kDy = false, class Dot4>
void pointwise_4ch_c(const PointwiseBlock& b, Dot4 dot4) {
  for (int32_t p = 0; p < b.pixels; ++p) {
    const int8_t* x = b.x + static_cast<ptrdiff_t>(p) * b.x_step;
    int8_t* y = b.y + static_cast<ptrdiff_t>(p) * b.y_step;
    for (int k = 0; k < 4; ++k) {
      const int8_t* w = b.w + static_cast<ptrdiff_t>(k) * b.w_stride;
      const int8_t* xr = x;
      int32_t v = b.full[k];
      for (int32_t r = 0; r < b.rows; ++r, xr += b.run_bytes + b.row_skip, w += b.w_row_skip) {
        for (int32_t i = 0; i < b.words; ++i, w += 4) v = dot4(v, xr + 4 * i, w);
        for (int32_t i = 4 * b.words; i < b.run_bytes; ++i, ++w) v += xr[i] * *w;  // byte runs
      }
      const cmsis::Requant4v q{b.mult[k], b.offset_high4[k], b.right4[k]};
      int32_t r = cmsis::requantize_offset_4v(v, q);
      if constexpr (kDy) {
        if (b.dyadic == kDyadicRelu)  // (v < 1 takes the floor below, neg_floor 1)
          r = v < 1 ? b.amin
                    : (v > b.right[k] ? b.amax : (v * b.round_high[k] + b.offset_high[k]) >> 21);
        else if (b.dyadic == kDyadicClamp)
          r = v > b.right[k] ? b.amax
              : v < b.round_high4[k]
                  ? b.amin
                  : (v * b.round_high[k] + b.offset_high[k] - (v < 0 ? (1 << 20) : 0)) >> 21;
        else if (b.dyadic != 0)
          r = cmsis::requantize_offset_dyadic(
              v, cmsis::RequantDyadic{b.round_high[k], b.right[k], b.offset_high[k]});
      }
      y[k] = static_cast<int8_t>(v < b.neg_floor ? b.amin : cmsis::clamp(r, b.amin, b.amax));
    }
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
