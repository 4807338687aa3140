// double -> float32 and int64 -> float32 as integer work on the IEEE-754 bits, rounded to nearest
// even exactly as static_cast<float> does, so that cores without a double-precision FPU convert a
// scalar argument without the soft-double helpers (__truncdfsf2, __floatdisf, __floatdidf).
#pragma once
#include <stdint.h>
#include <string.h>

namespace etmcu {
namespace float_convert {

// Shift count that brings v's leading one to bit 31 (v != 0). A binary search rather than
// __builtin_clz: cores without a CLZ instruction (RV32IMC, Armv6-M) would call __clzsi2.
inline int32_t leading_zeros(uint32_t v) {
  int32_t n = 0;
  if ((v >> 16) == 0) n += 16, v <<= 16;
  if ((v >> 24) == 0) n += 8, v <<= 8;
  if ((v >> 28) == 0) n += 4, v <<= 4;
  if ((v >> 30) == 0) n += 2, v <<= 2;
  if ((v >> 31) == 0) n += 1;
  return n;
}

// The float32 bits of (-1)^sign * m * 2^(exp - 31), m with its leading one at bit 31, and `sticky`
// set when nonzero bits below m were dropped: rounded to nearest even, gradual underflow to
// subnormals and zero, overflow to infinity. (Out of line: one copy for every caller.)
__attribute__((noinline)) inline uint32_t pack_f32(uint32_t sign, int32_t exp, uint32_t m,
                                                   bool sticky) {
  const uint32_t s = sign ? 0x80000000u : 0u;
  const int32_t biased = exp + 127;
  if (biased >= 255) return s | 0x7f800000u;
  // bits of m below the float's last mantissa bit: 8 for a normal result, more for a subnormal
  const int32_t drop = biased >= 1 ? 8 : 9 - biased;
  if (drop > 32) return s;  // below half the smallest subnormal
  uint32_t q, rem, half;
  if (drop == 32) {
    q = 0, rem = m, half = 0x80000000u;
  } else {
    q = m >> drop, rem = m & ((1u << drop) - 1u), half = 1u << (drop - 1);
  }
  // the tie is exact only without sticky bits
  if (rem > half || (rem == half && (sticky || (q & 1u)))) ++q;
  // Normal: q has its leading one at bit 23 (carried to bit 24 by the rounding: the exponent
  // field absorbs it). Subnormal: q < 2^23, or exactly 2^23 when rounding reached the smallest
  // normal; the exponent field is then q's bit 23.
  if (biased >= 1) return s | ((static_cast<uint32_t>(biased - 1) << 23) + q);
  return s | q;
}

// A finite nonzero float32 (bits b, sign ignored) as m * 2^(e - 23) with m in [2^23, 2^24): the
// leading one made explicit, a subnormal normalised (e below -126). (Out of line: one copy.)
__attribute__((noinline)) inline void unpack_f32(uint32_t b, uint32_t* m_out, int32_t* e_out) {
  uint32_t m = b & 0x7fffffu;
  int32_t e = static_cast<int32_t>((b >> 23) & 0xffu);
  if (e == 0) {
    const int32_t n = leading_zeros(m) - 8;
    m <<= n;
    e = -126 - n;
  } else {
    m |= 0x800000u;
    e -= 127;
  }
  *m_out = m;
  *e_out = e;
}

// static_cast<float>(d) for the double with bits hi:lo (hi holds sign, exponent and the top 20
// mantissa bits). NaNs stay NaN with the sign and the top mantissa bits, made quiet.
inline uint32_t double_bits_to_float_bits(uint32_t hi, uint32_t lo) {
  const uint32_t sign = hi >> 31;
  const int32_t e = static_cast<int32_t>((hi >> 20) & 0x7ffu);
  const uint32_t frac_hi = hi & 0xfffffu;
  if (e == 0x7ff) {
    if ((frac_hi | lo) == 0) return (sign << 31) | 0x7f800000u;
    return (sign << 31) | 0x7fc00000u | (frac_hi << 3) | (lo >> 29);
  }
  if (e == 0) return sign << 31;  // zero or a double subnormal (< 2^-1022): float zero
  // 53-bit mantissa 1.frac: its top 32 bits, the other 21 into the sticky bit
  const uint32_t m = 0x80000000u | (frac_hi << 11) | (lo >> 21);
  return pack_f32(sign, e - 1023, m, (lo & 0x1fffffu) != 0);
}

inline uint32_t double_to_float_bits(double d) {
  uint32_t w[2];
  memcpy(w, &d, 8);
  // word order of a double in memory: little endian on every target here, checked on the host
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return double_bits_to_float_bits(w[0], w[1]);
#else
  return double_bits_to_float_bits(w[1], w[0]);
#endif
}

// static_cast<double>(v) for an int64, as the double's words: hi (sign, exponent, top 20
// mantissa bits) and lo. Magnitudes of 2^53 and above round to 53 bits, nearest even.
inline void int64_to_double_bits(int64_t v, uint32_t* hi_out, uint32_t* lo_out) {
  *hi_out = 0, *lo_out = 0;
  if (v == 0) return;
  const uint32_t sign = v < 0 ? 0x80000000u : 0u;
  // magnitude in two words (INT64_MIN's magnitude 2^63 fits the unsigned form)
  const uint64_t mag = sign ? 0u - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  uint32_t hi = static_cast<uint32_t>(mag >> 32), lo = static_cast<uint32_t>(mag);
  // normalise hi:lo so that the leading one is bit 63; the value is 2^exp times 1.fraction
  int32_t exp;
  if (hi == 0) {
    const int32_t n = leading_zeros(lo);
    hi = lo << n, lo = 0, exp = 31 - n;
  } else {
    const int32_t n = leading_zeros(hi);
    if (n != 0) hi = (hi << n) | (lo >> (32 - n)), lo <<= n;
    exp = 63 - n;
  }
  // keep 53 bits (hi:lo >> 11), the 11 dropped bits rounded to nearest even
  const uint32_t dropped = lo & 0x7ffu;
  uint32_t k_lo = (lo >> 11) | (hi << 21), k_hi = hi >> 11;
  if (dropped > 0x400u || (dropped == 0x400u && (k_lo & 1u))) {
    if (++k_lo == 0) ++k_hi;
    if (k_hi == (1u << 21)) k_hi >>= 1, ++exp;  // 2^53: the mantissa is all zeros again
  }
  *hi_out = sign | (static_cast<uint32_t>(exp + 1023) << 20) | (k_hi & 0xfffffu);
  *lo_out = k_lo;
}

// static_cast<float>(v) for an int64: one rounding to nearest even (PyTorch's Int Scalar read as
// float, e.g. add's alpha), without __floatdisf.
inline uint32_t int64_to_float_bits(int64_t v) {
  if (v == 0) return 0;
  const uint32_t sign = v < 0 ? 1u : 0u;
  const uint64_t mag = sign ? 0u - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  uint32_t hi = static_cast<uint32_t>(mag >> 32), lo = static_cast<uint32_t>(mag);
  if (hi == 0) {  // below 2^32: the leading one brought to bit 31, nothing dropped
    const int32_t n = leading_zeros(lo);
    return pack_f32(sign, 31 - n, lo << n, false);
  }
  const int32_t n = leading_zeros(hi);
  const uint32_t top = n ? (hi << n) | (lo >> (32 - n)) : hi;
  return pack_f32(sign, 63 - n, top, (lo << n) != 0);
}

// static_cast<float>(static_cast<double>(v)) for an int64: the value an Int scalar had when read
// as a double and then narrowed (for |v| < 2^53, exactly static_cast<float>(v)).
inline uint32_t int64_to_float_bits_via_double(int64_t v) {
  uint32_t hi, lo;
  int64_to_double_bits(v, &hi, &lo);
  return double_bits_to_float_bits(hi, lo);
}

inline float float_from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

}  // namespace float_convert
}  // namespace etmcu
