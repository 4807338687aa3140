// The integer quantize / dequantize of cores without an FPU (kernels/cortex_m/util/float_bits.h)
// against the float32 loops they replace (util/quantize_io.h, run here on the host's IEEE float32
// arithmetic): every exponent and a 1/32771 sample of all bit patterns of x, exact ties of both
// roundings, NaN, infinities, zeros and subnormals; every int8 and int16 value dequantized; scales
// at float32's extremes (subnormal, reciprocal subnormal or infinite); the integer reciprocal
// against the host's 1.0f / scale.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cortex_m/util/float_bits.h"
#include "kernels/cortex_m/util/quantize_io.h"

namespace etmcu::kernels {
namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

std::vector<float> scales() {
  std::vector<float> s = {1.0f, 0.5f,  0.125f,  0.1f,   0.0078125f, 0.02352941f,
                          3.0f, 1e-3f, 7.3e-5f, 250.0f, 1e-20f,     1e20f};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-12.0f, 4.0f);
  for (int i = 0; i < 12; ++i) s.push_back(std::exp2(u(rng)));
  // the extremes: a subnormal scale whose reciprocal overflows (and one whose does not), the
  // smallest normal, huge scales with subnormal or tiny reciprocals, the largest float
  for (uint32_t b : {0x1u, 0x00400000u, 0x00600000u, 0x00000123u, 0x00800000u, 0x0d000000u,
                     0x7e800000u, 0x7f000001u, 0x7f7fffffu, 0x7effffffu})
    s.push_back(from_bits(b));
  return s;
}

TEST(FloatBits, QuantizeEqualsTheFloatLoop) {
  int64_t checked = 0;
  for (float scale : scales()) {
    const float inv = 1.0f / scale;
    for (auto [zp, qmin, qmax] : {std::tuple{0, -128, 127},
                                  {-7, -128, 127},
                                  {100, -128, 127},
                                  {-128, -128, 127},
                                  {0, -32768, 32767},
                                  {1234, -32768, 32767},
                                  {3, -5, 60}}) {
      const int8::QuantizeBits q = int8::quantize_bits_params(inv, zp, qmin, qmax);
      auto check = [&](uint32_t xb) {
        const int32_t want = int8::quantize_float<int32_t>(from_bits(xb), inv, zp, qmin, qmax);
        ASSERT_EQ(int8::quantize_bits(xb, q), want)
            << "x=" << from_bits(xb) << " (0x" << std::hex << xb << std::dec << ") scale=" << scale
            << " zp=" << zp;
        ++checked;
      };
      for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 32771) check(static_cast<uint32_t>(b));
      for (uint32_t special : {0x0u, 0x80000000u, 0x1u, 0x807fffffu, 0x7f800000u, 0xff800000u,
                               0x7fc00000u, 0xffc00001u, 0x7f7fffffu, 0xff7fffffu})
        check(special);
      // values near every integer and half-integer of the product, both signs
      for (int32_t k = -400; k <= 400; ++k)
        for (float off : {0.5f, 0.0f, 0.49999997f, 0.50000006f}) {
          const float target = static_cast<float>(k) + off;
          const float x = target / inv;
          for (float y : {x, std::nextafter(x, 1e30f), std::nextafter(x, -1e30f)}) {
            uint32_t b;
            std::memcpy(&b, &y, 4);
            check(b);
          }
        }
    }
  }
  EXPECT_GT(checked, 20000000);
}

TEST(FloatBits, QuantizeExactTiesRoundToEven) {
  // inv = 2^-3: x = (k + 0.5) * 8 multiplies exactly to the tie k + 0.5
  const float inv = 0.125f;
  const int8::QuantizeBits q = int8::quantize_bits_params(inv, 0, -128, 127);
  for (int32_t k = -100; k < 100; ++k) {
    const float x = (static_cast<float>(k) + 0.5f) * 8.0f;
    uint32_t b;
    std::memcpy(&b, &x, 4);
    const int32_t even = (k % 2 == 0) ? k : k + 1;
    EXPECT_EQ(int8::quantize_bits(b, q), even) << x;
  }
}

TEST(FloatBits, DequantizeEqualsTheFloatLoop) {
  for (float scale : scales()) {
    uint32_t mant;
    int32_t exp;
    int8::dequantize_bits_params(scale, &mant, &exp);
    for (int32_t d = -65535; d <= 65535; ++d) {
      const float want = static_cast<float>(d) * scale;
      uint32_t wb;
      std::memcpy(&wb, &want, 4);
      ASSERT_EQ(int8::dequantize_bits(d, mant, exp), wb) << "d=" << d << " scale=" << scale;
    }
  }
}

TEST(FloatBits, ReciprocalEqualsTheDivision) {
  auto check = [](uint32_t sb) {
    const float want = 1.0f / from_bits(sb);
    uint32_t wb;
    std::memcpy(&wb, &want, 4);
    ASSERT_EQ(int8::reciprocal_bits(sb), wb)
        << "scale=" << from_bits(sb) << " 0x" << std::hex << sb;
  };
  // every positive finite float32 in steps of 97, all subnormals' first and last 2^16, and the
  // mantissas next to powers of two at every exponent
  for (uint32_t b = 1; b < 0x7f800000u; b += 97) check(b);
  for (uint32_t b = 1; b < 0x10000u; ++b) {
    check(b);
    check(0x800000u - b);
  }
  for (uint32_t e = 1; e < 255; ++e)
    for (uint32_t m : {0x0u, 0x1u, 0x2u, 0x7fffffu, 0x7ffffeu, 0x400000u, 0x2aaaabu, 0x555555u})
      check((e << 23) | m);
}

TEST(FloatBits, RoundHalfEvenEqualsNearbyint) {
  auto check = [](uint32_t b) {
    const float v = from_bits(b), want = std::nearbyint(v), got = int8::round_half_even(v);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << v;
      return;
    }
    ASSERT_EQ(got, want) << v;  // (the sign of a zero result is not kept: == ignores it)
  };
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 257) check(static_cast<uint32_t>(b));
  for (int32_t k = -70000; k <= 70000; ++k)
    for (float off : {0.5f, 0.25f, 0.75f, 0.0f}) {
      const float v = static_cast<float>(k) + off;
      uint32_t b;
      std::memcpy(&b, &v, 4);
      check(b);
      check(b + 1);
      check(b - 1);
    }
  for (float v : {8388607.5f, 8388608.0f, -8388607.5f, 4194303.5f, 4194304.5f, -4194304.5f}) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    check(b);
  }
}

TEST(FloatBits, ScalesTheArgumentChecksReject) {
  // quantize_io.h's read_scale: zero, negative, infinite and NaN scales are an error
  for (double bad : {0.0, -0.0, -1.0, 1e300, -1e300, std::nan(""), 1e-50}) {
    EValue v = EValue::from_double(bad);
    EValue* args[1] = {&v};
    float f;
    EXPECT_FALSE(int8::read_scale(Span<EValue*>(args, 1), 0, &f)) << bad;
  }
  for (double ok : {0.0039, 1e-40, 3e38, 2.0}) {
    EValue v = EValue::from_double(ok);
    EValue* args[1] = {&v};
    float f;
    EXPECT_TRUE(int8::read_scale(Span<EValue*>(args, 1), 0, &f)) << ok;
    EXPECT_EQ(f, static_cast<float>(ok));
  }
  EValue i = EValue::from_int(3);
  EValue* args[1] = {&i};
  float f;
  EXPECT_TRUE(int8::read_scale(Span<EValue*>(args, 1), 0, &f));
  EXPECT_EQ(f, 3.0f);
}

}  // namespace
}  // namespace etmcu::kernels
