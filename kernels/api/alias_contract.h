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

// The least (input address - out address) with which op `name`'s out may overlap its argument
// `arg` (offset-overlap contract), or -1 when the op has none for that argument.
inline int64_t overlap_min_distance(const char* name, size_t len, Span<EValue*> args, uint32_t arg,
                                    const Tensor& out) {
  static constexpr char kPad[] = "cortex_m::pad.out";
  if (len == sizeof(kPad) - 1 && memcmp(name, kPad, len) == 0 && arg == 0 && args.size() == 6 &&
      args[0]->is_tensor() && args[1]->is_int_list() && args[2]->is_int_list())
    return pad_min_distance(args[0]->to_tensor(), out, args[1]->to_int_list(),
                            args[2]->to_int_list());
  return -1;
}

}  // namespace etmcu
