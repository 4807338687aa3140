// Shared pieces of the quantized_decomposed kernels: argument checks, the integer dtypes they
// quantize to, upstream's rounding (float32 reciprocal, nearest-even) and a strided walk.
#pragma once
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel.h"
#include "kernels/api/tensor_check.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace etmcu {
namespace kernels {
namespace quant {

inline bool is_tensor(Span<EValue*> args, size_t i) { return is_well_formed_tensor_arg(args, i); }
inline bool is_int(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_int();
}
inline bool is_float(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && (args[i]->is_double() || args[i]->is_int());
}
inline bool is_none(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_none();
}
inline bool is_return_of(Span<EValue*> args, size_t ret, size_t out) {
  return ret < args.size() && args[ret] != nullptr && args[ret]->is_tensor() &&
         args[out]->is_tensor() &&
         args[ret]->payload.as_tensor->data == args[out]->payload.as_tensor->data;
}
inline Tensor& tensor(Span<EValue*> args, size_t i) { return args[i]->to_tensor(); }

// Range of the integer dtypes quantization targets; false for others.
inline bool quant_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte:
      *lo = 0, *hi = 255;
      return true;
    case ScalarType::Char:
      *lo = -128, *hi = 127;
      return true;
    case ScalarType::Short:
      *lo = -32768, *hi = 32767;
      return true;
    case ScalarType::UInt16:
      *lo = 0, *hi = 65535;
      return true;
    case ScalarType::Int:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return true;
    default:
      return false;
  }
}

inline int64_t load_int(const void* p, ScalarType t, size_t i) {
  switch (t) {
    case ScalarType::Byte:
      return static_cast<const uint8_t*>(p)[i];
    case ScalarType::Char:
      return static_cast<const int8_t*>(p)[i];
    case ScalarType::Short:
      return static_cast<const int16_t*>(p)[i];
    case ScalarType::UInt16:
      return static_cast<const uint16_t*>(p)[i];
    case ScalarType::Int:
      return static_cast<const int32_t*>(p)[i];
    case ScalarType::Long:
      return static_cast<const int64_t*>(p)[i];
    default:
      return 0;
  }
}
inline void store_int(void* p, ScalarType t, size_t i, int64_t v) {
  switch (t) {
    case ScalarType::Byte:
      static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v);
      break;
    case ScalarType::Char:
      static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
      break;
    case ScalarType::Short:
      static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
      break;
    case ScalarType::UInt16:
      static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
      break;
    case ScalarType::Int:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      break;
    default:
      break;
  }
}
// Reads a float input element (f32, or f64 narrowed after the multiply, as upstream does).
inline float scaled_input(const void* p, ScalarType t, size_t i, float inv_scale) {
  if (t == ScalarType::Double)
    return static_cast<float>(static_cast<double>(inv_scale) * static_cast<const double*>(p)[i]);
  return inv_scale * static_cast<const float*>(p)[i];
}

// upstream quantize_val: zero_point + nearbyint(x * (1.0f / float(scale))), clamped.
inline int64_t quantize_one(float scaled, int64_t zero_point, int64_t qmin, int64_t qmax) {
  const float r = nearbyintf(scaled);
  int64_t q;
  if (r != r) {
    q = zero_point;
  } else if (r >= 9.0e15f || r <= -9.0e15f) {
    q = r > 0 ? qmax : qmin;
  } else {
    q = static_cast<int64_t>(static_cast<float>(static_cast<int32_t>(zero_point)) + r);
  }
  return q < qmin ? qmin : (q > qmax ? qmax : q);
}

// Visits every element in logical row-major order with both tensors' element offsets and the
// index along `axis` (-1: none).
template <typename F>
inline void walk2(const Tensor& a, const Tensor& b, int axis, F&& f) {
  int64_t sa[kTensorMaxDim], sb[kTensorMaxDim];
  a.strides(sa);
  b.strides(sb);
  int32_t idx[kTensorMaxDim] = {0};
  const size_t n = a.numel();
  int64_t oa = 0, ob = 0;
  for (size_t i = 0; i < n; ++i) {
    f(static_cast<size_t>(oa), static_cast<size_t>(ob), axis >= 0 ? idx[axis] : 0);
    for (int d = a.dim - 1; d >= 0; --d) {
      oa += sa[d];
      ob += sb[d];
      if (++idx[d] < a.sizes[d]) break;
      oa -= sa[d] * a.sizes[d];
      ob -= sb[d] * a.sizes[d];
      idx[d] = 0;
    }
  }
}

}  // namespace quant
}  // namespace kernels
}  // namespace etmcu
