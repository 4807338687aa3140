// Cross-cutting kernel tests: every op in ops.txt resolves through the kernel table, in-place
// aliasing (out == self), f64 paths, rejected dtypes, malformed argument lists.
#include <fstream>
#include <string>

#include "kernels/portable/util/kernel_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;
using test::expect_near;

#ifndef ETMCU_TEST_NO_KERNEL_TABLE  // the no-f64 variant links no kernel table
TEST(KernelTable, EveryListedOpResolves) {
  std::ifstream f(ETMCU_PORTABLE_OPS_TXT);
  ASSERT_TRUE(f.good()) << ETMCU_PORTABLE_OPS_TXT;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_NE(find_kernel(line.data(), line.size()), nullptr) << line;
    ++n;
  }
  EXPECT_GE(n, 50);
}
#endif

TEST(Aliasing, InPlaceAddAndSoftmax) {
  Args a;
  a.tensor<float>({3}, {1, 2, 3});
  a.tensor<float>({3}, {10, 20, 30});
  a.add_int(1);
  a.repeat(0);  // out is self
  a.repeat(0);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<float>(0), (std::vector<float>{11, 22, 33}));

  Args s;
  s.tensor<float>({2}, {0, 0});
  s.add_int(0);
  s.add_bool(false);
  s.repeat(0);
  s.repeat(0);
  ASSERT_EQ(s.call(kernels::aten__softmax_out), Error::Ok);
  EXPECT_EQ(s.values<float>(0), (std::vector<float>{0.5f, 0.5f}));
}

TEST(Float64, ElementwiseSoftmaxConv) {
  if (!kernels::util::kF64) {  // built without f64 support: f64 tensors are rejected cleanly
    Args r;
    r.tensor<double>({2}, {1, 2});
    r.tensor<double>({2}, {1, 1});
    r.add_int(1);
    r.tensor<double>({2});
    r.repeat(3);
    EXPECT_EQ(r.call(kernels::aten_add_out), Error::InvalidType);
    return;
  }
  Args a;
  a.tensor<double>({2}, {1e-20, 1});
  a.tensor<double>({2}, {1, 1});
  a.add_int(1);
  a.tensor<double>({2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<double>(3), (std::vector<double>{1 + 1e-20, 2}));

  Args s;
  s.tensor<double>({3}, {1, 2, 3});
  s.add_int(0);
  s.add_bool(false);
  s.tensor<double>({3});
  s.repeat(3);
  ASSERT_EQ(s.call(kernels::aten__softmax_out), Error::Ok);
  auto got = s.values<double>(3);
  double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_NEAR(got[2], std::exp(3.0) / z, 1e-15);

  Args c;  // 1x1 conv in f64
  c.tensor<double>({1, 2, 1, 1}, {1.5, -2});
  c.tensor<double>({1, 2, 1, 1}, {2, 0.25});
  c.tensor<double>({1}, {0.125});
  c.add_int_list({1, 1});
  c.add_int_list({0, 0});
  c.add_int_list({1, 1});
  c.add_bool(false);
  c.add_int_list({0, 0});
  c.add_int(1);
  c.tensor<double>({1, 1, 1, 1});
  c.repeat(9);
  ASSERT_EQ(c.call(kernels::aten_convolution_out), Error::Ok);
  EXPECT_EQ(c.values<double>(9)[0], 1.5 * 2 - 2 * 0.25 + 0.125);
}

TEST(Dtypes, HalfAndQuantizedRejected) {
  Args a;
  a.empty({2}, ScalarType::Half);
  a.empty({2}, ScalarType::Half);
  a.add_int(1);
  a.empty({2}, ScalarType::Half);
  a.repeat(3);
  EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidType);

  Args r;
  r.empty({2}, ScalarType::QInt8);
  r.empty({2}, ScalarType::QInt8);
  r.repeat(1);
  EXPECT_EQ(r.call(kernels::aten_relu_out), Error::InvalidType);

  Args s;
  s.empty({2}, ScalarType::BFloat16);
  s.add_int(0);
  s.add_bool(false);
  s.empty({2}, ScalarType::BFloat16);
  s.repeat(3);
  EXPECT_EQ(s.call(kernels::aten__softmax_out), Error::InvalidType);
}

TEST(Malformed, TensorMetadataAndLists) {
  {
    Args a;  // dim_order not a permutation
    a.tensor<float>({2, 2}, {1, 2, 3, 4}, {0, 0});
    a.tensor<float>({2, 2});
    a.repeat(1);
    EXPECT_EQ(a.call(kernels::aten_relu_out), Error::InvalidArgument);
  }
  {
    Args a;  // nbytes too small for the shape
    a.tensor<float>({4}, {1, 2, 3, 4});
    a.tensor<float>({4});
    a.repeat(1);
    a.at(1).to_tensor().nbytes = 8;
    EXPECT_EQ(a.call(kernels::aten_relu_out), Error::InvalidArgument);
  }
  {
    Args a;  // negative size
    a.tensor<float>({2}, {1, 2});
    a.tensor<float>({2});
    a.repeat(1);
    const_cast<int32_t*>(a.at(0).to_tensor().sizes)[0] = -1;
    EXPECT_EQ(a.call(kernels::aten_relu_out), Error::InvalidArgument);
  }
  {
    Args a;  // multi-output op: TensorList does not list the outs
    a.tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
    a.add_int_list({2, 2});
    a.add_int_list({2, 2});
    a.add_int_list({0, 0});
    a.add_int_list({1, 1});
    a.add_bool(false);
    a.tensor<float>({1, 1, 1, 1});
    a.tensor<int64_t>({1, 1, 1, 1});
    a.add_tensor_list({7, 6});  // swapped
    EXPECT_EQ(a.call(kernels::aten_max_pool2d_with_indices_out), Error::InvalidArgument);
  }
  {
    Args a;  // a None where a tensor is required
    a.add_none();
    a.tensor<float>({1}, {1});
    a.add_int(1);
    a.tensor<float>({1});
    a.repeat(3);
    EXPECT_EQ(a.call(kernels::aten_add_out), Error::InvalidArgument);
  }
  {
    Args a;  // empty argument list
    a.tensor<float>({1}, {1});
    EXPECT_EQ(a.call(kernels::aten_mul_out, 1), Error::InvalidArgument);
  }
}

TEST(Saturation, OutOfRangeScalarsAndConversions) {
  Args a;  // int8 hardtanh with bounds outside int8: saturated, not UB
  a.tensor<int8_t>({3}, {-128, 0, 127});
  a.add_double(-1e30);
  a.add_int(int64_t(1) << 40);
  a.tensor<int8_t>({3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_hardtanh_out), Error::Ok);
  EXPECT_EQ(a.values<int8_t>(3), (std::vector<int8_t>{-128, 0, 127}));

  Args c;  // float -> int32 conversion of NaN/huge values is defined (0 / saturate-then-wrap)
  c.tensor<float>({3}, {NAN, 1e20f, -3.7f});
  c.add_bool(false);
  c.add_none();
  c.tensor<int64_t>({3});
  c.repeat(3);
  ASSERT_EQ(c.call(kernels::aten__to_copy_out), Error::Ok);
  EXPECT_EQ(c.values<int64_t>(3), (std::vector<int64_t>{0, INT64_MAX, -3}));

  Args s;  // slice with a huge step
  s.tensor<float>({4}, {1, 2, 3, 4});
  s.add_int(0);
  s.add_int(1);
  s.add_none();
  s.add_int(INT64_MAX);
  s.tensor<float>({1});
  s.repeat(5);
  ASSERT_EQ(s.call(kernels::aten_slice_copy_Tensor_out), Error::Ok);
  EXPECT_EQ(s.values<float>(5), (std::vector<float>{2}));
}

TEST(Wrapping, IntegerOverflowWrapsLikePyTorch) {
  Args a;  // int8 + int8 computes in int8: 100 + 100 = -56
  a.tensor<int8_t>({2}, {100, -100});
  a.tensor<int8_t>({2}, {100, -100});
  a.add_int(1);
  a.tensor<int8_t>({2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<int8_t>(3), (std::vector<int8_t>{-56, 56}));

  Args b;  // int64 wraps instead of overflowing (UB)
  b.tensor<int64_t>({1}, {INT64_MAX});
  b.add_int(1);
  b.add_int(1);
  b.tensor<int64_t>({1});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_add_Scalar_out), Error::Ok);
  EXPECT_EQ(b.values<int64_t>(3)[0], INT64_MIN);

  Args n;
  n.tensor<int64_t>({2}, {INT64_MIN, 5});
  n.tensor<int64_t>({2});
  n.repeat(1);
  ASSERT_EQ(n.call(kernels::aten_neg_out), Error::Ok);
  EXPECT_EQ(n.values<int64_t>(1), (std::vector<int64_t>{INT64_MIN, -5}));

  Args f;  // float tensor + int scalar: the scalar is converted to float first
  f.tensor<float>({2}, {0.5f, 16777216.0f});
  f.add_int(1);
  f.add_int(1);
  f.tensor<float>({2});
  f.repeat(3);
  ASSERT_EQ(f.call(kernels::aten_add_Scalar_out), Error::Ok);
  EXPECT_EQ(f.values<float>(3), (std::vector<float>{1.5f, 16777216.0f}));  // 2^24 + 1 rounds
}

TEST(Empty, ZeroSizedTensors) {
  Args a;
  a.tensor<float>({0, 3}, {});
  a.tensor<float>({3}, {1, 2, 3});
  a.add_int(1);
  a.tensor<float>({0, 3});
  a.repeat(3);
  EXPECT_EQ(a.call(kernels::aten_add_out), Error::Ok);

  Args m;  // sum over an empty dim gives 0
  m.tensor<float>({2, 0}, {});
  m.add_int_list({1});
  m.add_bool(false);
  m.add_none();
  m.tensor<float>({2});
  m.repeat(4);
  ASSERT_EQ(m.call(kernels::aten_sum_IntList_out), Error::Ok);
  EXPECT_EQ(m.values<float>(4), (std::vector<float>{0, 0}));
}

}  // namespace
}  // namespace etmcu
