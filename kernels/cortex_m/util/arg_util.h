// Argument checks shared by the cortex_m int8 kernels: well-formed tensors, scalar/list tags,
// int32 ranges, CMSIS-NN's channels-last rule, and the out/return-value pair of an out-variant.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel.h"
#include "kernels/api/tensor_check.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

// For the functions that check an op's arguments and fill its job: run once per call, against
// thousands of cycles of arithmetic, so compiled for size and kept out of line (at the kernels'
// -O2 they were a third larger: upstream's KWS on cv32e40p 45,808 -> 43,036 B of .text for 3,091
// more cycles). `cold` would do the same but lowers the inlining budget of the whole LTO unit
// (the requantization helpers went out of line: +170 K cycles).
#define ETMCU_ARG_CHECKS __attribute__((noinline, optimize("Os")))

namespace etmcu {
namespace kernels {
namespace int8 {

// args[i] is a well-formed tensor (kernels/api/tensor_check.h).
inline bool is_tensor(Span<EValue*> args, size_t i) { return is_well_formed_tensor_arg(args, i); }
inline bool is_optional_tensor(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && (args[i]->is_none() || is_tensor(args, i));
}
inline bool has_tensor(Span<EValue*> args, size_t i) { return !args[i]->is_none(); }
inline bool is_int(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_int();
}
inline bool is_bool(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_bool();
}
// A `float` schema argument: Double, or Int when the exporter wrote an integral value.
inline bool is_float(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && (args[i]->is_double() || args[i]->is_int());
}
inline double float_arg(Span<EValue*> args, size_t i) { return args[i]->scalar_as_double(); }
inline bool is_int_list(Span<EValue*> args, size_t i, size_t n) {
  return i < args.size() && args[i] != nullptr && args[i]->is_int_list() &&
         args[i]->payload.as_span.size == n && (n == 0 || args[i]->payload.as_span.data != nullptr);
}
inline bool is_int_list_any(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_int_list() &&
         (args[i]->payload.as_span.size == 0 || args[i]->payload.as_span.data != nullptr);
}
inline Tensor& tensor(Span<EValue*> args, size_t i) { return args[i]->to_tensor(); }
inline int64_t int_arg(Span<EValue*> args, size_t i) { return args[i]->to_int(); }
inline bool fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }
inline bool in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }
// The n int arguments from args[i] on (checked to be ints) all in [-255, 255]: the input, filter
// and output offsets of the quantized ops (one out-of-line loop for their 64-bit compares).
ETMCU_ARG_CHECKS inline bool offsets_in_range(Span<EValue*> args, size_t i, size_t n) {
  for (size_t k = i; k < i + n; ++k)
    if (!in_range(int_arg(args, k), -255, 255)) return false;
  return true;
}
// An int32 tensor of n elements (a bias, kernel sums, per-channel parameters).
ETMCU_ARG_CHECKS inline bool is_int32_vector(const Tensor& t, int64_t n) {
  return t.dtype == ScalarType::Int && static_cast<int64_t>(t.numel()) == n;
}

// The trailing return value of a single-output out-variant is the out tensor again.
inline bool is_return_of(Span<EValue*> args, size_t ret, size_t out) {
  return ret < args.size() && args[ret] != nullptr && args[ret]->is_tensor() &&
         args[out]->is_tensor() &&
         args[ret]->payload.as_tensor->data == args[out]->payload.as_tensor->data;
}

// Whether every dim of `t` of size > 1 has the element stride want[d] (dims of size 1 may sit
// anywhere in the dim order): the one loop of the layout rules below, out of line (each inlined
// copy of Tensor::strides and its 64-bit products was code in every parse function). These
// helpers keep the kernels' -O2: at Os they ran more instructions per call for no fewer bytes.
__attribute__((noinline)) inline bool has_strides(const Tensor& t, const int64_t* want) {
  int64_t st[kTensorMaxDim];
  t.strides(st);
  for (int d = 0; d < t.dim; ++d)
    if (t.sizes[d] > 1 && st[d] != want[d]) return false;
  return true;
}

// CMSIS-NN's rule for 4-D activations: physically NHWC (dim_order 0,2,3,1), or laid out so that
// the bytes coincide with NHWC (e.g. NCHW with C == 1 or H == W == 1): every dim of size > 1 has
// its NHWC stride.
__attribute__((noinline)) inline bool is_nhwc_compatible(const Tensor& t) {
  if (t.dim != 4) return false;
  const int64_t c = t.sizes[1], w = t.sizes[3], h = t.sizes[2];
  const int64_t want[4] = {h * w * c, 1, w * c, c};
  return has_strides(t, want);
}

// Same logical shape and the same byte position for every element (dim orders may differ only in
// where size-1 dims sit), so an elementwise kernel can walk both in memory order.
inline bool same_layout(const Tensor& a, const Tensor& b) {
  if (!a.same_shape(b)) return false;
  int64_t sb[kTensorMaxDim];
  b.strides(sb);
  return has_strides(a, sb);
}
// Memory order is logical order, ignoring size-1 dims.
__attribute__((noinline)) inline bool is_contiguous_like(const Tensor& t) {
  int64_t want[kTensorMaxDim];
  int64_t expect = 1;
  for (int d = t.dim - 1; d >= 0; --d) {
    want[d] = expect;
    expect *= t.sizes[d];
  }
  return has_strides(t, want);
}

// A planned scratch tensor: uint8 (or int8), one dimension, possibly empty.
inline bool is_scratch(Span<EValue*> args, size_t i) {
  if (!is_tensor(args, i)) return false;
  const Tensor& t = tensor(args, i);
  return (t.dtype == ScalarType::Byte || t.dtype == ScalarType::Char) && t.dim <= 1;
}

// Per-channel requantization pairs in int32 tensors of `n` elements, multipliers in
// (INT32_MIN, INT32_MAX], shifts in [-31, 30]. Out of line at the kernels' -O2: its loop runs
// over every channel of every convolution call (inlined into the size-compiled check_conv_args
// it ran ~125 instructions more per KWS layer on the M55).
__attribute__((noinline)) inline bool valid_per_channel(const Tensor& mult, const Tensor& shift,
                                                        int32_t n) {
  if (!is_int32_vector(mult, n) || !is_int32_vector(shift, n)) return false;
  const int32_t* m = mult.const_data_ptr<int32_t>();
  const int32_t* s = shift.const_data_ptr<int32_t>();
  for (int32_t c = 0; c < n; ++c)
    if (m[c] == INT32_MIN || s[c] < -31 || s[c] > 30) return false;
  return true;
}
// The arguments' kinds, one letter each, in one loop (one out-of-line call per op in place of a
// dozen inlined tests): T a well-formed tensor, t a tensor or None, S a scratch tensor, I an int,
// B a bool, F a float (Double, or Int when integral), P a list of two ints, L any int list, R the
// tensor just before it again (a single-output out-variant's return). The string's length is the
// argument count.
ETMCU_ARG_CHECKS inline bool args_are(Span<EValue*> args, const char* kinds) {
  size_t i = 0;
  for (; kinds[i] != '\0'; ++i) {
    const char k = kinds[i];
    if (i >= args.size() || args[i] == nullptr) return false;
    const EValue& v = *args[i];
    bool ok;
    if (k == 'T' || k == 'S' || (k == 't' && !v.is_none())) {  // one tensor check for all three
      ok = is_tensor(args, i);
      if (ok && k == 'S') {
        const Tensor& t = v.to_tensor();
        ok = (t.dtype == ScalarType::Byte || t.dtype == ScalarType::Char) && t.dim <= 1;
      }
    } else if (k == 't') {
      ok = true;  // None
    } else if (k == 'I' || k == 'F') {
      ok = v.is_int() || (k == 'F' && v.is_double());
    } else if (k == 'B') {
      ok = v.is_bool();
    } else if (k == 'P' || k == 'L') {
      ok = v.is_int_list() && (k == 'L' || v.payload.as_span.size == 2) &&
           (v.payload.as_span.size == 0 || v.payload.as_span.data != nullptr);
    } else {
      ok = k == 'R' && i > 0 && is_return_of(args, i, i - 1);
    }
    if (!ok) return false;
  }
  return i == args.size();
}

// The failure of the argument check numbered `check` (an op's index into its messages): sets *why
// and returns e. (Set only on failure: a build without argument checks stores nothing.)
inline Error failed(int* why, int check, Error e) {
  *why = check;
  return e;
}

// An int8 activation range [min, max] within int8.
inline bool valid_activation(int64_t lo, int64_t hi) { return lo >= -128 && hi <= 127 && lo <= hi; }
// A per-tensor (multiplier, shift) pair.
inline bool valid_requant(int64_t mult, int64_t shift) {
  return mult > INT32_MIN && mult <= INT32_MAX && shift >= -31 && shift <= 30;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
