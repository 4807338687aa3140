// The integer quantize / dequantize of cores without an FPU (kernels/cortex_m/util/float_bits.h)
// against the float32 loops they replace (util/quantize_io.h, run here on the host's IEEE float32
// arithmetic): every exponent and a 1/32771 sample of all bit patterns of x, exact ties of both
// roundings, NaN, infinities, zeros and subnormals; every int8 and int16 value dequantized.
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
  return s;
}

TEST(FloatBits, QuantizeEqualsTheFloatLoop) {
  int64_t checked = 0;
  for (float scale : scales()) {
    const float inv = 1.0f / scale;
    ASSERT_TRUE(int8::quantize_bits_ok(inv)) << scale;
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
    if (!int8::dequantize_bits_ok(scale)) continue;
    uint32_t sb;
    std::memcpy(&sb, &scale, 4);
    const uint32_t mant = (sb & 0x7fffffu) | 0x800000u;
    const int32_t exp = static_cast<int32_t>(sb >> 23) - 127;
    for (int32_t d = -65535; d <= 65535; ++d) {
      const float want = static_cast<float>(d) * scale;
      uint32_t wb;
      std::memcpy(&wb, &want, 4);
      ASSERT_EQ(int8::dequantize_bits(d, mant, exp), wb) << "d=" << d << " scale=" << scale;
    }
  }
}

TEST(FloatBits, RangesTheCallerChecks) {
  EXPECT_FALSE(int8::quantize_bits_ok(-1.0f));
  EXPECT_FALSE(int8::quantize_bits_ok(from_bits(0x1u)));  // subnormal
  EXPECT_FALSE(int8::quantize_bits_ok(1e31f));
  EXPECT_FALSE(int8::dequantize_bits_ok(-0.5f));
  EXPECT_FALSE(int8::dequantize_bits_ok(3e38f));
  EXPECT_TRUE(int8::dequantize_bits_ok(0.0039f));
}

}  // namespace
}  // namespace etmcu::kernels
