// The prepared requantization (cmsis::Requant, used by the fast conv and depthwise kernels) gives
// exactly requantize(v, multiplier, shift) for every shift CMSIS-NN allows and values across the
// int32 range, the wrapping left shifts and the rounding ties included.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cortex_m/util/cmsis_math.h"

namespace etmcu::kernels {
namespace {

TEST(CmsisMath, PreparedRequantizationEqualsRequantize) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> values = {0, 1, -1, 2, -2, 3, -3, INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                 1 << 30, -(1 << 30), 12345, -12345};
  for (int i = 0; i < 2000; ++i) values.push_back(any(rng));
  for (int32_t k = 0; k < 31; ++k) {  // ties of the right shift: +-(2^k +- 1)
    values.push_back(static_cast<int32_t>(1u << k));
    values.push_back(-static_cast<int32_t>(1u << k));
    values.push_back(static_cast<int32_t>((1u << k) + 1u));
  }
  const int32_t multipliers[] = {1 << 30, 0x7fffffff, 1, -1, 0x40000001, 1518500250, -(1 << 30)};
  for (int32_t shift = -31; shift <= 30; ++shift) {
    for (int32_t m : multipliers) {
      const cmsis::Requant rq = cmsis::requant_params(m, shift);
      for (int32_t v : values)
        ASSERT_EQ(cmsis::requantize(v, rq), cmsis::requantize(v, m, shift))
            << "v=" << v << " m=" << m << " shift=" << shift;
    }
  }
}

}  // namespace
}  // namespace etmcu::kernels
