// Alias contracts of the kernels: which arguments an op's out may occupy exactly (same bytes,
// shape, dtype and dim order). Method load refuses a memory plan in which an op's out overlaps an
// input in any other way. Mirrors python/etmcu/lowering/schemas.py (INPLACE_ARGS), the one
// description the exporter plans with; tests/python/test_alias_contract.py keeps them equal.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etmcu {

struct AliasContract {
  const char* op;         // "ns::name.overload"
  uint32_t inplace_args;  // bit j: the out may be args[j] exactly
};

// Every kernel here computes out[i] from in[i] only and reads element i before writing it.
inline const AliasContract* alias_contracts(size_t* count) {
  static constexpr AliasContract kContracts[] = {
      // alias-contract-table-begin (parsed by tests/python/test_alias_contract.py)
      {"aten::add.out", 0x3},
      {"aten::add.Scalar_out", 0x1},
      {"aten::sub.out", 0x3},
      {"aten::sub.Scalar_out", 0x1},
      {"aten::mul.out", 0x3},
      {"aten::mul.Scalar_out", 0x1},
      {"aten::div.out", 0x3},
      {"aten::div.Scalar_out", 0x1},
      {"aten::relu.out", 0x1},
      {"aten::hardtanh.out", 0x1},
      {"aten::clamp.out", 0x1},
      {"aten::sigmoid.out", 0x1},
      {"aten::tanh.out", 0x1},
      {"cortex_m::quantized_add.out", 0x11},
      {"cortex_m::quantized_mul.out", 0x5},
      {"cortex_m::quantized_activation.out", 0x1},
      // alias-contract-table-end
  };
  *count = sizeof(kContracts) / sizeof(kContracts[0]);
  return kContracts;
}

// Bit mask of the arguments op `name` (`len` bytes) may write its out over; 0 when none.
inline uint32_t inplace_args_of(const char* name, size_t len) {
  size_t n = 0;
  const AliasContract* c = alias_contracts(&n);
  for (size_t i = 0; i < n; ++i)
    if (strlen(c[i].op) == len && memcmp(c[i].op, name, len) == 0) return c[i].inplace_args;
  return 0;
}

// Offset-overlap contract of cortex_m::pad.out (kernels/cortex_m/ref/op_pad.cpp, the only
// variant), mirrored by python/etmcu/lowering/overlap.py pad_min_distance: the kernel walks the
// out rows of the innermost physical dim in memory order, each filled or memset(pre) +
// memmove(input row) + memset(post), reading input rows in increasing order; a write for out row
// q must end below the first input row not yet read. Returns the least (input address - out
// address) that keeps this, or -1 where the contract does not apply (only exact channels-last 4-D
// tensors whose out size is input + pads).
inline int64_t pad_min_distance(const Tensor& in, const Tensor& out, Span<const int64_t> pre,
                                Span<const int64_t> post) {
  static constexpr uint8_t kCl[4] = {0, 2, 3, 1};
  if (in.dim != 4 || out.dim != 4 || pre.size() != 4 || post.size() != 4) return -1;
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char) return -1;  // 1-byte rows
  int32_t d[4], od[4], p[4];
  for (int i = 0; i < 4; ++i) {
    if (in.dim_order[i] != kCl[i] || out.dim_order[i] != kCl[i]) return -1;
    d[i] = in.sizes[kCl[i]];
    od[i] = out.sizes[kCl[i]];
    // Pads beyond int32 cannot match an int32 size (and their sum would overflow int64).
    if (d[i] < 1 || pre[i] < 0 || post[i] < 0 || pre[i] > INT32_MAX || post[i] > INT32_MAX ||
        od[i] != d[i] + pre[i] + post[i])
      return -1;
    p[i] = static_cast<int32_t>(pre[i]);
  }
  // The lead of the writes over the first unread input row grows by the out row (R) at a
  // filled row and by R - Ri >= 0 at a copied one, so it is largest just before the last input
  // row is read: at out row q* = that row's position, d = (q* + 1) * R - (rows_in - 1) * Ri.
  const int64_t qs = ((static_cast<int64_t>(d[0] - 1 + p[0]) * od[1] + (d[1] - 1 + p[1])) * od[2]) +
                     (d[2] - 1 + p[2]);
  const int64_t rows_in = static_cast<int64_t>(d[0]) * d[1] * d[2];
  return (qs + 1) * od[3] - (rows_in - 1) * d[3];
}

// Both tensors 4-D, int8 and exactly channels-last (the activations the convolution contracts
// cover: their NHWC view is the memory order).
inline bool exact_cl_int8(const Tensor& in, const Tensor& out) {
  static constexpr uint8_t kCl[4] = {0, 2, 3, 1};
  if (in.dim != 4 || out.dim != 4) return false;
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char) return false;
  for (int i = 0; i < 4; ++i)
    if (in.dim_order[i] != kCl[i] || out.dim_order[i] != kCl[i]) return false;
  return true;
}

// Output pixels per strip of cortex_m::quantized_conv2d.out's 1x1 path (opt/
// op_quantized_conv2d.cpp pointwise_strips: every channel of a strip before the next strip's
// input is read; a multiple of the micro-kernels' 2- and 3-pixel passes).
constexpr int32_t kPointwiseStripPixels = 24;

// Output rows per slab of the convolution family's kernels (quantized_conv2d other than the 1x1
// strips, quantized_depthwise_conv2d) when their out shares bytes with their input
// (kernels/cortex_m/util/conv_util.h by_row_slabs).
constexpr int32_t kOverlapSlabRows = 4;

// Offset-overlap contracts of those convolutions on one exact channels-last int8 image, mirrored
// by python/etmcu/lowering/overlap.py slab_distance: with the out over its input the opt variants
// compute slabs of S = kOverlapSlabRows output rows, slab k (rows oy0 = kS .. end = min(oy0 + S,
// OH)) reading input rows [lo_k, hi_k) only, lo_k = clamp(oy0 * stride - pad, 0, H) and hi_k =
// clamp((end - 1) * stride - pad + (kh - 1) * dilation + 1, 0, H), and writing its own output
// rows. An out that begins before its input (`after` false): slabs top to bottom, so slab k's
// writes must end at or below input row lo_k:
//   d = max over k of (end * out row bytes - lo_k * input row bytes)   (input - out address).
// An out that begins after its input: slabs bottom to top, slab k's writes must begin at or
// above input row hi_k:
//   e = max over k of (hi_k * input row bytes - oy0 * out row bytes)   (out - input address).
// ref goes one output pixel at a time first to last, and in the same slabs last to first for an
// out after its input (within both bounds). -1 where it does not apply (batches, or output rows
// whose window starts below the input).
inline int64_t slab_distance(const Tensor& in, const Tensor& w, const Tensor& out,
                             Span<const int64_t> stride, Span<const int64_t> pad,
                             Span<const int64_t> dil, bool after) {
  if (!exact_cl_int8(in, out) || w.dim != 4 || stride.size() != 2 || pad.size() != 2 ||
      dil.size() != 2)
    return -1;
  // (the kernels' argument ranges, checked here first: method load runs before them)
  if (in.sizes[0] != 1 || out.sizes[0] != 1 || stride[0] < 1 || stride[0] > 65535 || pad[0] < 0 ||
      pad[0] > 65535 || dil[0] < 1 || dil[0] > 65535)
    return -1;
  const int64_t h = in.sizes[2], oh = out.sizes[2], kh = w.sizes[1];
  const int64_t r_in = static_cast<int64_t>(in.sizes[3]) * in.sizes[1];
  const int64_t r_out = static_cast<int64_t>(out.sizes[3]) * out.sizes[1];
  if (h < 1 || oh < 1 || kh < 1 || r_in < 1 || r_out < 1 || r_in > INT32_MAX || r_out > INT32_MAX ||
      (oh - 1) * stride[0] - pad[0] >= h)
    return -1;
  auto clamp_rows = [h](int64_t r) { return r < 0 ? 0 : (r > h ? h : r); };
  int64_t d = 0;
  for (int64_t oy0 = 0; oy0 < oh; oy0 += kOverlapSlabRows) {
    const int64_t end = oy0 + kOverlapSlabRows < oh ? oy0 + kOverlapSlabRows : oh;
    const int64_t need =
        after ? clamp_rows((end - 1) * stride[0] - pad[0] + (kh - 1) * dil[0] + 1) * r_in -
                    oy0 * r_out
              : end * r_out - clamp_rows(oy0 * stride[0] - pad[0]) * r_in;
    if (need > d) d = need;
  }
  return d;
}

// The row contract of cortex_m::quantized_depthwise_conv2d.out, mirrored by
// python/etmcu/lowering/overlap.py dw_rows_distance and the kernels' util/conv_util.h: one exact
// channels-last int8 image, stride 1, undilated, the out of the input's shape (multiplier 1,
// "same" padding). Every variant writes the out rows top to bottom without slabs, out row r
// overwriting only input row r - pad_h - 1 of the same channels (whose readers are done), so an
// out that begins before its input needs d = (pad_h + 1) input rows. -1 where it does not apply.
inline int64_t dw_rows_distance(const Tensor& in, const Tensor& out, Span<const int64_t> stride,
                                Span<const int64_t> pad, Span<const int64_t> dil) {
  if (!exact_cl_int8(in, out) || stride.size() != 2 || pad.size() != 2 || dil.size() != 2)
    return -1;
  for (int i = 0; i < 4; ++i)
    if (in.sizes[i] != out.sizes[i]) return -1;
  if (in.sizes[0] != 1 || stride[0] != 1 || stride[1] != 1 || dil[0] != 1 || dil[1] != 1 ||
      pad[0] < 0 || pad[0] > 65535)
    return -1;
  const int64_t row = static_cast<int64_t>(in.sizes[3]) * in.sizes[1];
  if (row < 1 || row > INT32_MAX) return -1;
  return (pad[0] + 1) * row;
}

// Offset-overlap contracts of cortex_m::quantized_conv2d.out for 1x1, stride 1, unpadded,
// undilated, ungrouped layers on exact channels-last int8 tensors, mirrored by
// python/etmcu/lowering/overlap.py pointwise_distance: the opt variants go through the P output
// pixels (batches included) in strips of S = kPointwiseStripPixels, strip k reading input pixels
// [kS, end_k = min(kS + S, P)) only and writing their outputs; first to last for an out that
// begins before its input, so strip k's writes must end at or below input pixel kS:
//   d = max over k of (end_k * Cout - kS * Cin);
// last to first for an out that begins after it, strip k's writes beginning at or above input
// pixel end_k:
//   e = max over k of (end_k * Cin - kS * Cout).
// Both are linear in k except at the last strip, so the first, the second-to-last and the last
// decide. ref goes one pixel at a time (last to first for an out after its input: within both).
// -1 where the contract does not apply.
inline int64_t pointwise_distance(Span<EValue*> args, const Tensor& out, bool after) {
  if (args.size() != 15 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[3]->is_int_list() || !args[4]->is_int_list() || !args[5]->is_int_list())
    return -1;
  const Tensor& in = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  Span<const int64_t> stride = args[3]->to_int_list(), pad = args[4]->to_int_list(),
                      dil = args[5]->to_int_list();
  if (!exact_cl_int8(in, out) || w.dim != 4 || stride.size() != 2 || pad.size() != 2 ||
      dil.size() != 2)
    return -1;
  for (int i = 0; i < 2; ++i)
    if (stride[i] != 1 || pad[i] != 0 || dil[i] != 1) return -1;
  const int64_t cin = in.sizes[1], cout = out.sizes[1];
  if (w.sizes[0] != cout || w.sizes[1] != 1 || w.sizes[2] != 1 || w.sizes[3] != cin) return -1;
  if (in.sizes[0] != out.sizes[0] || in.sizes[2] != out.sizes[2] || in.sizes[3] != out.sizes[3])
    return -1;
  if (in.sizes[0] < 1 || in.sizes[2] < 1 || in.sizes[3] < 1 || cin < 1 || cout < 1) return -1;
  const int64_t nh = static_cast<int64_t>(in.sizes[0]) * in.sizes[2];
  if (nh > INT32_MAX || nh * in.sizes[3] > INT32_MAX) return -1;
  const int64_t p = nh * in.sizes[3];
  const int64_t s = kPointwiseStripPixels, strips = (p + s - 1) / s;
  auto need = [&](int64_t k) {
    const int64_t end = k * s + s < p ? k * s + s : p;
    return after ? end * cin - k * s * cout : end * cout - k * s * cin;
  };
  int64_t d = need(0);
  if (strips >= 2 && need(strips - 2) > d) d = need(strips - 2);
  if (need(strips - 1) > d) d = need(strips - 1);
  return d < 0 ? 0 : d;
}

// The least distance with which op `name`'s out may overlap its argument `arg`
// (offset-overlap contract): input - out address when the out begins at or before the input
// (`after` false), out - input address when it begins after it; -1 when the op has none.
inline int64_t overlap_min_distance(const char* name, size_t len, Span<EValue*> args, uint32_t arg,
                                    const Tensor& out, bool after) {
  static constexpr char kPad[] = "cortex_m::pad.out";
  if (len == sizeof(kPad) - 1 && memcmp(name, kPad, len) == 0 && arg == 0 && args.size() == 6 &&
      args[0]->is_tensor() && args[1]->is_int_list() && args[2]->is_int_list())
    return after ? -1  // (its one loop order: out rows first to last)
                 : pad_min_distance(args[0]->to_tensor(), out, args[1]->to_int_list(),
                                    args[2]->to_int_list());
  static constexpr char kConv[] = "cortex_m::quantized_conv2d.out";
  static constexpr char kDw[] = "cortex_m::quantized_depthwise_conv2d.out";
  const bool conv = len == sizeof(kConv) - 1 && memcmp(name, kConv, len) == 0;
  const bool dw = len == sizeof(kDw) - 1 && memcmp(name, kDw, len) == 0;
  if ((!conv && !dw) || arg != 0 || args.size() != (conv ? 15u : 16u) || !args[0]->is_tensor() ||
      !args[1]->is_tensor() || !args[3]->is_int_list() || !args[4]->is_int_list() ||
      !args[5]->is_int_list())
    return -1;
  const Tensor& in = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  if (conv && in.dim == 4 && w.dim == 4 && w.sizes[1] == 1 && w.sizes[2] == 1 &&
      w.sizes[3] == in.sizes[1]) {  // 1x1 ungrouped: the strips when stride 1, unpadded
    const int64_t p = pointwise_distance(args, out, after);
    if (p >= 0) return p;
  }
  const int64_t slabs = slab_distance(in, w, out, args[3]->to_int_list(), args[4]->to_int_list(),
                                      args[5]->to_int_list(), after);
  if (!dw || after) return slabs;
  const int64_t rows = dw_rows_distance(in, out, args[3]->to_int_list(), args[4]->to_int_list(),
                                        args[5]->to_int_list());
  return rows >= 0 && (slabs < 0 || rows < slabs) ? rows : slabs;
}

}  // namespace etmcu
