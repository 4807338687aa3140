// EValue: one operand of a method (tensor, scalar, string or list). Tags follow upstream's
// runtime Tag numbering. Lists are materialised at method load into method-allocator memory:
// ints as int64_t[], tensors as Tensor*[] (nullptr = None in an optional-tensor list).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/float_convert.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etmcu {

enum class Tag : uint32_t {
  None = 0,
  Tensor = 1,
  String = 2,
  Double = 3,
  Int = 4,
  Bool = 5,
  ListBool = 6,
  ListDouble = 7,
  ListInt = 8,
  ListTensor = 9,
  ListScalar = 10,
  ListOptionalTensor = 11,
};

struct EValue {
  union Payload {
    int64_t as_int;
    double as_double;
    bool as_bool;
    Tensor* as_tensor;
    struct {
      const void* data;
      uint32_t size;
    } as_span;  // String (chars, not NUL-counted) and every list kind
  } payload;
  Tag tag = Tag::None;

  EValue() { payload.as_int = 0; }
  static EValue from_int(int64_t v) {
    EValue e;
    e.tag = Tag::Int;
    e.payload.as_int = v;
    return e;
  }
  static EValue from_double(double v) {
    EValue e;
    e.tag = Tag::Double;
    e.payload.as_double = v;
    return e;
  }
  static EValue from_bool(bool v) {
    EValue e;
    e.tag = Tag::Bool;
    e.payload.as_bool = v;
    return e;
  }
  static EValue from_tensor(Tensor* t) {
    EValue e;
    e.tag = Tag::Tensor;
    e.payload.as_tensor = t;
    return e;
  }
  static EValue from_span(Tag tag, const void* data, uint32_t size) {
    EValue e;
    e.tag = tag;
    e.payload.as_span.data = data;
    e.payload.as_span.size = size;
    return e;
  }

  bool is_none() const { return tag == Tag::None; }
  bool is_tensor() const { return tag == Tag::Tensor; }
  bool is_int() const { return tag == Tag::Int; }
  bool is_double() const { return tag == Tag::Double; }
  bool is_bool() const { return tag == Tag::Bool; }
  bool is_string() const { return tag == Tag::String; }
  bool is_int_list() const { return tag == Tag::ListInt; }
  bool is_double_list() const { return tag == Tag::ListDouble; }
  bool is_bool_list() const { return tag == Tag::ListBool; }
  bool is_tensor_list() const { return tag == Tag::ListTensor; }
  bool is_optional_tensor_list() const { return tag == Tag::ListOptionalTensor; }
  // Int, Double and Bool are all "Scalar" in operator schemas.
  bool is_scalar() const { return is_int() || is_double() || is_bool(); }

  // Accessors: callers check the tag first (kernels do so once, at the top).
  Tensor& to_tensor() const { return *payload.as_tensor; }
  int64_t to_int() const { return payload.as_int; }
  double to_double() const { return payload.as_double; }
  bool to_bool() const { return payload.as_bool; }
  // Int, Double or Bool as double (Scalar arguments).
  double scalar_as_double() const {
    return is_double()
               ? payload.as_double
               : (is_bool() ? (payload.as_bool ? 1.0 : 0.0) : static_cast<double>(payload.as_int));
  }
  // Int, Double or Bool as float32, exactly static_cast<float>(scalar_as_double()) (both
  // roundings to nearest even), by integer work: no soft-double on cores without a double FPU.
  // (Out of line: one copy however many kernels read a scale.)
  __attribute__((noinline)) float scalar_as_float() const {
    if (is_bool()) return payload.as_bool ? 1.0f : 0.0f;
#if defined(__ARM_FP) && (__ARM_FP & 8)
    // A double-precision FPU (Cortex-M55, M7): the narrowing is one instruction, rounded to
    // nearest even as the integer form (the FPU's default mode: no flush-to-zero). int64 -> double
    // stays integer work (no __aeabi_l2d).
    if (is_double()) return static_cast<float>(payload.as_double);
    uint32_t w[2];
    float_convert::int64_to_double_bits(payload.as_int, &w[1], &w[0]);
    double d;
    memcpy(&d, w, sizeof(d));
    return static_cast<float>(d);
#else
    return float_convert::float_from_bits(
        is_double() ? float_convert::double_to_float_bits(payload.as_double)
                    : float_convert::int64_to_float_bits_via_double(payload.as_int));
#endif
  }
  Span<const char> to_string() const {
    return Span<const char>(static_cast<const char*>(payload.as_span.data), payload.as_span.size);
  }
  Span<const int64_t> to_int_list() const {
    return Span<const int64_t>(static_cast<const int64_t*>(payload.as_span.data),
                               payload.as_span.size);
  }
  Span<const double> to_double_list() const {
    return Span<const double>(static_cast<const double*>(payload.as_span.data),
                              payload.as_span.size);
  }
  Span<const bool> to_bool_list() const {
    return Span<const bool>(static_cast<const bool*>(payload.as_span.data), payload.as_span.size);
  }
  // ListTensor: never null entries. ListOptionalTensor: nullptr marks None.
  Span<Tensor* const> to_tensor_list() const {
    return Span<Tensor* const>(static_cast<Tensor* const*>(payload.as_span.data),
                               payload.as_span.size);
  }
};

}  // namespace etmcu
