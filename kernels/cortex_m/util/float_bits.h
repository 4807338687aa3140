// quantize_per_tensor / dequantize_per_tensor for cores without an FPU, as integer arithmetic on
// the IEEE-754 bits, bit-exact with the float32 loops of util/quantize_io.h (one float32 multiply
// rounded to nearest even, then nearbyintf; or float(q - zp) * scale), without the soft-float
// calls (__mulsf3, rintf, the comparisons and conversions: ~250 cycles per element on the
// CV32E40P, about 35 here). Scales outside the range this covers keep the float loops (the
// caller asks quantize_bits_ok / dequantize_bits_ok once per call).
#pragma once
#include <stdint.h>
#include <string.h>

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
};

// inv_scale positive, normal and below 2^100 (so a subnormal x times it stays below 0.5).
inline bool quantize_bits_ok(float inv_scale) {
  const uint32_t b = float_bits(inv_scale);
  const int32_t e = static_cast<int32_t>(b >> 23);
  return (b >> 31) == 0 && e >= 1 && e <= 127 + 99;
}
inline QuantizeBits quantize_bits_params(float inv_scale, int32_t zp, int32_t qmin, int32_t qmax) {
  const uint32_t b = float_bits(inv_scale);
  return QuantizeBits{(b & 0x7fffffu) | 0x800000u, static_cast<int32_t>(b >> 23) - 127, zp, qmin,
                      qmax};
}

// The general case of quantize_bits (every input; quantize_bits_fast covers the common ones).
inline int32_t quantize_bits_general(uint32_t xb, const QuantizeBits& q) {
  const uint32_t ax = xb & 0x7fffffffu;
  const bool neg = (xb >> 31) != 0;
  int32_t v;
  if (ax - 0x00800000u >= 0x7f000000u) {  // zero, subnormal, infinity, NaN
    if (ax < 0x00800000u)                 // |x * inv_scale| < 0.5
      v = q.zp;
    else
      v = ax > 0x7f800000u ? q.zp : (neg ? q.qmin : q.qmax);
  } else {
    // p = mx * mant in [2^46, 2^48): hi = p >> 16, and lo's top 16 bits are p's low 16 bits
    const uint32_t a = (ax << 8) | 0x80000000u, b = q.mant << 8;
    const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
    const uint32_t lo = a * b;
    int32_t e = static_cast<int32_t>(ax >> 23) - 127 + q.exp;  // x * inv = p * 2^(e - 46)
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
    else if (k > 24)  // below 0.5 (also a float32 underflow)
      r = 0;
    else
      r = static_cast<int32_t>((m + (1u << (k - 1)) - 1u + ((m >> k) & 1u)) >> k);
    v = q.zp + (neg ? -r : r);
  }
  return v < q.qmin ? q.qmin : (v > q.qmax ? q.qmax : v);
}

// quantize_bits (below) for the inputs nearly every element is: a normal x whose scaled value is
// in [0.5, 2^23) in magnitude; false for the rest (zero, subnormal, infinity, NaN, tiny or huge
// products), which quantize_bits then computes. The same steps with their branches folded:
// the product's normalisation shift is a 0/1 shift keeping the sticky bit, a carry of the 24-bit
// rounding to 2^24 is left in m (m * 2^(e - 23) is the same value), the sign is applied by
// xor/subtract.
__attribute__((always_inline)) inline bool quantize_bits_fast(uint32_t xb, const QuantizeBits& q,
                                                              int32_t* out) {
  const uint32_t ax = xb & 0x7fffffffu;
  if (ax - 0x00800000u >= 0x7f000000u) return false;
  const uint32_t a = (ax << 8) | 0x80000000u, b = q.mant << 8;
  const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
  const uint32_t lo = a * b;
  const uint32_t top = hi >> 31;
  uint32_t t = hi | (lo != 0 ? 1u : 0u);
  t = (t >> top) | (t & top);
  const int32_t e = static_cast<int32_t>(ax >> 23) - 127 + q.exp + static_cast<int32_t>(top);
  const uint32_t m = (t + 0x3fu + ((t >> 7) & 1u)) >> 7;
  const int32_t k = 23 - e;  // fraction bits of m
  if (static_cast<uint32_t>(k - 1) >= 24u) return false;  // k outside [1, 24]
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

// scale positive and normal, and every product float(d) * scale with 1 <= |d| < 2^17 normal (its
// exponent is at most 18 above the scale's, the rounding's carry included).
inline bool dequantize_bits_ok(float scale) {
  const uint32_t b = float_bits(scale);
  const int32_t e = static_cast<int32_t>(b >> 23);
  return (b >> 31) == 0 && e >= 1 && e <= 254 - 18;
}

// float(d) * scale as bits, with scale_mant 24 bits (leading one) and scale = scale_mant *
// 2^(scale_exp - 23): the product |d| * scale_mant rounded to 24 bits, nearest even.
inline uint32_t dequantize_bits(int32_t d, uint32_t scale_mant, int32_t scale_exp) {
  if (d == 0) return 0;  // +0.0f (scale > 0)
  const uint32_t sign = d < 0 ? 0x80000000u : 0u;
  const uint64_t p = static_cast<uint64_t>(d < 0 ? -d : d) * scale_mant;  // < 2^41
  // leading bit position L of p: the value is p * 2^(scale_exp - 23) = (p / 2^L) * 2^(E), E =
  // scale_exp - 23 + L
  int32_t L = 23;
  const uint32_t high = static_cast<uint32_t>(p >> 32);
  if (high != 0) {  // int16 products reach 2^41
    L = 32;
    while ((high >> (L - 31)) != 0) ++L;
  } else {  // p = |d| * scale_mant < 2^32: find the top bit by halving (no 64-bit shifts)
    const uint32_t p32 = static_cast<uint32_t>(p);  // >= 2^23
    if (p32 >> 27) L = 27;
    if (p32 >> (L + 2)) L += 2;  // L + 2 <= 29
    while (L < 31 && (p32 >> (L + 1)) != 0) ++L;
  }
  int32_t e = scale_exp - 23 + L;
  uint32_t m;
  if (L <= 23) {
    m = static_cast<uint32_t>(p) << (23 - L);
  } else {
    const int sh = L - 23;
    m = static_cast<uint32_t>(p >> sh);
    const uint64_t rem = p & ((uint64_t(1) << sh) - 1u), half = uint64_t(1) << (sh - 1);
    if (rem > half || (rem == half && (m & 1u))) ++m;
    if (m == (1u << 24)) {
      m >>= 1;
      ++e;
    }
  }
  return sign | (static_cast<uint32_t>(e + 127) << 23) | (m & 0x7fffffu);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
