// add/sub/mul/div with PyTorch type promotion and broadcasting: one template per op kind, so each
// op file only links the code of its own kind.
#pragma once
#include <math.h>
#include <stdint.h>

#include "kernels/portable/util/elementwise.h"
#include "runtime/core/float_convert.h"

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

// An integer in int64 wrapped to integer dtype t, as a conversion to t and back would.
inline int64_t wrap_to_dtype(int64_t v, ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return static_cast<uint8_t>(v);
    case ScalarType::Char:
      return static_cast<int8_t>(v);
    case ScalarType::Short:
      return static_cast<int16_t>(v);
    case ScalarType::Int:
      return static_cast<int32_t>(v);
    case ScalarType::Bool:
      return v != 0;
    default:
      return v;
  }
}

// A Scalar argument (alpha) in the compute type C. Integral C never sees a float alpha (rejected
// before), so the double path is for floating C.
template <typename C>
inline C scalar_to(const EValue& v) {
  if constexpr (IsFloat<C>::value && sizeof(C) == 4) {  // float, on the IEEE bits (no soft-double)
    using float_convert::float_from_bits;
    if (v.is_double()) return float_from_bits(float_convert::double_to_float_bits(v.to_double()));
    if (v.is_bool()) return v.to_bool() ? 1.0f : 0.0f;
    return float_from_bits(float_convert::int64_to_float_bits(v.to_int()));
  }
  if (v.is_double()) {
    if constexpr (IsFloat<C>::value)
      return static_cast<C>(v.to_double());
    else
      return static_cast<C>(to_int64(v.to_double()));
  }
  if (v.is_bool()) return static_cast<C>(v.to_bool() ? 1 : 0);
  return static_cast<C>(v.to_int());
}

// alpha == 1, decided without double arithmetic (1.0 has one bit pattern).
inline bool is_unit_scalar(const EValue& v) {
  if (v.is_double()) {
    uint64_t bits;
    __builtin_memcpy(&bits, &v.payload.as_double, sizeof(bits));
    return bits == 0x3ff0000000000000ull;
  }
  if (v.is_bool()) return v.to_bool();
  return v.to_int() == 1;
}

// out = op(a, b) in C. A Scalar `b` (f64/i64/bool, any dtype) or a one-element tensor `b` of
// another dtype is converted once, to the result dtype `res` and then to C, as PyTorch does, and
// joins as a one-element C tensor; other tensors (this build's dtypes) convert per element.
template <typename C, bool kScalarOther, typename FastOp, typename Op>
bool binary_map(const Tensor& a, const Tensor& b, ScalarType res, const Tensor& out, FastOp fast,
                Op op) {
  if (!kScalarOther && (b.dtype == dtype_of<C>() || b.numel() != 1))
    return map_binary<C>(a, b, out, fast, op);
  C s = kScalarOther ? load_as<C>(b.data, b.dtype, 0) : load_as<C, true>(b.data, b.dtype, 0);
  if constexpr (!IsFloat<C>::value && sizeof(C) == 8) s = static_cast<C>(wrap_to_dtype(s, res));
  Tensor one;
  one.data = &s;
  one.nbytes = sizeof(s);
  one.dtype = dtype_of<C>();
  one.dim = 0;
  return map_binary<C>(a, one, out, fast, op);
}
template <typename C, bool kScalarOther, typename Op>
bool binary_map(const Tensor& a, const Tensor& b, ScalarType res, const Tensor& out, Op op) {
  return binary_map<C, kScalarOther>(a, b, res, out, op, op);
}

// False: the case needs a kernel path this build left out (nothing written).
template <BinaryKind K, typename C, bool kScalarOther>
bool binary_compute(const Tensor& a, const Tensor& b, ScalarType res, const Tensor& out,
                    const EValue* alpha_v, bool* div_by_zero) {
  if constexpr (K == BinaryKind::kAdd || K == BinaryKind::kSub) {
    // alpha = 1 stays a plain a + b (exact, as in PyTorch; no alpha argument means 1). The
    // contiguous loops get a lambda per case, the general (strided) path one for both.
    const bool unit = alpha_v == nullptr || is_unit_scalar(*alpha_v);
    if (!unit && !kernel_path(kPathBinaryScaled)) return false;
    const C alpha = unit ? static_cast<C>(1) : scalar_to<C>(*alpha_v);
    auto general = [alpha, unit](C x, C y) {
      const C t = unit ? y : wrap_mul(alpha, y);
      return K == BinaryKind::kAdd ? wrap_add(x, t) : wrap_sub(x, t);
    };
    if (unit) {
      if (K == BinaryKind::kAdd)
        return binary_map<C, kScalarOther>(
            a, b, res, out, [](C x, C y) { return wrap_add(x, y); }, general);
      else
        return binary_map<C, kScalarOther>(
            a, b, res, out, [](C x, C y) { return wrap_sub(x, y); }, general);
    } else {
      return binary_map<C, kScalarOther>(
          a, b, res, out,
          [alpha](C x, C y) {
            return K == BinaryKind::kAdd ? wrap_add(x, wrap_mul(alpha, y))
                                         : wrap_sub(x, wrap_mul(alpha, y));
          },
          general);
    }
  } else if constexpr (K == BinaryKind::kMul) {
    return binary_map<C, kScalarOther>(a, b, res, out, [](C x, C y) { return wrap_mul(x, y); });
  } else if constexpr (K == BinaryKind::kDiv) {
    return binary_map<C, kScalarOther>(a, b, res, out,
                                       [](C x, C y) { return static_cast<C>(x / y); });
  } else if constexpr (IsFloat<C>::value) {  // floating trunc/floor division
    if (K == BinaryKind::kDivTrunc)
      return binary_map<C, kScalarOther>(a, b, res, out, [](C x, C y) { return trunc_div(x, y); });
    else
      return binary_map<C, kScalarOther>(a, b, res, out, [](C x, C y) { return floor_div(x, y); });
  } else {  // integer trunc/floor division: no trap on zero, PyTorch raises instead
    bool* z = div_by_zero;
    return binary_map<C, kScalarOther>(a, b, res, out, [z](C x, C y) {
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

// out = a <op> b (alpha-scaled b for add/sub; `alpha` nullptr for the ops without one). With
// kScalarOther, `b` is a wrapped Scalar argument (ScalarTensor), else a validated tensor.
template <BinaryKind K, bool kScalarOther>
Error binary_op(KernelContext& ctx, const Tensor& a, const Tensor& b, const EValue* alpha,
                const Tensor& out) {
  // Three tensors in a single-dtype build: all of that dtype, promotion known at compile time.
  constexpr bool kOneDtype = !kScalarOther && kSingleDtype != kUndefined;
  if (ETMCU_BAD_ARG(!(kOneDtype && is_supported_dtype(kSingleDtype)) &&
                    (!is_supported_dtype(a.dtype) ||
                     !(kScalarOther || is_supported_dtype(b.dtype)) ||
                     !is_supported_dtype(out.dtype))))
    return ctx.fail(Error::InvalidType, "binary op: unsupported dtype");
  const Tensor* ins[2] = {&a, &b};
  if (ETMCU_BAD_ARG(!is_broadcast_shape(out, ins, 2)))
    return ctx.fail(Error::InvalidArgument, "binary op: out shape is not the broadcast shape");
  const ScalarType common =
      kOneDtype ? kSingleDtype : result_type(a, b.dtype, b.dim == 0, kScalarOther);
  ScalarType res = common;
  if (K == BinaryKind::kDiv && !is_floating(common)) res = ScalarType::Float;  // true division
  if (ETMCU_BAD_ARG(!(kOneDtype && res == kSingleDtype) && !can_cast(res, out.dtype)))
    return ctx.fail(Error::InvalidType, "binary op: result dtype cannot be cast to out dtype");
  if (ETMCU_BAD_ARG(K == BinaryKind::kSub && common == ScalarType::Bool))
    return ctx.fail(Error::InvalidArgument, "sub: bool operands are not supported");
  if (ETMCU_BAD_ARG((K == BinaryKind::kAdd || K == BinaryKind::kSub) && !is_floating(common) &&
                    alpha != nullptr && alpha->is_double()))
    return ctx.fail(Error::InvalidArgument, "add/sub: float alpha with integral operands");
  bool div_by_zero = false, ok = true;
  if (res == ScalarType::Double) {
    // Only the rounding divisions call libm (floor/trunc/fmod) in double.
    if constexpr (kF64)
      ok = binary_compute<K, double, kScalarOther>(a, b, res, out, alpha, &div_by_zero);
    else
      return ctx.fail(Error::NotSupported, "binary op: f64 is disabled in this build");
  } else if (res == ScalarType::Float) {
    ok = binary_compute<K, float, kScalarOther>(a, b, res, out, alpha, &div_by_zero);
  } else if (res != ScalarType::Bool && a.dtype == res && out.dtype == res &&
             (b.dtype == res || b.numel() == 1)) {
    // Same integer dtype everywhere (a one-element b is converted to it): compute in it, wrapping
    // like PyTorch, with the typed fast paths.
    dispatch_all(res, [&](auto tag) {
      using T = decltype(tag);
      // (true division never gets here: its integer inputs compute in float)
      if constexpr (!IsFloat<T>::value && !IsBool<T>::value && K != BinaryKind::kDiv)
        ok = binary_compute<K, T, kScalarOther>(a, b, res, out, alpha, &div_by_zero);
    });
  } else {
    // Mixed integer dtypes compute in int64 (not instantiated in float-only builds, where integer
    // tensors never get this far: is_valid_tensor_arg rejects them).
    if constexpr (kAnyIntegerDtype)
      ok = binary_compute<K, int64_t, kScalarOther>(a, b, res, out, alpha, &div_by_zero);
    else
      return ctx.fail(Error::InvalidType, "binary op: integer dtypes are not in this build");
  }
  if (!ok) return kernel_path_missing(ctx);
  if (div_by_zero) return ctx.fail(Error::InvalidArgument, "div: integer division by zero");
  return Error::Ok;
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
