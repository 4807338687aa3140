// CMSIS-NN's integer arithmetic (portable C semantics, default double rounding): saturating
// doubling high multiply, rounding divide by a power of two and requantization. Header-only.
#pragma once
#include <stdint.h>

namespace etmcu {
namespace kernels {
namespace cmsis {

constexpr int32_t kQ31Min = static_cast<int32_t>(0x80000000u);
constexpr int32_t kQ31Max = 0x7fffffff;

// Wrapping int32 arithmetic (CMSIS-NN relies on two's complement wrap; signed overflow is UB in
// C++).
inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// Saturating rounding doubling high multiply (VQRDMULH): round(m1 * m2 / 2^31), ties away from zero
// (the rounding constant follows the product's sign), INT32_MIN * INT32_MIN saturates.
inline int32_t doubling_high_mult(int32_t m1, int32_t m2) {
  int64_t mult = ((m1 < 0) != (m2 < 0)) ? (1 - (int64_t(1) << 30)) : (int64_t(1) << 30);
  mult += static_cast<int64_t>(m1) * m2;
  int32_t result = static_cast<int32_t>(mult / (int64_t(1) << 31));  // truncates toward zero
  if (m1 == m2 && m1 == kQ31Min) result = kQ31Max;
  return result;
}

// The requantization flavour: (m1 * m2 + 2^30) >> 31 with an arithmetic (flooring) shift, no
// saturation (multipliers are never INT32_MIN).
inline int32_t doubling_high_mult_no_sat(int32_t m1, int32_t m2) {
  const int64_t mult = (int64_t(1) << 30) + static_cast<int64_t>(m1) * m2;
  return static_cast<int32_t>(mult >> 31);
}

// Rounding divide by 2^exponent (exponent in [0, 31]); midpoints round away from zero.
inline int32_t divide_by_power_of_two(int32_t dividend, int32_t exponent) {
  const int32_t remainder_mask = static_cast<int32_t>((uint32_t(1) << exponent) - 1u);
  const int32_t remainder = remainder_mask & dividend;
  int32_t result = dividend >> exponent;
  int32_t threshold = remainder_mask >> 1;
  if (result < 0) ++threshold;
  if (remainder > threshold) ++result;
  return result;
}

// arm_nn_requantize (default build): a positive shift scales val by 2^shift before the doubling
// high multiply (wrapping), a negative one is a rounding right shift after it. shift in [-31, 30].
inline int32_t requantize(int32_t val, int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t right = shift > 0 ? 0 : -shift;
  return divide_by_power_of_two(
      doubling_high_mult_no_sat(wrap_mul(val, static_cast<int32_t>(uint32_t(1) << left)),
                                multiplier),
      right);
}

// requantize() with its per-channel parameters prepared once: the left shift as a multiplier
// and the right shift as a count, so a loop over many outputs of one channel has no shift
// branch. requantize(v, rq) == requantize(v, multiplier, shift) for every v.
struct Requant {
  int32_t multiplier, left_mul, right;
  int32_t remainder_mask, threshold;  // of divide_by_power_of_two(., right)
};
inline Requant requant_params(int32_t multiplier, int32_t shift) {
  const int32_t right = shift > 0 ? 0 : -shift;
  const int32_t mask = static_cast<int32_t>((uint32_t(1) << right) - 1u);
  return Requant{multiplier, static_cast<int32_t>(uint32_t(1) << (shift > 0 ? shift : 0)), right,
                 mask, mask >> 1};
}
inline int32_t requantize(int32_t val, const Requant& rq) {
  const int32_t high = doubling_high_mult_no_sat(wrap_mul(val, rq.left_mul), rq.multiplier);
  // divide_by_power_of_two(high, rq.right) with its mask and threshold prepared
  const int32_t result = high >> rq.right;
  const int32_t threshold = rq.threshold + (result < 0 ? 1 : 0);
  return result + ((high & rq.remainder_mask) > threshold ? 1 : 0);
}

// requantize(v, multiplier, shift) + output_offset in one 64-bit product and one shift, for the
// channels of nearly every layer: multiplier > 0 and shift in [-22, -2] (requant_foldable; other
// channels take requantize). With P = v * m and r = -shift, both roundings of requantize (the
// doubling high multiply's, then the divide's, ties away from zero) are one floor:
//   requantize(v) = floor((P + 2^30 + (2^(r-1) - [P < 0]) * 2^31) / 2^(31+r))
// (exact also for P in [-2^30, 0), whose first rounding gives 0, because r >= 1), and the offset
// folds into the high word: + offset * 2^(r-1) before the final shift by r - 1. P < 0 exactly
// when v < 0 (m > 0), so the constant's low word is known before the product:
//   2^30 (v >= 0) or 2^30 + 2^31 (v < 0, the -2^31 borrowing 1 from the high word).
// No step overflows: |P / 2^32| <= 2^30 and the folded constant is below 2^29 for r <= 22.
struct RequantFolded {
  int32_t multiplier;
  int32_t high;   // 2^(r-2) + output_offset * 2^(r-1)
  int32_t shift;  // r - 1
};
inline bool requant_foldable(int32_t multiplier, int32_t shift) {
  return multiplier > 0 && shift <= -2 && shift >= -22;
}
// offset in [-255, 255] (the kernels' range check).
inline RequantFolded requant_folded(int32_t multiplier, int32_t shift, int32_t offset) {
  const int32_t r = -shift;
  return RequantFolded{
      multiplier,
      static_cast<int32_t>((1u << (r - 2)) + static_cast<uint32_t>(offset) * (1u << (r - 1))),
      r - 1};
}
inline int32_t requantize_offset(int32_t v, const RequantFolded& q) {
  const int64_t p = static_cast<int64_t>(v) * q.multiplier;
  const uint32_t lo = static_cast<uint32_t>(p);
  const uint32_t lo_sum = lo + (0x40000000u ^ (static_cast<uint32_t>(v) & 0x80000000u));
  const int32_t carry = lo_sum < lo ? 1 : 0;
  const int32_t high = static_cast<int32_t>(p >> 32) + carry + (v >> 31) + q.high;
  return high >> q.shift;
}

// The same for |v| < 2^30, multiplier > 0 and shift in [-20, -1] (requant_2v_ok), in the form the
// Xpulp kernels compute: with P2 = 2v * m the 2^30 of the first rounding becomes 2^31, so its carry
// into the high word is the low word's top bit:
//   requantize(v) + offset = (hi(P2) + (lo(P2) >> 31) + (v >> 31) + offset * 2^r + 2^(r-1)) >> r
// (the last add, rounding constant and shift are one cv.addRNr). No step overflows: |hi(P2)| <=
// 2^30, |offset * 2^r| < 2^28.
struct Requant2v {
  int32_t multiplier;
  int32_t offset_high;  // offset * 2^r
  int32_t right;        // r
};
inline bool requant_2v_ok(int32_t multiplier, int32_t shift) {
  return multiplier > 0 && shift <= -1 && shift >= -20;
}
// offset in [-255, 255] (the kernels' range check).
inline Requant2v requant_2v(int32_t multiplier, int32_t shift, int32_t offset) {
  return Requant2v{multiplier, static_cast<int32_t>(static_cast<uint32_t>(offset) << -shift),
                   -shift};
}
inline int32_t requantize_offset_2v(int32_t v, const Requant2v& q) {
  const int64_t p = static_cast<int64_t>(v + v) * q.multiplier;
  const int32_t high = static_cast<int32_t>(p >> 32) +
                       static_cast<int32_t>(static_cast<uint32_t>(p) >> 31) + (v >> 31);
  return (high + q.offset_high + (int32_t(1) << (q.right - 1))) >> q.right;
}

// The same for |v| < 2^29 (requant_4v_ok: multiplier > 0, shift in [-20, -1]) without the product's
// low word, in the form the RISC-V kernels compute. With H = hi(4v * m) = floor(P / 2^30), every
// term of the folded floor above is a multiple of 2^30 (r >= 1), so
//   requantize(v) + offset = (H + s + offset * 2^(r+1) + 2^r) >> (r + 1)
// with s = +1 for v >= 0 and -1 for v < 0 (s = 1 - 2 [P < 0]; v < 0 gives P <= -2^30, where the
// first rounding is negative, except v = -1, m = 2^30, whose result is 0 either way since r >= 1).
// One mulh replaces the 2v form's mul + mulh + carry; with Xpulp the last adds, rounding constant
// and shift are one cv.addRNr. No step overflows: |H| < 2^30, |offset * 2^(r+1)| < 2^30.
struct Requant4v {
  int32_t multiplier;
  int32_t offset_high;  // offset * 2^(r+1)
  int32_t right;        // r + 1
};
inline bool requant_4v_ok(int32_t multiplier, int32_t shift) {
  return multiplier > 0 && shift <= -1 && shift >= -20;
}
// offset in [-255, 255] (the kernels' range check).
inline Requant4v requant_4v(int32_t multiplier, int32_t shift, int32_t offset) {
  return Requant4v{multiplier, static_cast<int32_t>(static_cast<uint32_t>(offset) << (1 - shift)),
                   1 - shift};
}
// The same from 4v itself (v4 = 4v: a multiple of 4, with v's sign).
inline int32_t requantize_offset_of_4v(int32_t v4, const Requant4v& q) {
  // (4v in 32 bits, which |v| < 2^29 allows: one mulh on RV32. With 4v in 64 bits GCC multiplied
  // out the whole product: ResNet-8's adds +102,514 cycles on the CV32E40P. The constant terms
  // grouped so that a loop computes them once: +16,486 otherwise.)
  const int32_t high = static_cast<int32_t>((static_cast<int64_t>(v4) * q.multiplier) >> 32);
  return (high + ((v4 >> 31) | 1) + (q.offset_high + (int32_t(1) << (q.right - 1)))) >> q.right;
}
inline int32_t requantize_offset_4v(int32_t v, const Requant4v& q) {
  return requantize_offset_of_4v(v * 4, q);
}

// The same for a dyadic channel (requant_dyadic_ok: multiplier = m * 2^11 with 0 < m < 2^20, shift
// -1; our exporter emits nearly every convolution channel so, python/etmcu/quantize.py
// dyadic_requant) with one 32-bit product. With P = v * m * 2^11 and r = 1 the folded floor above
// is, divided through by 2^11,
//   requantize(v) + offset = (v * m + 2^19 + [v >= 0] * 2^20 + offset * 2^21) >> 21,
// and v * m fits 32 bits once v is clamped to [-2^(30-L), 2^(30-L) - 1] (L the bit length of m).
// The clamp changes no result: requantize is non-decreasing in v, and at either bound
// |v * m| >= 2^29 - 2^19 gives |requantize(v)| >= 256, past [-128, 127] for any output offset in
// [-128, 127], so every v beyond a bound saturates to the same activation bound as the bound
// itself. No step overflows: |v * m| < 2^30, |offset * 2^21| <= 2^28.
struct RequantDyadic {
  int32_t m;            // multiplier >> 11
  int32_t bound;        // 2^(30-L) - 1
  int32_t offset_high;  // offset * 2^21 + 2^19
};
inline bool requant_dyadic_ok(int32_t multiplier, int32_t shift) {
  return multiplier > 0 && shift == -1 && (multiplier & 0x7ff) == 0;
}
// offset * 2^21 + 2^19: the rounding and the offset above (the 2^20 of a sum >= 0 apart; an Xpulp
// kernel's cv.addRN with shift 21 adds that one). offset in [-128, 127].
inline int32_t dyadic_offset_high(int32_t offset) {
  return static_cast<int32_t>(static_cast<uint32_t>(offset) << 21) + (1 << 19);
}
inline RequantDyadic requant_dyadic(int32_t multiplier, int32_t offset) {
  const int32_t m = multiplier >> 11;  // > 0 (requant_dyadic_ok)
  const int32_t bits = 32 - __builtin_clz(static_cast<uint32_t>(m));
  return RequantDyadic{m, (int32_t(1) << (30 - bits)) - 1, dyadic_offset_high(offset)};
}
// With a fused ReLU (amin is the offset, the floor 0), the largest sum v >= 0 whose result is at
// most amax: (v * m + 3 * 2^19 + offset * 2^21) >> 21 <= amax while
//   v * m <= T = (amax - offset + 1) * 2^21 - 3 * 2^19 - 1,  so  V = T / m.
// Its result is amax itself (m < 2^20: the results of consecutive sums differ by 0 or 1, and the
// result of 0 is the offset <= amax), and every larger sum's is above amax: clamping the sum to
// [0, V] is also the activation clamp, one instruction instead of two where the kernel clamps the
// sum anyway (the Xpulp kernels' cv.clipur / cv.min). V * m <= T < 2^29: the product never
// overflows (V is below the overflow bound 2^(30-L) - 1). amax in [offset, 127].
inline int32_t dyadic_relu_limit(int32_t offset, int32_t amax) {  // T
  return (amax - offset + 1) * (int32_t(1) << 21) - (3 << 19) - 1;
}
inline int32_t dyadic_relu_bound(int32_t m, int32_t offset, int32_t amax) {
  return dyadic_relu_limit(offset, amax) / m;
}
// A dyadic channel with a fused ReLU as the kernels requantize it: the sum clamped to [0, v_max]
// (dyadic_relu_bound), then (v * m + offset_high) >> 21 with offset_high = offset * 2^21 + 3 * 2^19
// (requantize_offset_dyadic's 2^19 and the sign term's 2^20 of a sum >= 0). One division.
struct DyadicRelu {
  int32_t m, v_max, offset_high;
};
inline int32_t dyadic_relu_offset_high(int32_t offset) {
  return dyadic_offset_high(offset) + (1 << 20);
}
inline DyadicRelu dyadic_relu(int32_t multiplier, int32_t offset, int32_t amax) {
  const int32_t m = multiplier >> 11;  // (requant_dyadic_ok)
  return DyadicRelu{m, dyadic_relu_bound(m, offset, amax), dyadic_relu_offset_high(offset)};
}
// One sum in that form, the result in [offset, amax]: every kernel's C model of it (the host
// tests run these) and the C kernels themselves.
inline int32_t dyadic_relu_requantize(int32_t v, int32_t m, int32_t v_max, int32_t offset_high) {
  v = v < 0 ? 0 : (v > v_max ? v_max : v);
  return (v * m + offset_high) >> 21;
}
inline int32_t dyadic_relu_requantize(int32_t v, const DyadicRelu& q) {
  return dyadic_relu_requantize(v, q.m, q.v_max, q.offset_high);
}
// Whether channels [0, n) are all dyadic, without a branch per channel past the first (an
// upstream program's layer fails there: a few cycles, not a loop).
inline bool all_dyadic(const int32_t* mult, const int32_t* shift, int32_t n) {
  if (n <= 0 || !requant_dyadic_ok(mult[0], shift[0])) return false;
  uint32_t bad = 0;
  for (int32_t c = 1; c < n; ++c)
    bad |= (static_cast<uint32_t>(mult[c]) & 0x800007ffu) | static_cast<uint32_t>(shift[c] + 1) |
           static_cast<uint32_t>(mult[c] == 0);
  return bad == 0;
}
inline int32_t requantize_offset_dyadic(int32_t v, const RequantDyadic& q) {
  const int32_t c = v < -q.bound - 1 ? -q.bound - 1 : (v > q.bound ? q.bound : v);
  return (c * q.m + q.offset_high + (c >= 0 ? (1 << 20) : 0)) >> 21;
}

// A linear layer's dyadic factor (python/etmcu/quantize.py dyadic_linear_requant): multiplier
// m * 2^(10+r) with shift -r, r in [1, 11] (frexp's shift: the multiplier is frexp's with its low
// 10 + r bits zero) and 0 < m < 2^q, q = 21 - r, so M = m / 2^21. (The convolutions' form above is
// r = 1; a larger r keeps CMSIS-NN's second rounding at r bits, where r = 1 rounds twice at
// nearly the same bit: a quarter of the outputs one step off the exact product's rounding, which
// the autoencoder's reconstruction error measured.) With P = v * m * 2^(10+r) the two roundings
// fold, as above, into
//   requantize(v) + offset = (v * m + K - [v < 0] * 2^q) >> 21,  K = offset * 2^21 + 2^(q-1) + 2^20
// (exact for every v: a negative v whose first rounding gives 0 gives 0 either way, since r >= 1).
// A layer's requantization is one factor and one range, so the kernels clamp the sum instead of
// the result: to [v_min, v_max], the sums whose results are amin and amax (consecutive sums'
// results differ by 0 or 1: m < 2^21), with |v * m| < 2^29 there.
struct DyadicLinear {
  int32_t m;
  int32_t k;      // K
  int32_t sign;   // 2^q, less for a negative sum
  int32_t v_max;  // the largest sum whose result is at most amax (>= 0)
  int32_t v_min;  // the smallest sum whose result is at least amin (<= 0)
};
inline bool dyadic_linear_ok(int32_t multiplier, int32_t shift) {
  return multiplier > 0 && shift <= -1 && shift >= -11 &&
         (multiplier & ((int32_t(1) << (10 - shift)) - 1)) == 0;
}
// offset, amin, amax in [-128, 127] with amin <= offset <= amax (the caller's check).
inline DyadicLinear dyadic_linear(int32_t multiplier, int32_t shift, int32_t offset, int32_t amin,
                                  int32_t amax) {
  const int32_t q = 21 + shift;
  const int32_t m = multiplier >> (10 - shift);
  const int32_t half = int32_t(1) << (q - 1);
  // v * m + K <= (amax + 1) * 2^21 - 1, and v * m + K - 2^q >= amin * 2^21
  const int32_t above = (amax - offset + 1) * (int32_t(1) << 21) - half - (1 << 20) - 1;
  const int32_t below = (offset - amin) * (int32_t(1) << 21) + (1 << 20) - half;
  return DyadicLinear{m,
                      static_cast<int32_t>(static_cast<uint32_t>(offset) << 21) + half + (1 << 20),
                      int32_t(1) << q, above / m, -(below / m)};
}
inline int32_t requantize_offset_dyadic_linear(int32_t v, const DyadicLinear& q) {
  const int32_t c = v < q.v_min ? q.v_min : (v > q.v_max ? q.v_max : v);
  return (c * q.m + q.k - (c < 0 ? q.sign : 0)) >> 21;
}

// arm_nn_mult_by_power_of_two: saturating val * 2^exp.
inline int32_t mult_by_power_of_two(int32_t val, int32_t exp) {
  const int32_t thresh = static_cast<int32_t>((int64_t(1) << (31 - exp)) - 1);
  int32_t result = static_cast<int32_t>(static_cast<uint32_t>(val) << exp);
  if (val > thresh) result = kQ31Max;
  if (val < -thresh) result = kQ31Min;
  return result;
}

inline int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

}  // namespace cmsis
}  // namespace kernels
}  // namespace etmcu
