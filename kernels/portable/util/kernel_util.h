// Shared helpers of the portable kernels: argument validation, dtype conversion and PyTorch type
// promotion, and a strided iterator for broadcasting / dim-order-aware elementwise loops.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel.h"
#include "kernels/api/tensor_check.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etmcu {
namespace kernels {
namespace util {

// f64 tensor support: on by default on the host, off in freestanding builds so that f32 models on
// soft-float MCUs link neither double libm routines nor soft-double arithmetic for f64 paths they
// never take (f64 tensors are then rejected with InvalidType / NotSupported). Scalars are still
// doubles (the .pte stores them so). -DETMCU_KERNELS_F64 forces f64 on, _NO_F64 off.
#if defined(ETMCU_KERNELS_F64) || (!defined(ETMCU_FREESTANDING) && !defined(ETMCU_KERNELS_NO_F64))
constexpr bool kF64 = true;
#else
constexpr bool kF64 = false;
#endif

// Tensor dtypes this build's kernels handle: bit i set = ScalarType i (default: all). Firmware
// builds pass the dtypes their program uses (`etmcu-cli inspect --features`), so a float-only
// program links no int8/int16/int64/bool instantiations of generic kernels; a tensor of a dtype
// left out is rejected cleanly (InvalidType), never mis-computed.
#ifndef ETMCU_KERNEL_DTYPES
#define ETMCU_KERNEL_DTYPES 0xffffffffu
#endif
// Pruned: kernel instantiations (dispatch_all) and the tensor element conversions
// (load_as/store_as<C, true>). The default load_as/store_as keep every dtype, because Scalars
// travel as f64/i64 0-dim temporaries whatever the tensors' dtypes.
constexpr bool dtype_in_mask(ScalarType t) {
  return ((static_cast<uint32_t>(ETMCU_KERNEL_DTYPES) >> static_cast<int>(t)) & 1u) != 0;
}
constexpr bool dtype_enabled(ScalarType t) {
  return dtype_in_mask(t) && (t != ScalarType::Double || kF64);
}

constexpr bool kAnyIntegerDtype =
    dtype_enabled(ScalarType::Byte) || dtype_enabled(ScalarType::Char) ||
    dtype_enabled(ScalarType::Short) || dtype_enabled(ScalarType::Int) ||
    dtype_enabled(ScalarType::Long) || dtype_enabled(ScalarType::Bool);

// Element offsets and loop indices in hot loops: pointer-sized, so 32-bit targets avoid 64-bit
// arithmetic. Safe because is_valid_tensor_arg caps every tensor at 2^31 - 1 elements.
using Index = ptrdiff_t;

// Marks "no type yet" in type promotion (not a valid ScalarType).
constexpr ScalarType kUndefined = static_cast<ScalarType>(-1);

// The one tensor dtype of a single-dtype build (ETMCU_KERNEL_DTYPES with one bit set, e.g. an
// f32-only program), else kUndefined. Every validated tensor then has it, so type promotion
// between tensors is known at compile time.
constexpr ScalarType single_tensor_dtype() {
  const uint32_t m = static_cast<uint32_t>(ETMCU_KERNEL_DTYPES);
  if (m == 0 || (m & (m - 1)) != 0) return kUndefined;
  int bit = 0;
  while (((m >> bit) & 1u) == 0) ++bit;
  return static_cast<ScalarType>(bit);
}
constexpr ScalarType kSingleDtype = single_tensor_dtype();

// ---- argument access ------------------------------------------------------------------------

// True when args[i] is a well-formed tensor: sane rank, non-negative sizes, dim_order a
// permutation, known element size, data present and large enough for every element. (True
// without the call in a build whose kernels leave their argument checks out: tensor_check.h.)
bool valid_tensor_arg(Span<EValue*> args, size_t i);
__attribute__((always_inline)) inline bool is_valid_tensor_arg(Span<EValue*> args, size_t i) {
  return !kernel_arg_checks() || valid_tensor_arg(args, i);
}
inline Tensor& tensor_arg(Span<EValue*> args, size_t i) { return args[i]->to_tensor(); }
// Optional tensor: None or a valid tensor.
inline bool is_optional_tensor_arg(Span<EValue*> args, size_t i) {
  return args[i] != nullptr && (args[i]->is_none() || is_valid_tensor_arg(args, i));
}
inline bool is_scalar_arg(Span<EValue*> args, size_t i) {
  return args[i] != nullptr && args[i]->is_scalar();
}
inline bool is_int_arg(Span<EValue*> args, size_t i) {
  return args[i] != nullptr && args[i]->is_int();
}
inline bool is_bool_arg(Span<EValue*> args, size_t i) {
  return args[i] != nullptr && args[i]->is_bool();
}
inline bool is_double_arg(Span<EValue*> args, size_t i) {
  // float arguments may be serialized as Int when they hold integral values.
  return args[i] != nullptr && (args[i]->is_double() || args[i]->is_int());
}
inline bool is_int_list_arg(Span<EValue*> args, size_t i) {
  return args[i] != nullptr && args[i]->is_int_list() &&
         (args[i]->payload.as_span.data != nullptr || args[i]->payload.as_span.size == 0);
}
inline bool is_none_arg(Span<EValue*> args, size_t i) {
  return args[i] != nullptr && args[i]->is_none();
}
// The returned-value slot of a single-output op must be the same tensor as `out`.
bool return_is(Span<EValue*> args, size_t ret, size_t out);
__attribute__((always_inline)) inline bool is_return_of(Span<EValue*> args, size_t ret,
                                                        size_t out) {
  return !kernel_arg_checks() || return_is(args, ret, out);
}
// The trailing TensorList of a multi-output op: `n` tensors equal to args[first..first+n).
bool out_list_is(Span<EValue*> args, size_t list, size_t first, size_t n);
__attribute__((always_inline)) inline bool is_out_list(Span<EValue*> args, size_t list,
                                                       size_t first, size_t n) {
  return !kernel_arg_checks() || out_list_is(args, list, first, n);
}

// ---- dtypes ---------------------------------------------------------------------------------

// Dtypes the portable kernels compute on: u8, i8, i16, i32, i64, f32, f64, bool.
bool is_supported_dtype(ScalarType t);
inline bool is_floating(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; }
// Floating dtypes the float kernels compute in: f32, and f64 when kF64.
inline bool is_float_compute(ScalarType t) {
  return t == ScalarType::Float || (kF64 && t == ScalarType::Double);
}
inline bool is_integral(ScalarType t, bool include_bool) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long || (include_bool && t == ScalarType::Bool);
}
// torch.promote_types for supported dtypes.
ScalarType promote_types(ScalarType a, ScalarType b);
// torch.result_type for (tensor, tensor-or-scalar): dimensioned tensors beat 0-dim tensors,
// which beat wrapped Python scalars, unless the lower priority operand is of a higher category.
// `b_scalar` marks b as a wrapped number (Int -> Long, Double -> Float, Bool).
ScalarType result_type(const Tensor& a, ScalarType b, bool b_is_zero_dim, bool b_scalar);
ScalarType result_type3(const Tensor* const* ts, int n);
// Dtype of a Scalar EValue (Long, Double or Bool).
ScalarType scalar_dtype(const EValue& v);
// torch.can_cast: no floating -> integral, no non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

template <typename T>
struct IsFloat {
  static constexpr bool value = false;
};
template <>
struct IsFloat<float> {
  static constexpr bool value = true;
};
template <>
struct IsFloat<double> {
  static constexpr bool value = true;
};

template <typename T>
struct IsBool {
  static constexpr bool value = false;
};
template <>
struct IsBool<bool> {
  static constexpr bool value = true;
};

// Arithmetic that wraps for integers (two's complement, like PyTorch) instead of overflowing into
// undefined behaviour; plain float arithmetic otherwise.
template <typename C>
inline C wrap_add(C a, C b) {
  if constexpr (IsFloat<C>::value)
    return a + b;
  else
    return static_cast<C>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <typename C>
inline C wrap_sub(C a, C b) {
  if constexpr (IsFloat<C>::value)
    return a - b;
  else
    return static_cast<C>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <typename C>
inline C wrap_mul(C a, C b) {
  if constexpr (IsFloat<C>::value)
    return a * b;
  else
    return static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Integer conversion without undefined behaviour: floats saturate to the int64 range (NaN -> 0);
// integers pass through.
template <typename C>
inline int64_t to_int64(C v) {
  if constexpr (IsFloat<C>::value) {
    if (!(v == v)) return 0;
    if (v >= static_cast<C>(9.2233720368547758e18)) return INT64_MAX;
    if (v <= static_cast<C>(-9.2233720368547758e18)) return INT64_MIN;
  }
  return static_cast<int64_t>(v);
}

// A Scalar argument (as double) in integer type T, saturated to T's range (NaN -> 0): clamp
// bounds and fill values outside the dtype's range then behave sensibly instead of being UB.
template <typename T>
inline T saturate_cast(double v) {
  if constexpr (IsFloat<T>::value) {
    return static_cast<T>(v);
  } else {
    constexpr bool kSigned = static_cast<T>(-1) < static_cast<T>(0);
    constexpr int kBits = static_cast<int>(sizeof(T) * 8);
    constexpr uint64_t kMaxU = kSigned ? (uint64_t(1) << (kBits - 1)) - 1
                                       : (kBits == 64 ? ~uint64_t(0) : (uint64_t(1) << kBits) - 1);
    const T max_v = static_cast<T>(kMaxU);
    const T min_v = kSigned ? static_cast<T>(-static_cast<T>(kMaxU) - 1) : static_cast<T>(0);
    if (!(v == v)) return static_cast<T>(0);
    if (v >= static_cast<double>(kMaxU)) return max_v;
    if (v <= (kSigned ? -static_cast<double>(kMaxU) - 1.0 : 0.0)) return min_v;
    return static_cast<T>(v);
  }
}

// Element access by runtime dtype. With kTensorOnly the source/target is a tensor that passed
// is_valid_tensor_arg, so its dtype is in this build's mask: only those dtypes' conversions are
// compiled (an f32-only firmware then links no int <-> float helpers). Scalars (f64/i64/bool
// 0-dim temporaries) and other buffers use the default, every dtype.
template <typename C, bool kTensorOnly = false>
inline C load_as(const void* base, ScalarType t, int64_t i) {
  switch (t) {
    case ScalarType::Byte:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Byte)) break;
      return static_cast<C>(static_cast<const uint8_t*>(base)[i]);
    case ScalarType::Char:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Char)) break;
      return static_cast<C>(static_cast<const int8_t*>(base)[i]);
    case ScalarType::Short:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Short)) break;
      return static_cast<C>(static_cast<const int16_t*>(base)[i]);
    case ScalarType::Int:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Int)) break;
      return static_cast<C>(static_cast<const int32_t*>(base)[i]);
    case ScalarType::Long:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Long)) break;
      return static_cast<C>(static_cast<const int64_t*>(base)[i]);
    case ScalarType::Float:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Float)) break;
      return static_cast<C>(static_cast<const float*>(base)[i]);
    case ScalarType::Double:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Double)) break;
      return static_cast<C>(static_cast<const double*>(base)[i]);
    case ScalarType::Bool:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Bool)) break;
      // Read as bytes: a Bool tensor's data may come from untrusted program bytes (any value).
      return static_cast<C>(static_cast<const uint8_t*>(base)[i] != 0 ? 1 : 0);
    default:
      break;
  }
  return static_cast<C>(0);  // kTensorOnly: a dtype rejected at validation
}

// Integer targets go through a saturating int64 conversion, then wrap to the width (so in-range
// floats truncate like PyTorch, negative floats into uint8 wrap as on CPUs, and nothing is UB).
template <typename C, bool kTensorOnly = false>
inline void store_as(void* base, ScalarType t, int64_t i, C v) {
  switch (t) {
    case ScalarType::Byte:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Byte)) break;
      static_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(to_int64(v));
      break;
    case ScalarType::Char:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Char)) break;
      static_cast<int8_t*>(base)[i] = static_cast<int8_t>(to_int64(v));
      break;
    case ScalarType::Short:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Short)) break;
      static_cast<int16_t*>(base)[i] = static_cast<int16_t>(to_int64(v));
      break;
    case ScalarType::Int:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Int)) break;
      static_cast<int32_t*>(base)[i] = static_cast<int32_t>(to_int64(v));
      break;
    case ScalarType::Long:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Long)) break;
      static_cast<int64_t*>(base)[i] = to_int64(v);
      break;
    case ScalarType::Float:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Float)) break;
      static_cast<float*>(base)[i] = static_cast<float>(v);
      break;
    case ScalarType::Double:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Double)) break;
      static_cast<double*>(base)[i] = static_cast<double>(v);
      break;
    case ScalarType::Bool:
      if (kTensorOnly && !dtype_in_mask(ScalarType::Bool)) break;
      static_cast<bool*>(base)[i] = (v != static_cast<C>(0));
      break;
    default:
      break;
  }
}

// The ScalarType of a C type.
template <typename T>
constexpr ScalarType dtype_of();
template <>
constexpr ScalarType dtype_of<uint8_t>() {
  return ScalarType::Byte;
}
template <>
constexpr ScalarType dtype_of<int8_t>() {
  return ScalarType::Char;
}
template <>
constexpr ScalarType dtype_of<int16_t>() {
  return ScalarType::Short;
}
template <>
constexpr ScalarType dtype_of<int32_t>() {
  return ScalarType::Int;
}
template <>
constexpr ScalarType dtype_of<int64_t>() {
  return ScalarType::Long;
}
template <>
constexpr ScalarType dtype_of<float>() {
  return ScalarType::Float;
}
template <>
constexpr ScalarType dtype_of<double>() {
  return ScalarType::Double;
}
template <>
constexpr ScalarType dtype_of<bool>() {
  return ScalarType::Bool;
}

// One element converted between dtypes: integers via int64 (exact), anything involving f32 via
// float (no double rounding of int -> f32), f64 via double -- or via float when f64 tensors are
// compiled out (then only f64 Scalars get here).
inline void convert_element(const void* src, ScalarType st, Index si, void* dst, ScalarType dt,
                            Index di) {
  const bool f64 = st == ScalarType::Double || dt == ScalarType::Double;
  if (f64 && kF64) {
    store_as<double>(dst, dt, di, load_as<double>(src, st, si));
  } else if (f64 || st == ScalarType::Float || dt == ScalarType::Float) {
    store_as<float>(dst, dt, di, load_as<float>(src, st, si));
  } else {
    store_as<int64_t>(dst, dt, di, load_as<int64_t>(src, st, si));
  }
}

// Calls f(T()) with the C type of `t` (supported dtypes only); returns false for others.
template <typename F>
inline bool dispatch_all(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte:
      if constexpr (dtype_enabled(ScalarType::Byte)) return f(uint8_t()), true;
      return false;
    case ScalarType::Char:
      if constexpr (dtype_enabled(ScalarType::Char)) return f(int8_t()), true;
      return false;
    case ScalarType::Short:
      if constexpr (dtype_enabled(ScalarType::Short)) return f(int16_t()), true;
      return false;
    case ScalarType::Int:
      if constexpr (dtype_enabled(ScalarType::Int)) return f(int32_t()), true;
      return false;
    case ScalarType::Long:
      if constexpr (dtype_enabled(ScalarType::Long)) return f(int64_t()), true;
      return false;
    case ScalarType::Float:
      if constexpr (dtype_enabled(ScalarType::Float)) return f(float()), true;
      return false;
    case ScalarType::Double:
      if constexpr (dtype_enabled(ScalarType::Double)) return f(double()), true;
      return false;
    case ScalarType::Bool:
      if constexpr (dtype_enabled(ScalarType::Bool)) return f(bool()), true;
      return false;
    default:
      return false;
  }
}
// Same for floating dtypes only (f64 only with kF64).
template <typename F>
inline bool dispatch_float(ScalarType t, F&& f) {
  if (dtype_enabled(ScalarType::Float) && t == ScalarType::Float) {
    f(float());
    return true;
  }
  if constexpr (kF64) {
    if (t == ScalarType::Double) {
      f(double());
      return true;
    }
  }
  return false;
}

// ---- shapes ---------------------------------------------------------------------------------

// Wraps a possibly negative dim into [0, rank); false when out of range. Rank 0 accepts -1/0.
bool normalize_dim(int64_t dim, int rank, int* out);
// out has the broadcast shape of the given tensors (numpy rules).
bool is_broadcast_shape(const Tensor& out, const Tensor* const* ins, int n);
// `t` broadcasts to out's shape (trailing alignment, size 1 or equal).
bool broadcasts_to(const Tensor& t, const Tensor& out);
// Byte-wise copy from `in` to `out` (same shape and dtype) honouring both dim orders. False as
// gather_copy.
bool copy_strided(const Tensor& in, const Tensor& out);

// Visits the elements of a driving tensor in its memory order (so its own offsets are 0, 1, 2, ...)
// while tracking the element offset of up to three other operands.
class StridedIter {
 public:
  static constexpr int kMaxInputs = 3;
  // Broadcasting: inputs align to out's trailing dims, stride 0 along their size-1 dims.
  StridedIter(const Tensor& out, const Tensor* const* ins, int n);
  // Explicit strides: strides[j][d] is operand j's element stride along the driver's logical dim
  // d (0 to repeat); base[j] its starting offset (nullptr = all 0).
  StridedIter(const Tensor& drive, const int64_t (*strides)[kTensorMaxDim], int n,
              const int64_t* base = nullptr);
  Index offset(int j) const { return off_[j]; }
  void next() {
    for (int k = ndim_ - 1; k >= 0; --k) {
      for (int j = 0; j < n_; ++j) off_[j] += stride_[j][k];
      if (++idx_[k] < size_[k]) return;
      for (int j = 0; j < n_; ++j) off_[j] -= stride_[j][k] * size_[k];
      idx_[k] = 0;
    }
  }

 private:
  void init_sizes(const Tensor& drive);
  int ndim_;
  int n_;
  int32_t size_[kTensorMaxDim];
  int32_t idx_[kTensorMaxDim];
  Index stride_[kMaxInputs][kTensorMaxDim];
  Index off_[kMaxInputs];
};

// Which loop an elementwise binary map can take: kScalar / kSame when a, b and out all have dtype
// `t` and a is laid out like out, with b a single element (kScalar) or laid out like out too
// (kSame); kGeneral otherwise (broadcasting, dim orders or dtypes differ). Out of line: one copy
// of the shape checks for every op and compute type.
enum class BinaryLayout : uint8_t { kGeneral, kScalar, kSame };
BinaryLayout binary_layout(const Tensor& a, const Tensor& b, const Tensor& out, ScalarType t);

// Identity dim order for up to kTensorMaxDim dims (a contiguous view of any shape).
extern const uint8_t kContiguousOrder[kTensorMaxDim];

// Copies the elements of `out` (element size `es`) from `src`, whose offset for out's logical
// index is given by per-dim strides `in_strides` (indexed by out's logical dims) plus `base`.
// False (nothing written): the build left out that element size's path (kernels/api/
// kernel_paths.h); the op then returns kernel_path_missing.
bool gather_copy(const Tensor& out, const void* src, const int64_t* in_strides, int64_t base,
                 size_t es);
// Same elements in logical row-major order, different shapes/dim orders (view/reshape copies);
// same dtype and numel.
void copy_reshaped(const Tensor& in, const Tensor& out);
// out = in converted to out's dtype (same shape, any dim orders). False as gather_copy.
bool convert_copy(const Tensor& in, const Tensor& out);

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
