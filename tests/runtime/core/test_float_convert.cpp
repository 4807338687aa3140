// runtime/core/float_convert.h and EValue::scalar_as_float against the host's own conversions:
// special values, subnormals, every rounding tie kind, large integers, and a sweep of random bit
// patterns of doubles and int64s.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/float_convert.h"

namespace etmcu {
namespace {

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
double double_of(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

void expect_double(double d) {
  const uint32_t want = bits_of(static_cast<float>(d));
  ASSERT_EQ(float_convert::double_to_float_bits(d), want)
      << std::hexfloat << d << " (0x" << std::hex << bits_of(d) << ")";
  ASSERT_EQ(bits_of(EValue::from_double(d).scalar_as_float()), want) << std::hexfloat << d;
}

void expect_int(int64_t v) {
  const double dv = static_cast<double>(v);
  uint32_t hi, lo;
  float_convert::int64_to_double_bits(v, &hi, &lo);
  ASSERT_EQ((uint64_t(hi) << 32) | lo, bits_of(dv)) << v;
  const uint32_t want = bits_of(static_cast<float>(dv));
  ASSERT_EQ(float_convert::int64_to_float_bits_via_double(v), want) << v;
  ASSERT_EQ(bits_of(EValue::from_int(v).scalar_as_float()), want) << v;
  // one rounding (static_cast<float>(int64), as add's alpha reads an Int scalar)
  ASSERT_EQ(float_convert::int64_to_float_bits(v), bits_of(static_cast<float>(v))) << v;
}

TEST(FloatConvert, LeadingZeros) {
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(float_convert::leading_zeros(1u << i), 31 - i);
    EXPECT_EQ(float_convert::leading_zeros((1u << i) | 1u), 31 - i);
    EXPECT_EQ(float_convert::leading_zeros(0xffffffffu >> (31 - i)), 31 - i);
  }
}

TEST(FloatConvert, DoubleSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double d :
       {0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, inf, -inf, 1e300, -1e300, 1e-300,
        std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::min(),
        double(std::numeric_limits<float>::max()), double(std::numeric_limits<float>::min()),
        double(std::numeric_limits<float>::denorm_min()), 0.0078125, 3.0517578125e-05})
    expect_double(d);
  // NaNs: quiet and signalling payloads of both signs keep sign and top payload bits
  for (uint64_t b : {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                     0x7ff4000000000000ull, 0xfff7ffffffffffffull, 0x7fffffffe0000000ull})
    expect_double(double_of(b));
}

TEST(FloatConvert, DoubleRoundingTiesAndBoundaries) {
  // around every float32 exponent, including the subnormal range and the overflow edge: the
  // float itself, the exact midpoints to its neighbours, and one double ulp either side of those
  for (int e = -155; e <= 130; ++e) {
    for (uint32_t m : {0x800000u, 0x800001u, 0xa5a5a5u, 0xfffffeu, 0xffffffu}) {
      const double x = std::ldexp(static_cast<double>(m), e - 23);
      const double ulp = std::ldexp(1.0, e - 24);  // half a float32 ulp of x's binade
      for (double base : {x, x + ulp, x - ulp / 2, x + ulp / 2})
        for (double d : {base, std::nextafter(base, 0.0), std::nextafter(base, 1e300)}) {
          expect_double(d);
          expect_double(-d);
        }
    }
  }
  // subnormal float32 results: midpoints between subnormals, both parities
  for (int k = 0; k < 64; ++k) {
    const double mid = std::ldexp(k + 0.5, -149);
    for (double d : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1.0)}) expect_double(d);
  }
  // the largest finite float and the rounding edge to infinity
  const double fmax = std::numeric_limits<float>::max();
  const double edge = fmax + std::ldexp(1.0, 103);  // halfway to 2^128
  for (double d : {edge, std::nextafter(edge, 0.0), std::nextafter(edge, 1e300)}) expect_double(d);
}

TEST(FloatConvert, DoubleRandomBitPatterns) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 2000000; ++i) expect_double(double_of(rng()));
  // exponents near float32's range only (the bits above are mostly far outside it)
  std::uniform_int_distribution<int> ex(1023 - 160, 1023 + 130);
  for (int i = 0; i < 2000000; ++i) {
    const uint64_t b = (rng() & 0x800fffffffffffffull) | (uint64_t(ex(rng)) << 52);
    expect_double(double_of(b));
  }
}

TEST(FloatConvert, Int64) {
  std::vector<int64_t> v = {0,
                            1,
                            -1,
                            127,
                            -128,
                            (1 << 24) - 1,
                            1 << 24,
                            (1 << 24) + 1,
                            (1 << 24) + 3,
                            (int64_t(1) << 53) - 1,
                            int64_t(1) << 53,
                            (int64_t(1) << 53) + 1,
                            (int64_t(1) << 53) + 3,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::min() + 1,
                            std::numeric_limits<int32_t>::max(),
                            std::numeric_limits<int32_t>::min()};
  // ties of the 53-bit and of the 24-bit rounding at every magnitude, both signs
  for (int s = 25; s < 63; ++s)
    for (int64_t off : {-1, 0, 1}) {
      const int64_t base = int64_t(1) << s;
      for (int64_t tie : {base + (int64_t(1) << (s - 24)), base + (int64_t(3) << (s - 24))})
        v.push_back(tie + off);
      if (s >= 53)
        for (int64_t tie : {base + (int64_t(1) << (s - 53)), base + (int64_t(3) << (s - 53))})
          v.push_back(tie + off);
      v.push_back(base - 1);  // all ones
    }
  for (int64_t x : v) {
    expect_int(x);
    if (x != std::numeric_limits<int64_t>::min()) expect_int(-x);
  }
  std::mt19937_64 rng(31);
  for (int i = 0; i < 1000000; ++i) {
    const int64_t r = static_cast<int64_t>(rng());
    expect_int(r);
    expect_int(r >> (i % 64));  // every magnitude
  }
}

TEST(FloatConvert, BoolScalar) {
  EXPECT_EQ(EValue::from_bool(true).scalar_as_float(), 1.0f);
  EXPECT_EQ(bits_of(EValue::from_bool(false).scalar_as_float()), 0u);
}

}  // namespace
}  // namespace etmcu
