// add/sub/mul/div with PyTorch type promotion and broadcasting: one template per op kind, so each
// op file only links the code of its own kind.
#pragma once
#include <math.h>
#include <stdint.h>

#include "kernels/portable/util/elementwise.h"

namespace etmcu {
namespace kernels {
namespace util {

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kDivTrunc, kDivFloor };

inline float floor_div(float a, float b) {
  // Python/PyTorch floor division on floats: exact quotient of (a - fmod(a, b)) / b, rounded.
  if (b == 0.0f) return a / b;
  float mod = fmodf(a, b);
  float div = (a - mod) / b;
  if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
  if (div == 0.0f) return copysignf(0.0f, a / b);
  float fl = floorf(div);
  if (div - fl > 0.5f) fl += 1.0f;
  return fl;
}
inline double floor_div(double a, double b) {
  if (b == 0.0) return a / b;
  double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
  if (div == 0.0) return copysign(0.0, a / b);
  double fl = floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}
inline float trunc_div(float a, float b) { return truncf(a / b); }
inline double trunc_div(double a, double b) { return trunc(a / b); }

template <BinaryKind K, typename C>
void binary_compute(const Tensor& a, const Tensor& b, const Tensor& out, double alpha_d,
                    bool* div_by_zero) {
  if constexpr (K == BinaryKind::kAdd || K == BinaryKind::kSub) {
    C alpha;
    if constexpr (IsFloat<C>::value)
      alpha = static_cast<C>(alpha_d);
    else
      alpha = static_cast<C>(to_int64(alpha_d));  // integral alpha (float alpha rejected)
    const bool unit = alpha_d == 1.0;  // keeps a + b exact, as PyTorch does for alpha = 1
    if (K == BinaryKind::kAdd) {
      if (unit)
        map_binary<C>(a, b, out, [](C x, C y) { return wrap_add(x, y); });
      else
        map_binary<C>(a, b, out, [alpha](C x, C y) { return wrap_add(x, wrap_mul(alpha, y)); });
    } else {
      if (unit)
        map_binary<C>(a, b, out, [](C x, C y) { return wrap_sub(x, y); });
      else
        map_binary<C>(a, b, out, [alpha](C x, C y) { return wrap_sub(x, wrap_mul(alpha, y)); });
    }
  } else if constexpr (K == BinaryKind::kMul) {
    map_binary<C>(a, b, out, [](C x, C y) { return wrap_mul(x, y); });
  } else if constexpr (K == BinaryKind::kDiv) {
    map_binary<C>(a, b, out, [](C x, C y) { return static_cast<C>(x / y); });
  } else if constexpr (IsFloat<C>::value) {  // floating trunc/floor division
    if (K == BinaryKind::kDivTrunc)
      map_binary<C>(a, b, out, [](C x, C y) { return trunc_div(x, y); });
    else
      map_binary<C>(a, b, out, [](C x, C y) { return floor_div(x, y); });
  } else {  // integer trunc/floor division: no trap on zero, PyTorch raises instead
    bool* z = div_by_zero;
    map_binary<C>(a, b, out, [z](C x, C y) {
      if (y == 0) {
        *z = true;
        return static_cast<C>(0);
      }
      if (y == -1) return static_cast<C>(0 - static_cast<uint64_t>(x));  // no INT64_MIN / -1 trap
      C q = x / y;
      if (K == BinaryKind::kDivFloor && (x % y != 0) && ((x < 0) != (y < 0))) --q;
      return q;
    });
  }
}

// out = a <op> b (alpha-scaled b for add/sub). `b_scalar` marks a wrapped Scalar argument.
template <BinaryKind K>
Error binary_op(KernelContext& ctx, const Tensor& a, const Tensor& b, bool b_scalar, double alpha,
                bool alpha_is_float, const Tensor& out) {
  if (!is_supported_dtype(a.dtype) || !(b_scalar || is_supported_dtype(b.dtype)) ||
      !is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "binary op: unsupported dtype");
  const Tensor* ins[2] = {&a, &b};
  if (!is_broadcast_shape(out, ins, 2))
    return ctx.fail(Error::InvalidArgument, "binary op: out shape is not the broadcast shape");
  const ScalarType common = result_type(a, b.dtype, b.dim == 0, b_scalar);
  ScalarType res = common;
  if (K == BinaryKind::kDiv && !is_floating(common)) res = ScalarType::Float;  // true division
  if (!can_cast(res, out.dtype))
    return ctx.fail(Error::InvalidType, "binary op: result dtype cannot be cast to out dtype");
  if (K == BinaryKind::kSub && common == ScalarType::Bool)
    return ctx.fail(Error::InvalidArgument, "sub: bool operands are not supported");
  if ((K == BinaryKind::kAdd || K == BinaryKind::kSub) && !is_floating(common) && alpha_is_float)
    return ctx.fail(Error::InvalidArgument, "add/sub: float alpha with integral operands");
  // A 0-dim `other` (Scalar or 0-dim tensor) of another dtype is converted once to the compute
  // dtype, as PyTorch does, so the typed fast paths apply (x + 1 on f32, i32 * 3, ...).
  Tensor b_conv;
  alignas(8) uint8_t b_buf[8];  // holds any dtype
  const Tensor* pb = &b;
  if (b.dim == 0 && b.dtype != res) {
    convert_element(b.data, b.dtype, 0, b_buf, res, 0);
    b_conv.data = b_buf;
    b_conv.nbytes = sizeof(b_buf);
    b_conv.dtype = res;
    b_conv.dim = 0;
    pb = &b_conv;
  }
  bool div_by_zero = false;
  if (res == ScalarType::Double) {
    // Only the rounding divisions call libm (floor/trunc/fmod) in double.
    if constexpr (kF64)
      binary_compute<K, double>(a, *pb, out, alpha, &div_by_zero);
    else
      return ctx.fail(Error::NotSupported, "binary op: f64 is disabled in this build");
  } else if (res == ScalarType::Float) {
    binary_compute<K, float>(a, *pb, out, alpha, &div_by_zero);
  } else if (res != ScalarType::Bool && a.dtype == res && pb->dtype == res && out.dtype == res) {
    // Same integer dtype everywhere: compute in it (wrapping like PyTorch), typed fast paths.
    dispatch_all(res, [&](auto tag) {
      using T = decltype(tag);
      // (true division never gets here: its integer inputs compute in float)
      if constexpr (!IsFloat<T>::value && !IsBool<T>::value && K != BinaryKind::kDiv)
        binary_compute<K, T>(a, *pb, out, alpha, &div_by_zero);
    });
  } else {
    // Mixed integer dtypes compute in int64 (not instantiated in float-only builds, where integer
    // tensors never get this far: is_valid_tensor_arg rejects them).
    if constexpr (kAnyIntegerDtype)
      binary_compute<K, int64_t>(a, *pb, out, alpha, &div_by_zero);
    else
      return ctx.fail(Error::InvalidType, "binary op: integer dtypes are not in this build");
  }
  if (div_by_zero) return ctx.fail(Error::InvalidArgument, "div: integer division by zero");
  return Error::Ok;
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
