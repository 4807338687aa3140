// quantize_per_tensor / dequantize_per_tensor for cores without an FPU, as integer arithmetic on
// the IEEE-754 bits, bit-exact with the float32 loops of util/quantize_io.h (one float32 multiply
// rounded to nearest even, then rounding to an integer, nearest even; or float(q - zp) * scale),
// without the soft-float calls (__mulsf3, rintf, the comparisons and conversions: ~250 cycles per
// element on the CV32E40P, about 35 here). Every positive finite scale is covered (the argument
// checks reject the others), so these cores link no float32 loop at all; and the reciprocal
// 1.0f / scale both loops start from is computed here too (reciprocal_bits), without __divsf3.
#pragma once
#include <stdint.h>
#include <string.h>

#include "runtime/core/float_convert.h"

namespace etmcu {
namespace kernels {
namespace int8 {

inline uint32_t float_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

// A float32 inv_scale > 0 as mantissa and exponent: inv_scale = mant * 2^(exp - 23).
struct QuantizeBits {
  uint32_t mant;  // 24 bits, leading one included
  int32_t exp;
  int32_t zp, qmin, qmax;
  int32_t zero;  // the result of a zero or tiny x: zp clamped to [qmin, qmax]
};

// The float32 bits of 1.0f / scale, for a scale > 0 given by its bits, finite and nonzero
// (subnormals included): correctly rounded like the FPU's or __divsf3's division, by a 32-step
// long division of the mantissas. Results overflow to infinity and underflow to subnormals.
inline uint32_t reciprocal_bits(uint32_t sb) {
  uint32_t m;
  int32_t e;
  float_convert::unpack_f32(sb, &m, &e);
  // scale = (m / 2^23) * 2^e, so 1 / scale = (2^23 / m) * 2^-e
  if (m == 0x800000u) return float_convert::pack_f32(0, -e, 0x80000000u, false);  // a power of 2
  // q = floor(2^55 / m) in (2^31, 2^32), i.e. 2^23 / m with 32 bits, the remainder as sticky bit
  uint32_t r = 0x800000u, q = 0;
  for (int i = 0; i < 32; ++i) {
    r <<= 1;  // r < m < 2^24 before, so no overflow
    q <<= 1;
    if (r >= m) {
      r -= m;
      q |= 1u;
    }
  }
  return float_convert::pack_f32(0, -1 - e, q, r != 0);
}

// inv_scale > 0, not NaN (1.0f / a positive finite scale): normal, subnormal (normalised here,
// so exp goes below -126) or infinite. Infinity is the exponent 200: every nonzero x, subnormal
// ones included, then lands at >= 2^51 and takes qmin or qmax like x * inf, while zero and NaN x
// still give the zero point (0 * inf is NaN).
inline QuantizeBits quantize_bits_params(float inv_scale, int32_t zp, int32_t qmin, int32_t qmax) {
  const uint32_t b = float_bits(inv_scale);
  const int32_t zero = zp < qmin ? qmin : (zp > qmax ? qmax : zp);
  if (b >= 0x7f800000u) return QuantizeBits{0x800000u, 200, zp, qmin, qmax, zero};
  uint32_t m;
  int32_t e;
  float_convert::unpack_f32(b, &m, &e);
  return QuantizeBits{m, e, zp, qmin, qmax, zero};
}

// The general case of quantize_bits (every input; quantize_bits_fast covers the common ones).
inline int32_t quantize_bits_general(uint32_t xb, const QuantizeBits& q) {
  const uint32_t ax = xb & 0x7fffffffu;
  const bool neg = (xb >> 31) != 0;
  int32_t v;
  if (ax >= 0x7f800000u || ax == 0) {  // NaN and zero (also 0 * inf): the zero point
    v = ax > 0x7f800000u || ax == 0 ? q.zp : (neg ? q.qmin : q.qmax);
  } else {
    // x = mx * 2^(ex - 23), mx in [2^23, 2^24) (a subnormal x normalised)
    uint32_t mx;
    int32_t ex;
    float_convert::unpack_f32(ax, &mx, &ex);
    // p = mx * mant in [2^46, 2^48): hi = p >> 16, and lo's top 16 bits are p's low 16 bits
    const uint32_t a = mx << 8, b = q.mant << 8;
    const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
    const uint32_t lo = a * b;
    int32_t e = ex + q.exp;  // x * inv = p * 2^(e - 46)
    // the float32 product m * 2^(e - 23): p rounded to 24 bits, i.e. hi by 7 (p < 2^47) or 8 bits
    uint32_t t = hi | (lo != 0 ? 1u : 0u);
    if (hi >> 31) {
      t = (t >> 1) | (t & 1u);
      ++e;
    }
    uint32_t m = (t + 0x3fu + ((t >> 7) & 1u)) >> 7;
    if (m == (1u << 24)) {
      m >>= 1;
      ++e;
    }
    // nearbyint(m * 2^(e - 23)), k = 23 - e fraction bits
    int32_t r;
    if (e >= 30) {  // >= 2^30 (also a float32 overflow to infinity)
      v = neg ? q.qmin : q.qmax;
      return v < q.qmin ? q.qmin : (v > q.qmax ? q.qmax : v);
    }
    const int32_t k = 23 - e;
    if (k <= 0)
      r = static_cast<int32_t>(m << -k);
    else if (k > 24)  // below 0.5 (also every float32 underflow to a subnormal or zero)
      r = 0;
    else
      r = static_cast<int32_t>((m + (1u << (k - 1)) - 1u + ((m >> k) & 1u)) >> k);
    v = q.zp + (neg ? -r : r);
  }
  return v < q.qmin ? q.qmin : (v > q.qmax ? q.qmax : v);
}

// quantize_bits (below) for the inputs nearly every element is: zero, or a normal x whose scaled
// value is below 2^23 in magnitude; false for the rest (subnormal, infinity, NaN, products of
// 2^23 and more), which quantize_bits then computes. The same steps with their
// branches folded: the product's normalisation shift is a 0/1 shift keeping the sticky bit, a carry
// of the 24-bit rounding to 2^24 is left in m (m * 2^(e - 23) is the same value), the sign is
// applied by xor/subtract.
__attribute__((always_inline)) inline bool quantize_bits_fast(uint32_t xb, const QuantizeBits& q,
                                                              int32_t* out) {
  const uint32_t ax = xb & 0x7fffffffu;
  if (ax - 0x00800000u >= 0x7f000000u) {  // zero, subnormal, infinity, NaN
    if (ax != 0) return false;
    *out = q.zero;
    return true;
  }
  // e0 = x's exponent + inv_scale's: |x * inv_scale| <= 2^(e0 + 2) even after the float32
  // rounding, so e0 <= -3 gives at most 0.5, which rounds to the even 0 (inputs near zero are
  // common: no multiply for them)
  if (static_cast<int32_t>(ax >> 23) - 127 + q.exp < -2) {
    *out = q.zero;
    return true;
  }
  const uint32_t a = (ax << 8) | 0x80000000u, b = q.mant << 8;
  const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
  const uint32_t lo = a * b;
  const uint32_t top = hi >> 31;
  uint32_t t = hi | (lo != 0 ? 1u : 0u);
  t = (t >> top) | (t & top);
  const int32_t e = static_cast<int32_t>(ax >> 23) - 127 + q.exp + static_cast<int32_t>(top);
  const uint32_t m = (t + 0x3fu + ((t >> 7) & 1u)) >> 7;
  const int32_t k = 23 - e;  // fraction bits of m
  if (k > 24) {  // e <= -2: below 0.5, or 0.5 by the rounding's carry, which rounds to 0
    *out = q.zero;
    return true;
  }
  if (k < 1) return false;  // >= 2^23
  int32_t r = static_cast<int32_t>((m + (1u << (k - 1)) - 1u + ((m >> k) & 1u)) >> k);
  const int32_t sign = static_cast<int32_t>(xb) >> 31;
  const int32_t v = q.zp + ((r ^ sign) - sign);
  *out = v < q.qmin ? q.qmin : (v > q.qmax ? q.qmax : v);
  return true;
}

// clamp(zp + nearbyintf(float32(inv_scale * x)), qmin, qmax), with the float loop's guards: a
// rounded value >= 2^30 gives qmax, <= -2^30 qmin, NaN the zero point. 32-bit arithmetic only:
// the 48-bit mantissa product comes from one mulhu/mul pair of the mantissas shifted left by 8,
// and both roundings to nearest even are one add and shift each (the sticky bits folded into
// the lowest bit). (quantize_bits_fast first, this for what it leaves.)
__attribute__((always_inline)) inline int32_t quantize_bits(uint32_t xb, const QuantizeBits& q) {
  int32_t fast;
  if (quantize_bits_fast(xb, q, &fast)) return fast;
  return quantize_bits_general(xb, q);
}

// A float32 scale > 0, finite, as mantissa and exponent: scale = mant * 2^(exp - 23), a subnormal
// scale normalised (exp below -126).
inline void dequantize_bits_params(float scale, uint32_t* mant, int32_t* exp) {
  float_convert::unpack_f32(float_bits(scale), mant, exp);
}

// float(d) * scale as bits, |d| < 2^17 (q - zp of int16 values), from dequantize_bits_params:
// the exact product |d| * scale_mant (< 2^41) rounded once to float32, nearest even, with
// subnormal results and overflow to infinity (float_convert::pack_f32).
inline uint32_t dequantize_bits(int32_t d, uint32_t scale_mant, int32_t scale_exp) {
  if (d == 0) return 0;  // +0.0f (scale > 0)
  const uint32_t sign = d < 0 ? 1u : 0u;
  const uint64_t p = static_cast<uint64_t>(static_cast<uint32_t>(d < 0 ? -d : d)) * scale_mant;
  const uint32_t hi = static_cast<uint32_t>(p >> 32), lo = static_cast<uint32_t>(p);
  // p's leading one moved to bit 31 of m; its position L gives value = m * 2^(L - 31 + exp - 23)
  if (hi != 0) {  // hi < 2^9: n >= 23, so lo >> (32 - n) is a defined shift
    const int32_t n = float_convert::leading_zeros(hi);
    return float_convert::pack_f32(sign, 63 - n + scale_exp - 23, (hi << n) | (lo >> (32 - n)),
                                   (lo << n) != 0);
  }
  const int32_t n = float_convert::leading_zeros(lo);
  return float_convert::pack_f32(sign, 31 - n + scale_exp - 23, lo << n, false);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
