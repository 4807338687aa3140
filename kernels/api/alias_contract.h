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
    if (d[i] < 1 || pre[i] < 0 || post[i] < 0 || od[i] != d[i] + pre[i] + post[i]) return -1;
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

// Output pixels per strip of cortex_m::quantized_conv2d.out's 1x1 path (opt/
// op_quantized_conv2d.cpp pointwise_strips: every channel of a strip before the next strip's
// input is read; a multiple of the micro-kernels' 2- and 3-pixel passes).
constexpr int32_t kPointwiseStripPixels = 30;

// Offset-overlap contract of cortex_m::quantized_conv2d.out for 1x1, stride 1, unpadded,
// undilated, ungrouped layers on exact channels-last int8 tensors, mirrored by
// python/etmcu/lowering/overlap.py pointwise_min_distance: the opt variants go through the P
// output pixels (batches included) in strips of S = kPointwiseStripPixels, strip k reading only
// input pixels [kS, kS + S) and writing only their outputs; ref goes one pixel at a time. So
// strip k's writes must end at or below input pixel kS:
//   d = max over k of (min(kS + S, P) * Cout - kS * Cin),
// linear in k except at the last strip, so the first, the second-to-last and the last decide.
// -1 where the contract does not apply.
// Output rows per slab of the convolution family's kernels (quantized_conv2d other than the 1x1
// path above, quantized_depthwise_conv2d) when their out shares bytes with their input
// (kernels/cortex_m/util/conv_util.h by_row_slabs).
constexpr int32_t kOverlapSlabRows = 4;

// Offset-overlap contract of those convolutions on one exact channels-last int8 image, mirrored by
// python/etmcu/lowering/overlap.py slab_min_distance: with the out over its input the opt
// variants compute slabs of S = kOverlapSlabRows output rows top to bottom, slab k (rows
// oy0 = kS .. oy0 + S) reading input rows from lo_k = clamp(oy0 * stride - pad, 0, H) on and
// writing its own output rows only; ref goes one output pixel at a time (within the same bound).
// So slab k's writes must end at or below input row lo_k:
//   d = max over k of (min(oy0 + S, OH) * out row bytes - lo_k * input row bytes).
// -1 where it does not apply (batches, or output rows whose window starts below the input).
inline int64_t slab_min_distance(const Tensor& in, const Tensor& out, Span<const int64_t> stride,
                                 Span<const int64_t> pad) {
  static constexpr uint8_t kCl[4] = {0, 2, 3, 1};
  if (in.dim != 4 || out.dim != 4 || stride.size() != 2 || pad.size() != 2) return -1;
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char) return -1;
  for (int i = 0; i < 4; ++i)
    if (in.dim_order[i] != kCl[i] || out.dim_order[i] != kCl[i]) return -1;
  if (in.sizes[0] != 1 || out.sizes[0] != 1 || stride[0] < 1 || pad[0] < 0) return -1;
  const int64_t h = in.sizes[2], oh = out.sizes[2];
  const int64_t r_in = static_cast<int64_t>(in.sizes[3]) * in.sizes[1];
  const int64_t r_out = static_cast<int64_t>(out.sizes[3]) * out.sizes[1];
  if (h < 1 || oh < 1 || (oh - 1) * stride[0] - pad[0] >= h) return -1;
  int64_t d = INT64_MIN;
  for (int64_t oy0 = 0; oy0 < oh; oy0 += kOverlapSlabRows) {
    const int64_t end = oy0 + kOverlapSlabRows < oh ? oy0 + kOverlapSlabRows : oh;
    const int64_t top = oy0 * stride[0] - pad[0];
    const int64_t need = end * r_out - (top < 0 ? 0 : top) * r_in;
    if (need > d) d = need;
  }
  return d < 0 ? 0 : d;
}

inline int64_t pointwise_min_distance(Span<EValue*> args, const Tensor& out) {
  static constexpr uint8_t kCl[4] = {0, 2, 3, 1};
  if (args.size() != 15 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[3]->is_int_list() || !args[4]->is_int_list() || !args[5]->is_int_list())
    return -1;
  const Tensor& in = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  Span<const int64_t> stride = args[3]->to_int_list(), pad = args[4]->to_int_list(),
                      dil = args[5]->to_int_list();
  if (in.dim != 4 || out.dim != 4 || w.dim != 4 || stride.size() != 2 || pad.size() != 2 ||
      dil.size() != 2)
    return -1;
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char) return -1;
  for (int i = 0; i < 4; ++i)
    if (in.dim_order[i] != kCl[i] || out.dim_order[i] != kCl[i]) return -1;
  for (int i = 0; i < 2; ++i)
    if (stride[i] != 1 || pad[i] != 0 || dil[i] != 1) return -1;
  const int64_t cin = in.sizes[1], cout = out.sizes[1];
  if (w.sizes[0] != cout || w.sizes[1] != 1 || w.sizes[2] != 1 || w.sizes[3] != cin) return -1;
  if (in.sizes[0] != out.sizes[0] || in.sizes[2] != out.sizes[2] || in.sizes[3] != out.sizes[3])
    return -1;
  const int64_t p = static_cast<int64_t>(in.sizes[0]) * in.sizes[2] * in.sizes[3];
  if (p < 1 || cin < 1) return -1;
  const int64_t s = kPointwiseStripPixels, strips = (p + s - 1) / s;
  auto need = [&](int64_t k) { return (k * s + s < p ? k * s + s : p) * cout - k * s * cin; };
  int64_t d = need(0);
  if (strips >= 2 && need(strips - 2) > d) d = need(strips - 2);
  if (need(strips - 1) > d) d = need(strips - 1);
  return d;
}

// The least (input address - out address) with which op `name`'s out may overlap its argument
// `arg` (offset-overlap contract), or -1 when the op has none for that argument.
inline int64_t overlap_min_distance(const char* name, size_t len, Span<EValue*> args, uint32_t arg,
                                    const Tensor& out) {
  static constexpr char kPad[] = "cortex_m::pad.out";
  if (len == sizeof(kPad) - 1 && memcmp(name, kPad, len) == 0 && arg == 0 && args.size() == 6 &&
      args[0]->is_tensor() && args[1]->is_int_list() && args[2]->is_int_list())
    return pad_min_distance(args[0]->to_tensor(), out, args[1]->to_int_list(),
                            args[2]->to_int_list());
  static constexpr char kConv[] = "cortex_m::quantized_conv2d.out";
  static constexpr char kDw[] = "cortex_m::quantized_depthwise_conv2d.out";
  const bool conv = len == sizeof(kConv) - 1 && memcmp(name, kConv, len) == 0;
  const bool dw = len == sizeof(kDw) - 1 && memcmp(name, kDw, len) == 0;
  if ((!conv && !dw) || arg != 0 || args.size() != (conv ? 15u : 16u) || !args[0]->is_tensor() ||
      !args[1]->is_tensor() || !args[3]->is_int_list() || !args[4]->is_int_list())
    return -1;
  const Tensor& in = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  if (conv && in.dim == 4 && w.dim == 4 && w.sizes[1] == 1 && w.sizes[2] == 1 &&
      w.sizes[3] == in.sizes[1]) {  // 1x1 ungrouped: the strips when stride 1, unpadded
    const int64_t p = pointwise_min_distance(args, out);
    if (p >= 0) return p;
  }
  return slab_min_distance(in, out, args[3]->to_int_list(), args[4]->to_int_list());
}

}  // namespace etmcu
