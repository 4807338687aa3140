// The prepared requantization (cmsis::Requant, used by the fast conv and depthwise kernels) gives
// exactly requantize(v, multiplier, shift) for every shift CMSIS-NN allows and values across the
// int32 range, the wrapping left shifts and the rounding ties included.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/pointwise.h"

namespace etmcu::kernels {
namespace {

TEST(CmsisMath, PreparedRequantizationEqualsRequantize) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> values = {0,       1,          -1,        2,         -2,
                                 3,       -3,         INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                 1 << 30, -(1 << 30), 12345,     -12345};
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

// The folded form (one product, one shift, the output offset inside) equals requantize() plus the
// offset for every multiplier > 0 and shift in [-22, -2] it is used for, at the rounding ties of
// both roundings, and across the int32 range.
TEST(CmsisMath, FoldedRequantizationEqualsRequantizePlusOffset) {
  std::mt19937 rng(2027);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-(1 << 22), 1 << 22);
  std::uniform_int_distribution<int32_t> mult(1, INT32_MAX);
  std::vector<int32_t> values = {0,       1,          -1,        2,         -2,
                                 3,       -3,         INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                 1 << 30, -(1 << 30), 12345,     -12345};
  for (int i = 0; i < 1500; ++i) values.push_back(any(rng));
  for (int i = 0; i < 1500; ++i) values.push_back(small(rng));
  std::vector<int32_t> multipliers = {1, 2, 1 << 30, 0x7fffffff, 0x40000001, 1518500250};
  for (int i = 0; i < 8; ++i) multipliers.push_back(mult(rng));
  int32_t checked = 0;
  for (int32_t shift = -31; shift <= 30; ++shift) {
    for (int32_t m : multipliers) {
      if (!cmsis::requant_foldable(m, shift)) continue;
      std::vector<int32_t> vs = values;
      // Values whose products sit at the ties of the first and of the second rounding.
      for (int32_t q = -3; q <= 3; ++q)
        for (int64_t t : {int64_t(1) << 30, (int64_t(1) << 30) - 1, (int64_t(1) << 30) + 1}) {
          const int64_t target = static_cast<int64_t>(q) * (int64_t(1) << (31 - shift)) + t;
          vs.push_back(static_cast<int32_t>(target / m));
          vs.push_back(static_cast<int32_t>(target / m + 1));
          vs.push_back(static_cast<int32_t>(-target / m));
        }
      for (int32_t offset : {0, 1, -1, 127, -128, 255, -255}) {
        const cmsis::RequantFolded q = cmsis::requant_folded(m, shift, offset);
        for (int32_t v : vs) {
          ASSERT_EQ(cmsis::requantize_offset(v, q),
                    cmsis::wrap_add(cmsis::requantize(v, m, shift), offset))
              << "v=" << v << " m=" << m << " shift=" << shift << " offset=" << offset;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000000);
}

// Checks a requantization form against requantize() plus the offset for |v| < 2^bits, every
// multiplier > 0 and shift the form accepts (ok), at the ties of both roundings, offsets ±255:
// make(m, shift, offset) prepares its parameters, apply(v, q) computes it. Returns the cases run.
template <class Ok, class Make, class Apply>
int64_t check_requant_form(uint32_t seed, int bits, Ok ok, Make make, Apply apply) {
  const int32_t lim = int32_t(1) << bits;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> any(-lim + 1, lim - 1);
  std::uniform_int_distribution<int32_t> small(-(1 << 22), 1 << 22);
  std::uniform_int_distribution<int32_t> mult(1, INT32_MAX);
  std::vector<int32_t> values = {0, 1, -1, 2, -2, lim - 1, -lim + 1, 12345, -12345};
  for (int i = 0; i < 1500; ++i) values.push_back(any(rng));
  for (int i = 0; i < 1500; ++i) values.push_back(small(rng));
  std::vector<int32_t> multipliers = {1, 2, 1 << 30, 0x7fffffff, 0x40000001, 1518500250};
  for (int i = 0; i < 8; ++i) multipliers.push_back(mult(rng));
  int64_t checked = 0;
  for (int32_t shift = -31; shift <= 30; ++shift) {
    for (int32_t m : multipliers) {
      if (!ok(m, shift)) continue;
      std::vector<int32_t> vs = values;
      for (int32_t q = -3; q <= 3; ++q)
        for (int64_t t : {int64_t(1) << 30, (int64_t(1) << 30) - 1, (int64_t(1) << 30) + 1}) {
          const int64_t target = static_cast<int64_t>(q) * (int64_t(1) << (31 - shift)) + t;
          for (int64_t v : {target / m, target / m + 1, -target / m})
            if (v > -int64_t(lim) && v < int64_t(lim)) vs.push_back(static_cast<int32_t>(v));
        }
      for (int32_t offset : {0, 1, -1, 127, -128, 255, -255}) {
        const auto q = make(m, shift, offset);
        for (int32_t v : vs) {
          EXPECT_EQ(apply(v, q), cmsis::wrap_add(cmsis::requantize(v, m, shift), offset))
              << "v=" << v << " m=" << m << " shift=" << shift << " offset=" << offset;
          if (::testing::Test::HasFailure()) return checked;
          ++checked;
        }
      }
    }
  }
  return checked;
}

// The 2v form of the Arm kernels equals requantize() plus the offset for |v| < 2^30, every
// multiplier > 0 and shift in [-20, -1], at the ties of both roundings.
TEST(CmsisMath, TwoVRequantizationEqualsRequantizePlusOffset) {
  EXPECT_GT(check_requant_form(2028, 30, cmsis::requant_2v_ok, cmsis::requant_2v,
                               [](int32_t v, const cmsis::Requant2v& q) {
                                 return cmsis::requantize_offset_2v(v, q);
                               }),
            1000000);
}

// The 4v form of the RISC-V kernels equals requantize() plus the offset for |v| < 2^29.
TEST(CmsisMath, FourVRequantizationEqualsRequantizePlusOffset) {
  EXPECT_GT(check_requant_form(2029, 29, cmsis::requant_4v_ok, cmsis::requant_4v,
                               [](int32_t v, const cmsis::Requant4v& q) {
                                 return cmsis::requantize_offset_4v(v, q);
                               }),
            1000000);
}

// The dyadic form equals requantize() plus the offset inside its clamp bounds, and after the
// activation clamp [-128, 127] for every int32 v (beyond the bounds both saturate), for every
// multiplier m * 2^11 with shift -1 (m in [1, 2^20): all bit lengths), offsets in [-128, 127],
// at the ties of both roundings and at the bounds.
TEST(CmsisMath, DyadicRequantizationEqualsRequantizePlusOffset) {
  EXPECT_TRUE(cmsis::requant_dyadic_ok(5000 << 11, -1));
  EXPECT_FALSE(cmsis::requant_dyadic_ok((5000 << 11) + 1024, -1));
  EXPECT_FALSE(cmsis::requant_dyadic_ok(5000 << 11, -2));
  EXPECT_FALSE(cmsis::requant_dyadic_ok(0, -1));
  std::mt19937 rng(2030);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> ms = {1, 2, 3, (1 << 20) - 1, 1 << 19, 743, 41261};
  for (int b = 1; b <= 20; ++b)
    ms.push_back(std::uniform_int_distribution<int32_t>(1 << (b - 1), (1 << b) - 1)(rng));
  int64_t checked = 0;
  for (int32_t m : ms) {
    const int32_t multiplier = m << 11;
    ASSERT_TRUE(cmsis::requant_dyadic_ok(multiplier, -1));
    for (int32_t offset : {0, 1, -1, 127, -128, 50, -77}) {
      const cmsis::RequantDyadic q = cmsis::requant_dyadic(multiplier, offset);
      std::vector<int32_t> vs = {
          0,         1,         -1,           q.bound, q.bound + 1, -q.bound - 1, -q.bound - 2,
          INT32_MAX, INT32_MIN, INT32_MIN + 1};
      for (int i = 0; i < 400; ++i) vs.push_back(any(rng));
      for (int i = 0; i < 400; ++i) vs.push_back(any(rng) % (q.bound + 1));
      // both roundings' ties: v * m near (k + 1/2) * 2^21 and near k * 2^21 + 2^19
      for (int32_t k = -300; k <= 300; k += 7)
        for (int64_t t : {int64_t(1) << 20, int64_t(1) << 19, int64_t(3) << 19}) {
          const int64_t target = int64_t(k) * (int64_t(1) << 21) + t;
          for (int64_t v : {target / m - 1, target / m, target / m + 1})
            if (v >= INT32_MIN && v <= INT32_MAX) vs.push_back(static_cast<int32_t>(v));
        }
      for (int32_t v : vs) {
        const int32_t want = cmsis::wrap_add(cmsis::requantize(v, multiplier, -1), offset);
        const int32_t got = cmsis::requantize_offset_dyadic(v, q);
        if (v >= -q.bound - 1 && v <= q.bound)
          EXPECT_EQ(got, want) << "v=" << v << " m=" << m << " offset=" << offset;
        EXPECT_EQ(cmsis::clamp(got, -128, 127), cmsis::clamp(want, -128, 127))
            << "v=" << v << " m=" << m << " offset=" << offset;
        if (::testing::Test::HasFailure()) return;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

// A linear layer's dyadic form (every shift -r in [-11, -1], multiplier m << (10 + r), m of every
// bit length below 2^(21 - r)): the sum clamped to [v_min, v_max] and requantized with one product
// is requantize() plus the offset, clamped to [amin, amax], for every int32 sum (the ties of both
// roundings, the bounds and beyond); v_min and v_max are the last sums giving amin and amax.
TEST(CmsisMath, DyadicLinearEqualsRequantizeClamped) {
  EXPECT_TRUE(cmsis::dyadic_linear_ok(5000 << 11, -1));
  EXPECT_TRUE(cmsis::dyadic_linear_ok(5000 << 17, -7));
  EXPECT_FALSE(cmsis::dyadic_linear_ok(5001 << 16, -7));
  EXPECT_FALSE(cmsis::dyadic_linear_ok(5000 << 17, 0));
  EXPECT_FALSE(cmsis::dyadic_linear_ok(1 << 30, -12));
  EXPECT_FALSE(cmsis::dyadic_linear_ok(0, -3));
  std::mt19937 rng(2032);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  struct Range {
    int32_t amin, offset, amax;
  };
  const Range ranges[] = {{-128, -128, 127}, {-128, 5, 127}, {5, 5, 127},   {-128, 127, 127},
                          {-20, -10, 30},    {0, 0, 6},      {-77, -1, -1}, {126, 127, 127}};
  int64_t checked = 0;
  for (int32_t r = 1; r <= 11; ++r) {
    const int32_t q = 21 - r;
    std::vector<int32_t> ms = {1, (1 << q) - 1, 1 << (q - 1)};
    for (int b = 1; b <= q; ++b)
      ms.push_back(std::uniform_int_distribution<int32_t>(1 << (b - 1), (1 << b) - 1)(rng));
    for (int32_t m : ms) {
      const int32_t multiplier = m << (10 + r);
      ASSERT_TRUE(cmsis::dyadic_linear_ok(multiplier, -r)) << m << " " << r;
      for (const Range& g : ranges) {
        const cmsis::DyadicLinear d =
            cmsis::dyadic_linear(multiplier, -r, g.offset, g.amin, g.amax);
        ASSERT_EQ(d.m, m);
        ASSERT_GE(d.v_max, 0);
        ASSERT_LE(d.v_min, 0);
        auto want = [&](int32_t v) {
          return cmsis::clamp(cmsis::wrap_add(cmsis::requantize(v, multiplier, -r), g.offset),
                              g.amin, g.amax);
        };
        // the bounds are the last sums at amin and amax
        EXPECT_EQ(want(d.v_max), g.amax);
        if (d.v_max < INT32_MAX)
          EXPECT_GT(cmsis::wrap_add(cmsis::requantize(d.v_max + 1, multiplier, -r), g.offset),
                    g.amax);
        EXPECT_EQ(want(d.v_min), g.amin);
        if (d.v_min > INT32_MIN)
          EXPECT_LT(cmsis::wrap_add(cmsis::requantize(d.v_min - 1, multiplier, -r), g.offset),
                    g.amin);
        std::vector<int32_t> vs = {0,       1,           -1,        d.v_max,   d.v_max + 1,
                                   d.v_min, d.v_min - 1, INT32_MAX, INT32_MIN, INT32_MIN + 1};
        for (int i = 0; i < 100; ++i) vs.push_back(any(rng));
        for (int i = 0; i < 100; ++i)
          vs.push_back(std::uniform_int_distribution<int32_t>(d.v_min, d.v_max)(rng));
        // both roundings' ties: v * m near k * 2^21 + {2^(q-1), 2^q, 2^20 + 2^(q-1)}
        for (int32_t k = -260; k <= 260; k += 13)
          for (int64_t t : {int64_t(1) << (q - 1), int64_t(1) << q,
                            (int64_t(1) << 20) + (int64_t(1) << (q - 1))}) {
            const int64_t target = int64_t(k) * (int64_t(1) << 21) + t;
            for (int64_t v : {target / m - 1, target / m, target / m + 1})
              if (v >= INT32_MIN && v <= INT32_MAX) vs.push_back(static_cast<int32_t>(v));
          }
        for (int32_t v : vs) {
          ASSERT_EQ(cmsis::requantize_offset_dyadic_linear(v, d), want(v))
              << "v=" << v << " m=" << m << " r=" << r << " offset=" << g.offset
              << " range=" << g.amin << ".." << g.amax;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

// The ReLU clamp V of a dyadic channel (the Xpulp kernels clamp sums to [0, V] in place of the
// overflow bound and the cv.min with amax): V's result is amax, V + 1's is above it, V is below
// the overflow bound, for every multiplier bit length, offset and amax from the offset to 127.
TEST(CmsisMath, DyadicReluBoundIsTheLastSumAtOrBelowAmax) {
  std::mt19937 rng(2031);
  std::vector<int32_t> ms = {1, 2, 3, (1 << 20) - 1, 1 << 19, 743, 41261, 1 << 10, 3 << 17};
  for (int b = 1; b <= 20; ++b)
    for (int i = 0; i < 4; ++i)
      ms.push_back(std::uniform_int_distribution<int32_t>(1 << (b - 1), (1 << b) - 1)(rng));
  int64_t checked = 0;
  for (int32_t m : ms)
    for (int32_t offset : {-128, -127, -1, 0, 1, 50, 126, 127})
      for (int32_t amax : {offset, offset + 1, 0, 6, 100, 126, 127}) {
        if (amax < offset || amax > 127) continue;
        const cmsis::RequantDyadic q = cmsis::requant_dyadic(m << 11, offset);
        const int32_t v = cmsis::dyadic_relu_bound(m, offset, amax);
        ASSERT_GE(v, 0);
        ASSERT_LT(v, q.bound) << "m=" << m;
        EXPECT_EQ(cmsis::requantize_offset_dyadic(v, q), amax)
            << "m=" << m << " offset=" << offset << " amax=" << amax;
        EXPECT_GT(cmsis::requantize_offset_dyadic(v + 1, q), amax)
            << "m=" << m << " offset=" << offset << " amax=" << amax;
        ++checked;
      }
  EXPECT_GT(checked, 3000);
}

// The Xpulp dyadic pointwise kernel clamps a layer without a fused ReLU with one cv.clip to
// [-128, 127] (its four-pixel path): a block of dyadic channels keeps that form only with a ReLU
// or the whole int8 range; any other range goes to the frexp form (pointwise_form_ok, and
// groups_form for a layer's blocks through dyadic_clamp_ok), whose clamp takes every range.
TEST(PointwiseForm, DyadicOnlyWithAReluOrTheWholeRange) {
  struct Case {
    int32_t amin, amax, offset;
    int32_t dyadic;  // the form the block keeps
  };
  const Case cases[] = {
      {-128, 127, 5, 1},                        // no activation
      {5, 127, 5, 1},                           // a fused ReLU
      {5, 100, 5, 1},                           // ReLU6-like: the ReLU forms clamp amax themselves
      {-128, 127, -128, 1}, {-100, 127, 5, 0},  // a partial range without the ReLU floor: frexp
      {-128, 100, 5, 0},    {-127, 127, -128, 0},
  };
  for (const Case& c : cases) {
    int8::PointwiseBlock b;
    b.dyadic = 1;
    b.amin = c.amin;
    b.amax = c.amax;
    b.neg_floor = int8::negative_floor(c.amin, c.offset);
    EXPECT_TRUE(int8::pointwise_form_ok<true>(b)) << c.amin << " " << c.amax;
    EXPECT_EQ(b.dyadic, c.dyadic) << c.amin << " " << c.amax << " " << c.offset;
    EXPECT_EQ(int8::dyadic_clamp_ok(c.amin, c.amax, b.neg_floor), c.dyadic != 0);
  }
}

// Plain RV32's interior blocks in its dyadic forms (set_dyadic_block: a fused ReLU's sums clamped
// to [1, V], other activations' to [Vlo, V], then one product, add and shift; the kernel's REQ3D
// and REQ3G and their C mirror in pointwise_4ch_c) give the frexp form's bits for sums across the
// whole range, the clamps and their neighbours included; only blocks whose four channels are
// dyadic take them.
void relu_marker() {}  // (the forms' subroutines: the C form never calls them)
void clamp_marker() {}
struct Forms {
  static constexpr bool on = true;
  static constexpr void (*relu)() = relu_marker;
  static constexpr void (*clamp)() = clamp_marker;
  static constexpr uint32_t clamp_path = int8::kPathDwLanes3x3;
};
struct NoForms {
  static constexpr bool on = false;
  static constexpr void (*relu)() = nullptr;
  static constexpr void (*clamp)() = nullptr;
  static constexpr uint32_t clamp_path = 0;
};
TEST(PointwiseForm, DyadicBlocksGiveTheFrexpBits) {
  std::mt19937 rng(2033);
  alignas(4) int8_t x[4] = {0, 0, 0, 0}, w[16] = {};
  int8_t y[4];
  auto block = [&](int32_t amin, int32_t amax, int32_t offset) {
    int8::PointwiseBlock b;
    b.x = x;
    b.w = w;
    b.y = y;
    b.x_step = b.y_step = 4;
    b.pixels = b.rows = 1;
    int8::set_run(b, 4);
    b.row_skip = b.w_row_skip = 0;
    b.w_stride = 4;
    b.amin = amin;
    b.amax = amax;
    b.neg_floor = int8::negative_floor(amin, offset);
    return b;
  };
  auto run = [&](int8::PointwiseBlock& b, int32_t v) {  // v: every channel's sum (weights zero)
    for (int k = 0; k < 4; ++k) b.full[k] = v;
    int8::pointwise_4ch_c<true>(b, [](int32_t acc, const int8_t*, const int8_t*) { return acc; });
    return std::vector<int8_t>(y, y + 4);
  };
  int64_t checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int32_t offset = std::uniform_int_distribution<int32_t>(-128, 127)(rng);
    const bool relu = trial % 2 == 0;
    const int32_t amin =
        relu ? offset
             : (trial % 6 == 1 ? -128 : std::uniform_int_distribution<int32_t>(-128, offset)(rng));
    const int32_t amax =
        trial % 6 == 1 ? 127 : std::uniform_int_distribution<int32_t>(offset, 127)(rng);
    int32_t mult[4], shift[4] = {-1, -1, -1, -1};
    for (int k = 0; k < 4; ++k) {
      const int bits = std::uniform_int_distribution<int>(1, 20)(rng);
      mult[k] = std::uniform_int_distribution<int32_t>(1 << (bits - 1), (1 << bits) - 1)(rng) << 11;
    }
    int8::PointwiseBlock frexp = block(amin, amax, offset), dy = block(amin, amax, offset);
    for (int k = 0; k < 4; ++k) {
      int8::set_requant<false>(frexp, k, mult[k], shift[k], offset);
      int8::set_requant<false>(dy, k, mult[k], shift[k], offset);
    }
    int8::set_dyadic_block<Forms>(dy, mult, shift, offset);
    if (relu) {
      ASSERT_EQ(dy.dyadic, int8::kDyadicRelu);
      ASSERT_EQ(dy.neg_floor, 1);
      ASSERT_EQ(dy.requant_fn, &relu_marker);
    } else if (amin == offset) {  // (a ReLU after all)
      ASSERT_EQ(dy.dyadic, int8::kDyadicRelu);
    } else {
      ASSERT_EQ(dy.dyadic, int8::kDyadicClamp);
      ASSERT_EQ(dy.requant_fn, &clamp_marker);
      ASSERT_GT(dy.neg_floor, INT32_MIN);
      ASSERT_LE(dy.neg_floor, 0);
    }
    std::vector<int32_t> sums = {0, 1, -1, (1 << 29) - 1, -(1 << 29) + 1};
    for (int k = 0; k < 4; ++k)
      for (int32_t d = -2; d <= 2; ++d) {
        sums.push_back(dy.right[k] + d);
        sums.push_back(dy.round_high4[k] + d);  // (Vlo in the clamp form)
      }
    for (int i = 0; i < 40; ++i)
      sums.push_back(std::uniform_int_distribution<int32_t>(-(1 << 22), 1 << 22)(rng));
    for (int32_t v : sums) {
      ASSERT_EQ(run(dy, v), run(frexp, v))
          << "v=" << v << " offset=" << offset << " amin=" << amin << " amax=" << amax;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30000);
  int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30}, shift[4] = {-1, -1, -1, -1};
  int8::PointwiseBlock b = block(5, 127, 5);
  mult[3] = (1 << 30) + 1;  // one channel not dyadic: the block keeps the frexp form
  int8::set_dyadic_block<Forms>(b, mult, shift, 5);
  EXPECT_EQ(b.dyadic, 0);
  EXPECT_EQ(b.neg_floor, 0);
  mult[3] = 1 << 30;
  b = block(10, 127, 5);  // amin above the offset: the frexp form
  int8::set_dyadic_block<Forms>(b, mult, shift, 5);
  EXPECT_EQ(b.dyadic, 0);
  EXPECT_EQ(b.neg_floor, INT32_MIN);
  b = block(5, 127, 5);
  int8::set_dyadic_block<Forms>(b, mult, shift, 5);
  EXPECT_EQ(b.dyadic, int8::kDyadicRelu);
  int8::set_dyadic_block<NoForms>(b, mult, shift, 5);  // (ISAs without the forms: untouched)
  EXPECT_EQ(b.dyadic, int8::kDyadicRelu);
}

}  // namespace
}  // namespace etmcu::kernels
