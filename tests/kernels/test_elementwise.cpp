// Tests of the elementwise portable kernels: add/sub/mul/div (broadcasting, promotion, scalars,
// dim orders), unary activations, clamp/hardtanh; expected values are computed independently.
#include <cmath>

#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;
using test::expect_near;

TEST(Add, F32SameShape) {
  Args a;
  a.tensor<float>({2, 2}, {1, 2, 3, 4});
  a.tensor<float>({2, 2}, {10, 20, 30, 40});
  a.add_int(1);
  a.tensor<float>({2, 2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{11, 22, 33, 44}));
}

TEST(Add, F32Alpha) {
  Args a;
  a.tensor<float>({3}, {1, 2, 3});
  a.tensor<float>({3}, {1, 1, 1});
  a.add_double(2.5);
  a.tensor<float>({3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{3.5f, 4.5f, 5.5f}));
}

TEST(Add, ZeroDimConstantBroadcast) {  // AddModel: x f32[3] + const f32[]
  Args a;
  a.tensor<float>({3}, {1, 2, 3});
  a.tensor<float>({}, {1.0f});
  a.add_int(1);
  a.tensor<float>({3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{2, 3, 4}));
}

TEST(Add, Int32) {  // bundled program: int32 [2,2]
  Args a;
  a.tensor<int32_t>({2, 2}, {3, -4, 2147483647, 0});
  a.tensor<int32_t>({2, 2}, {2, 2, 1, -7});
  a.add_int(1);
  a.tensor<int32_t>({2, 2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(3), (std::vector<int32_t>{5, -2, INT32_MIN, -7}));  // wraps
}

TEST(Add, BroadcastRowCol) {
  Args a;
  a.tensor<float>({2, 1}, {1, 2});
  a.tensor<float>({3}, {10, 20, 30});
  a.add_int(1);
  a.tensor<float>({2, 3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{11, 21, 31, 12, 22, 32}));
}

TEST(Add, BroadcastFirstOperand) {
  // self [1,3] broadcast against other [2,3]: same rank and dim order, different shapes.
  Args a;
  a.tensor<float>({1, 3}, {1, 2, 3});
  a.tensor<float>({2, 3}, {10, 20, 30, 40, 50, 60});
  a.add_int(1);
  a.tensor<float>({2, 3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{11, 22, 33, 41, 52, 63}));

  Args b;  // scalar-like self [1] with a [4] other
  b.tensor<int32_t>({1}, {5});
  b.tensor<int32_t>({4}, {1, 2, 3, 4});
  b.tensor<int32_t>({4});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_mul_out), Error::Ok);
  EXPECT_EQ(b.values<int32_t>(2), (std::vector<int32_t>{5, 10, 15, 20}));
}

TEST(Add, ChannelsLastSameOrder) {
  std::vector<float> x(2 * 3 * 2 * 2), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i), y[i] = float(100 * i);
  Args a;
  a.tensor<float>({2, 3, 2, 2}, x, test::channels_last());
  a.tensor<float>({2, 3, 2, 2}, y, test::channels_last());
  a.add_int(1);
  a.empty({2, 3, 2, 2}, ScalarType::Float, test::channels_last());
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  auto got = a.values<float>(3);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], 101.0f * i);
}

TEST(Add, MixedDimOrderAndPerChannelBroadcast) {
  // channels-last x + contiguous per-channel bias [3,1,1] into a contiguous out.
  std::vector<float> x(1 * 3 * 2 * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
  Args a;
  a.tensor<float>({1, 3, 2, 2}, x, test::channels_last());
  a.tensor<float>({3, 1, 1}, {100, 200, 300});
  a.add_int(1);
  a.tensor<float>({1, 3, 2, 2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  auto got = a.values<float>(3);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], x[i] + 100.0f * (1 + i / 4));
}

TEST(Add, IntTensorFloatScalarPromotes) {
  Args a;
  a.tensor<int32_t>({2}, {1, 2});
  a.add_double(0.5);
  a.add_int(1);
  a.tensor<float>({2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_Scalar_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{1.5f, 2.5f}));
}

TEST(Add, FloatScalarIntoIntOutFails) {
  Args a;
  a.tensor<int32_t>({2}, {1, 2});
  a.add_double(0.5);
  a.add_int(1);
  a.tensor<int32_t>({2});
  a.repeat(3);
  EXPECT_EQ(a.call(kernels::aten_add_Scalar_out), Error::InvalidType);
  EXPECT_NE(a.ctx.failure, nullptr);
}

TEST(Add, Int8WithInt32PromotesAndUint8Int8GivesInt16) {
  Args a;
  a.tensor<int8_t>({2}, {100, -100});
  a.tensor<int32_t>({2}, {100, -100});
  a.add_int(1);
  a.tensor<int32_t>({2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(3), (std::vector<int32_t>{200, -200}));

  Args b;
  b.tensor<uint8_t>({2}, {200, 0});
  b.tensor<int8_t>({2}, {100, -1});
  b.add_int(1);
  b.tensor<int16_t>({2});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(b.values<int16_t>(3), (std::vector<int16_t>{300, -1}));
}

TEST(Add, ZeroDimFloatTensorWithIntTensor) {
  // int32[2] + f32[] -> f32 (0-dim floating operand raises the category).
  Args a;
  a.tensor<int32_t>({2}, {1, 2});
  a.tensor<float>({}, {0.25f});
  a.add_int(1);
  a.tensor<float>({2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{1.25f, 2.25f}));
}

TEST(Add, BoolIsLogicalOr) {
  Args a;
  a.tensor<bool>({4}, {false, true, false, true});
  a.tensor<bool>({4}, {false, false, true, true});
  a.add_int(1);
  a.tensor<bool>({4});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<bool>(3), (std::vector<bool>{false, true, true, true}));
}

TEST(Add, Errors) {
  auto build = [](Args& a) {
    a.tensor<float>({2}, {1, 2});
    a.tensor<float>({2}, {1, 2});
    a.add_int(1);
    a.tensor<float>({2});
    a.repeat(3);
  };
  {
    Args a;
    build(a);
    a.pop();
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);
  }
  {
    Args a;
    build(a);
    a.replace(1, EValue::from_int(3));  // wrong tag
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);
  }
  {
    Args a;
    a.tensor<float>({2}, {1, 2});
    a.tensor<float>({3}, {1, 2, 3});
    a.add_int(1);
    a.tensor<float>({3});
    a.repeat(3);
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);  // not broadcastable
  }
  {
    Args a;
    a.tensor<float>({2}, {1, 2});
    a.tensor<float>({2}, {1, 2});
    a.add_int(1);
    a.tensor<int32_t>({2});
    a.repeat(3);
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidType);  // float -> int out
  }
  {
    Args a;
    a.tensor<int32_t>({2}, {1, 2});
    a.tensor<int32_t>({2}, {1, 2});
    a.add_double(1.5);
    a.tensor<int32_t>({2});
    a.repeat(3);
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);  // float alpha, int
  }
  {
    Args a;
    build(a);
    a.tensor<float>({2});
    a.replace(4, a.at(5));  // return slot is a different tensor
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);
  }
  {
    Args a;
    build(a);
    a.at(0).to_tensor().data = nullptr;  // no storage
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);
  }
}

TEST(Sub, F32AlphaAndScalar) {
  Args a;
  a.tensor<float>({3}, {1, 2, 3});
  a.tensor<float>({3}, {1, 1, 1});
  a.add_int(2);
  a.tensor<float>({3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_sub_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{-1, 0, 1}));

  Args b;
  b.tensor<int64_t>({2}, {5, 7});
  b.add_int(2);
  b.add_int(3);
  b.tensor<int64_t>({2});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_sub_Scalar_out), Error::Ok);
  EXPECT_EQ(b.values<int64_t>(3), (std::vector<int64_t>{-1, 1}));
}

TEST(Sub, BoolRejected) {
  Args a;
  a.tensor<bool>({1}, {true});
  a.tensor<bool>({1}, {true});
  a.add_int(1);
  a.tensor<bool>({1});
  a.repeat(3);
  EXPECT_EQ(a.call(kernels::aten_sub_out), Error::InvalidArgument);
}

TEST(Mul, F32AndInt32AndScalar) {
  Args a;
  a.tensor<float>({2, 2}, {3, 3, 3, 3});
  a.tensor<float>({2, 2}, {1, -2, 0.5f, 4});
  a.tensor<float>({2, 2});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_mul_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2), (std::vector<float>{3, -6, 1.5f, 12}));

  Args b;
  b.tensor<int32_t>({2, 2}, {3, 3, 3, 3});
  b.tensor<int32_t>({2, 2}, {1, -2, 0, 4});
  b.tensor<int32_t>({2, 2});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_mul_out), Error::Ok);
  EXPECT_EQ(b.values<int32_t>(2), (std::vector<int32_t>{3, -6, 0, 12}));

  Args c;
  c.tensor<int32_t>({2}, {3, -3});
  c.add_double(0.5);
  c.tensor<float>({2});
  c.repeat(2);
  ASSERT_EQ(c.call(kernels::aten_mul_Scalar_out), Error::Ok);
  EXPECT_EQ(c.values<float>(2), (std::vector<float>{1.5f, -1.5f}));
}

TEST(Div, TrueDivisionOfIntsGivesFloat) {
  Args a;
  a.tensor<int32_t>({3}, {7, -7, 1});
  a.tensor<int32_t>({3}, {2, 2, 0});
  a.tensor<float>({3});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_div_out), Error::Ok);
  auto got = a.values<float>(2);
  EXPECT_EQ(got[0], 3.5f);
  EXPECT_EQ(got[1], -3.5f);
  EXPECT_TRUE(std::isinf(got[2]));

  Args b;  // int out is not allowed for true division
  b.tensor<int32_t>({1}, {7});
  b.tensor<int32_t>({1}, {2});
  b.tensor<int32_t>({1});
  b.repeat(2);
  EXPECT_EQ(b.call(kernels::aten_div_out), Error::InvalidType);
}

TEST(Div, Modes) {
  auto run = [](const char* mode, std::vector<int32_t> x, std::vector<int32_t> y) {
    Args a;
    a.tensor<int32_t>({4}, x);
    a.tensor<int32_t>({4}, y);
    a.add_string(mode);
    a.tensor<int32_t>({4});
    a.repeat(3);
    EXPECT_EQ(a.call(kernels::aten_div_out_mode), Error::Ok);
    return a.values<int32_t>(3);
  };
  EXPECT_EQ(run("trunc", {7, -7, 7, -7}, {2, 2, -2, -2}), (std::vector<int32_t>{3, -3, -3, 3}));
  EXPECT_EQ(run("floor", {7, -7, 7, -7}, {2, 2, -2, -2}), (std::vector<int32_t>{3, -4, -4, 3}));

  Args f;
  f.tensor<float>({4}, {7, -7, 7.5f, -0.5f});
  f.tensor<float>({4}, {2, 2, -2, 4});
  f.add_string("floor");
  f.tensor<float>({4});
  f.repeat(3);
  ASSERT_EQ(f.call(kernels::aten_div_out_mode), Error::Ok);
  auto got = f.values<float>(3);
  EXPECT_EQ(got[0], 3.0f);
  EXPECT_EQ(got[1], -4.0f);
  EXPECT_EQ(got[2], -4.0f);
  EXPECT_EQ(got[3], -1.0f);

  Args z;  // integer division by zero fails cleanly
  z.tensor<int32_t>({1}, {1});
  z.tensor<int32_t>({1}, {0});
  z.add_string("trunc");
  z.tensor<int32_t>({1});
  z.repeat(3);
  EXPECT_EQ(z.call(kernels::aten_div_out_mode), Error::InvalidArgument);

  Args n;  // None mode = true division
  n.tensor<float>({1}, {1});
  n.tensor<float>({1}, {4});
  n.add_none();
  n.tensor<float>({1});
  n.repeat(3);
  ASSERT_EQ(n.call(kernels::aten_div_out_mode), Error::Ok);
  EXPECT_EQ(n.values<float>(3)[0], 0.25f);

  Args bad;
  bad.tensor<float>({1}, {1});
  bad.tensor<float>({1}, {4});
  bad.add_string("round");
  bad.tensor<float>({1});
  bad.repeat(3);
  EXPECT_EQ(bad.call(kernels::aten_div_out_mode), Error::InvalidArgument);
}

TEST(Div, Scalar) {
  Args a;
  a.tensor<float>({2}, {1, 3});
  a.add_int(2);
  a.tensor<float>({2});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_div_Scalar_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2), (std::vector<float>{0.5f, 1.5f}));
}

template <typename F>
void check_float_unary(OpFunction fn, F ref) {
  std::vector<float> x = {-5.0f, -1.5f, -0.25f, 0.0f, 0.3f, 1.0f, 2.5f, 9.0f};
  Args a;
  a.tensor<float>({2, 4}, x);
  a.tensor<float>({2, 4});
  a.repeat(1);
  ASSERT_EQ(a.call(fn), Error::Ok);
  std::vector<double> want;
  for (float v : x) want.push_back(ref(double(v)));
  expect_near(a.values<float>(1), want, 2e-6);
}

TEST(Unary, Activations) {
  check_float_unary(kernels::aten_sigmoid_out, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  check_float_unary(kernels::aten_tanh_out, [](double v) { return std::tanh(v); });
  check_float_unary(kernels::aten_exp_out, [](double v) { return std::exp(v); });
  check_float_unary(kernels::aten_relu_out, [](double v) { return v < 0 ? 0.0 : v; });
  check_float_unary(kernels::aten_neg_out, [](double v) { return -v; });
}

TEST(Unary, Rsqrt) {
  Args a;
  a.tensor<float>({3}, {4, 0.25f, -1});
  a.tensor<float>({3});
  a.repeat(1);
  ASSERT_EQ(a.call(kernels::aten_rsqrt_out), Error::Ok);
  auto got = a.values<float>(1);
  EXPECT_FLOAT_EQ(got[0], 0.5f);
  EXPECT_FLOAT_EQ(got[1], 2.0f);
  EXPECT_TRUE(std::isnan(got[2]));
}

TEST(Unary, SigmoidIntInputPromotes) {
  Args a;
  a.tensor<int32_t>({2}, {0, 2});
  a.tensor<float>({2});
  a.repeat(1);
  ASSERT_EQ(a.call(kernels::aten_sigmoid_out), Error::Ok);
  expect_near(a.values<float>(1), {0.5, 1.0 / (1.0 + std::exp(-2.0))});

  Args b;  // integer out is rejected
  b.tensor<int32_t>({2}, {0, 2});
  b.tensor<int32_t>({2});
  b.repeat(1);
  EXPECT_EQ(b.call(kernels::aten_sigmoid_out), Error::InvalidType);
}

TEST(Unary, ReluIntAndChannelsLastAndNaN) {
  Args a;
  a.tensor<int8_t>({4}, {-3, 0, 5, -128});
  a.tensor<int8_t>({4});
  a.repeat(1);
  ASSERT_EQ(a.call(kernels::aten_relu_out), Error::Ok);
  EXPECT_EQ(a.values<int8_t>(1), (std::vector<int8_t>{0, 0, 5, 0}));

  std::vector<float> x(2 * 2 * 2 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) - 10.0f;
  Args b;  // contiguous in, channels-last out: values follow logical indices
  b.tensor<float>({2, 2, 2, 3}, x);
  b.empty({2, 2, 2, 3}, ScalarType::Float, test::channels_last());
  b.repeat(1);
  ASSERT_EQ(b.call(kernels::aten_relu_out), Error::Ok);
  auto got = b.values<float>(1);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], x[i] < 0 ? 0.0f : x[i]);

  Args c;
  c.tensor<float>({1}, {NAN});
  c.tensor<float>({1});
  c.repeat(1);
  ASSERT_EQ(c.call(kernels::aten_relu_out), Error::Ok);
  EXPECT_TRUE(std::isnan(c.values<float>(1)[0]));

  Args d;  // dtype mismatch
  d.tensor<float>({1}, {1});
  d.tensor<int32_t>({1});
  d.repeat(1);
  EXPECT_EQ(d.call(kernels::aten_relu_out), Error::InvalidType);
}

TEST(Unary, Gelu) {
  std::vector<float> x = {-3, -1, -0.5f, 0, 0.5f, 1, 3};
  for (const char* mode : {"none", "tanh"}) {
    Args a;
    a.tensor<float>({7}, x);
    a.add_string(mode);
    a.tensor<float>({7});
    a.repeat(2);
    ASSERT_EQ(a.call(kernels::aten_gelu_out), Error::Ok);
    std::vector<double> want;
    for (float v : x) {
      double d = v;
      want.push_back(std::string(mode) == "none"
                         ? 0.5 * d * (1 + std::erf(d / std::sqrt(2.0)))
                         : 0.5 * d *
                               (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d))));
    }
    expect_near(a.values<float>(2), want, 1e-6);
  }
}

TEST(Clamp, BoundsAndPromotion) {
  Args a;
  a.tensor<float>({5}, {-2, -0.5f, 0.5f, 2, NAN});
  a.add_double(-1);
  a.add_double(1);
  a.tensor<float>({5});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_clamp_out), Error::Ok);
  auto got = a.values<float>(3);
  EXPECT_EQ(got[0], -1);
  EXPECT_EQ(got[1], -0.5f);
  EXPECT_EQ(got[2], 0.5f);
  EXPECT_EQ(got[3], 1);
  EXPECT_TRUE(std::isnan(got[4]));

  Args b;  // only max; int tensor
  b.tensor<int32_t>({3}, {-5, 3, 10});
  b.add_none();
  b.add_int(4);
  b.tensor<int32_t>({3});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_clamp_out), Error::Ok);
  EXPECT_EQ(b.values<int32_t>(3), (std::vector<int32_t>{-5, 3, 4}));

  Args c;  // int tensor with a float bound -> float result; int out rejected
  c.tensor<int32_t>({1}, {1});
  c.add_double(0.5);
  c.add_none();
  c.tensor<int32_t>({1});
  c.repeat(3);
  EXPECT_EQ(c.call(kernels::aten_clamp_out), Error::InvalidType);

  Args d;
  d.tensor<float>({1}, {1});
  d.add_none();
  d.add_none();
  d.tensor<float>({1});
  d.repeat(3);
  EXPECT_EQ(d.call(kernels::aten_clamp_out), Error::InvalidArgument);
}

TEST(Hardtanh, Default) {
  Args a;
  a.tensor<float>({4}, {-3, -0.5f, 0.7f, 8});
  a.add_int(-1);
  a.add_int(1);
  a.tensor<float>({4});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_hardtanh_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{-1, -0.5f, 0.7f, 1}));

  Args b;  // relu6 on int8
  b.tensor<int8_t>({3}, {-3, 4, 100});
  b.add_int(0);
  b.add_int(6);
  b.tensor<int8_t>({3});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_hardtanh_out), Error::Ok);
  EXPECT_EQ(b.values<int8_t>(3), (std::vector<int8_t>{0, 4, 6}));
}

}  // namespace
}  // namespace etmcu

namespace etmcu {
namespace {
using test::Args;
using test::expect_near;

TEST(Compare, ScalarAndTensorOverloads) {
  struct Case {
    OpFunction scalar, tensor;
    bool (*ref)(double, double);
  };
  const Case cases[] = {
      {kernels::aten_eq_Scalar_out, kernels::aten_eq_Tensor_out,
       [](double x, double y) { return x == y; }},
      {kernels::aten_ne_Scalar_out, kernels::aten_ne_Tensor_out,
       [](double x, double y) { return x != y; }},
      {kernels::aten_lt_Scalar_out, kernels::aten_lt_Tensor_out,
       [](double x, double y) { return x < y; }},
      {kernels::aten_le_Scalar_out, kernels::aten_le_Tensor_out,
       [](double x, double y) { return x <= y; }},
      {kernels::aten_gt_Scalar_out, kernels::aten_gt_Tensor_out,
       [](double x, double y) { return x > y; }},
      {kernels::aten_ge_Scalar_out, kernels::aten_ge_Tensor_out,
       [](double x, double y) { return x >= y; }},
  };
  const std::vector<float> x = {-1, 0, 0.5f, 1, NAN};
  for (const auto& c : cases) {
    Args a;  // f32 tensor vs int scalar 0
    a.tensor<float>({5}, x);
    a.add_int(0);
    a.tensor<bool>({5});
    a.repeat(2);
    ASSERT_EQ(a.call(c.scalar), Error::Ok);
    auto got = a.values<bool>(2);
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], c.ref(x[i], 0.0)) << i;

    Args b;  // int32 [2,1] vs f32 [3] broadcast (promoted to float), channels of different orders
    b.tensor<int32_t>({2, 1}, {0, 2});
    b.tensor<float>({3}, {-0.5f, 0, 2});
    b.tensor<bool>({2, 3});
    b.repeat(2);
    ASSERT_EQ(b.call(c.tensor), Error::Ok);
    auto gb = b.values<bool>(2);
    const double xs[2] = {0, 2}, ys[3] = {-0.5, 0, 2};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(gb[i * 3 + j], c.ref(xs[i], ys[j]));
  }

  Args i8;  // PyTorch converts the wrapped scalar to the tensor's int8: 300 wraps to 44
  i8.tensor<int8_t>({2}, {44, 1});
  i8.add_int(300);
  i8.tensor<bool>({2});
  i8.repeat(2);
  ASSERT_EQ(i8.call(kernels::aten_eq_Scalar_out), Error::Ok);
  EXPECT_EQ(i8.values<bool>(2), (std::vector<bool>{true, false}));

  Args bad;  // shapes do not broadcast
  bad.tensor<float>({2}, {1, 2});
  bad.tensor<float>({3}, {1, 2, 3});
  bad.tensor<bool>({3});
  bad.repeat(2);
  EXPECT_EQ(bad.call(kernels::aten_lt_Tensor_out), Error::InvalidArgument);
}

TEST(Unary, LeakyReluAbsSqrtLog) {
  Args a;
  a.tensor<float>({4}, {-2, -0.5f, 0, 3});
  a.add_double(0.1);
  a.tensor<float>({4});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_leaky_relu_out), Error::Ok);
  expect_near(a.values<float>(2), {-0.2, -0.05, 0, 3});

  Args b;
  b.tensor<int32_t>({3}, {-5, 0, INT32_MIN});
  b.tensor<int32_t>({3});
  b.repeat(1);
  ASSERT_EQ(b.call(kernels::aten_abs_out), Error::Ok);
  EXPECT_EQ(b.values<int32_t>(1), (std::vector<int32_t>{5, 0, INT32_MIN}));  // wraps as PyTorch

  Args c;
  c.tensor<float>({3}, {-1.5f, -0.0f, 2});
  c.tensor<float>({3});
  c.repeat(1);
  ASSERT_EQ(c.call(kernels::aten_abs_out), Error::Ok);
  auto gc = c.values<float>(1);
  EXPECT_EQ(gc[0], 1.5f);
  EXPECT_FALSE(std::signbit(gc[1]));
  EXPECT_EQ(gc[2], 2.0f);

  check_float_unary(kernels::aten_sqrt_out, [](double v) { return std::sqrt(v); });
  check_float_unary(kernels::aten_log_out, [](double v) { return std::log(v); });
}

}  // namespace
}  // namespace etmcu
