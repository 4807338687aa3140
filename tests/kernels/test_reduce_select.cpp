// Tests of mean/sum, eq/where/full, softmax/log_softmax and the corpus op sequences (model.pte:
// mean -> eq -> clone -> where; linear.pte: permute -> addmm) with hand-computed results.
#include <cmath>

#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;
using test::expect_near;

TEST(Mean, CorpusDim1) {
  Args a;  // mean.out(f32[1,2], [1], False, None) -> f32[1]
  a.tensor<float>({1, 2}, {3, 6});
  a.add_int_list({1});
  a.add_bool(false);
  a.add_none();
  a.tensor<float>({1});
  a.repeat(4);
  ASSERT_EQ(a.call(kernels::aten_mean_out), Error::Ok);
  EXPECT_EQ(a.values<float>(4), (std::vector<float>{4.5f}));
}

TEST(Mean, MultiDimKeepdimChannelsLast) {
  // Global average pool as mean over [-1, -2] with keepdim on a channels-last tensor.
  const int N = 2, C = 3, H = 2, W = 3;
  std::vector<float> x(N * C * H * W);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float((i * 37) % 11) - 5.0f;
  Args a;
  a.tensor<float>({N, C, H, W}, x, test::channels_last());
  a.add_int_list({-1, -2});
  a.add_bool(true);
  a.add_none();
  a.tensor<float>({N, C, 1, 1});
  a.repeat(4);
  ASSERT_EQ(a.call(kernels::aten_mean_out), Error::Ok);
  std::vector<double> want;
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c) {
      double s = 0;
      for (int i = 0; i < H * W; ++i) s += x[(n * C + c) * H * W + i];
      want.push_back(s / (H * W));
    }
  expect_near(a.values<float>(4), want);

  Args b;  // wrong out shape (keepdim ignored)
  b.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  b.add_int_list({1});
  b.add_bool(false);
  b.add_none();
  b.tensor<float>({2, 1});
  b.repeat(4);
  EXPECT_EQ(b.call(kernels::aten_mean_out), Error::InvalidArgument);

  Args c;  // duplicate dim
  c.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  c.add_int_list({1, -1});
  c.add_bool(false);
  c.add_none();
  c.tensor<float>({2});
  c.repeat(4);
  EXPECT_EQ(c.call(kernels::aten_mean_out), Error::InvalidArgument);

  Args d;  // integer out
  d.tensor<int32_t>({2}, {1, 2});
  d.add_none();
  d.add_bool(false);
  d.add_none();
  d.tensor<int32_t>({});
  d.repeat(4);
  EXPECT_EQ(d.call(kernels::aten_mean_out), Error::InvalidType);
}

TEST(Sum, AllDimsAndInt) {
  Args a;
  a.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  a.add_none();
  a.add_bool(false);
  a.add_none();
  a.tensor<float>({});
  a.repeat(4);
  ASSERT_EQ(a.call(kernels::aten_sum_IntList_out), Error::Ok);
  EXPECT_EQ(a.values<float>(4)[0], 21.0f);

  Args b;  // int32 -> int64 along dim 0 with keepdim
  b.tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  b.add_int_list({0});
  b.add_bool(true);
  b.add_int(4);  // dtype=torch.int64
  b.tensor<int64_t>({1, 3});
  b.repeat(4);
  ASSERT_EQ(b.call(kernels::aten_sum_IntList_out), Error::Ok);
  EXPECT_EQ(b.values<int64_t>(4), (std::vector<int64_t>{5, 7, 9}));

  Args c;  // dtype arg disagrees with out
  c.tensor<int32_t>({2}, {1, 2});
  c.add_none();
  c.add_bool(false);
  c.add_int(6);
  c.tensor<int64_t>({});
  c.repeat(4);
  EXPECT_EQ(c.call(kernels::aten_sum_IntList_out), Error::InvalidType);
}

TEST(Eq, ScalarFloatAndInt) {
  Args a;  // corpus: eq.Scalar_out(f32[1], Int(0)) -> bool[1]
  a.tensor<float>({3}, {0.0f, -0.0f, 1e-30f});
  a.add_int(0);
  a.tensor<bool>({3});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_eq_Scalar_out), Error::Ok);
  EXPECT_EQ(a.values<bool>(2), (std::vector<bool>{true, true, false}));

  Args b;  // int tensor vs float scalar compares as float
  b.tensor<int32_t>({2}, {2, 3});
  b.add_double(2.0);
  b.tensor<bool>({2});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_eq_Scalar_out), Error::Ok);
  EXPECT_EQ(b.values<bool>(2), (std::vector<bool>{true, false}));

  Args c;
  c.tensor<int32_t>({2}, {2, 3});
  c.add_double(2.5);
  c.tensor<bool>({2});
  c.repeat(2);
  ASSERT_EQ(c.call(kernels::aten_eq_Scalar_out), Error::Ok);
  EXPECT_EQ(c.values<bool>(2), (std::vector<bool>{false, false}));
}

TEST(Where, CorpusZeroDimBroadcastAndDtypes) {
  Args a;  // where(bool[1], f32[], f32[1]) -> f32[1]
  a.tensor<bool>({1}, {true});
  a.tensor<float>({}, {1.1f});
  a.tensor<float>({1}, {7.0f});
  a.tensor<float>({1});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_where_self_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3)[0], 1.1f);

  Args b;  // broadcast [2,1] cond with [3] operands, int32 + int64 -> int64
  b.tensor<bool>({2, 1}, {true, false});
  b.tensor<int32_t>({3}, {1, 2, 3});
  b.tensor<int64_t>({3}, {-1, -2, -3});
  b.tensor<int64_t>({2, 3});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_where_self_out), Error::Ok);
  EXPECT_EQ(b.values<int64_t>(3), (std::vector<int64_t>{1, 2, 3, -1, -2, -3}));

  Args c;  // non-bool condition
  c.tensor<float>({1}, {1});
  c.tensor<float>({1}, {1});
  c.tensor<float>({1}, {1});
  c.tensor<float>({1});
  c.repeat(3);
  EXPECT_EQ(c.call(kernels::aten_where_self_out), Error::InvalidType);

  Args d;  // float operands into an int out
  d.tensor<bool>({1}, {true});
  d.tensor<float>({1}, {1});
  d.tensor<float>({1}, {1});
  d.tensor<int32_t>({1});
  d.repeat(3);
  EXPECT_EQ(d.call(kernels::aten_where_self_out), Error::InvalidType);
}

TEST(Corpus, ModelPteSequence) {
  // m = mean(x, dim=1); out = where(m == 0, 1.1, m) for x = [[-1, 1]] and [[2, 3]].
  for (auto x : {std::vector<float>{-1, 1}, std::vector<float>{2, 3}}) {
    Args a;
    a.tensor<float>({1, 2}, x);  // 0
    a.add_int_list({1});         // 1
    a.add_bool(false);           // 2
    a.add_none();                // 3
    a.tensor<float>({1});        // 4: m
    a.repeat(4);                 // 5
    ASSERT_EQ(a.call(kernels::aten_mean_out), Error::Ok);
    Args e;
    e.tensor<float>({1}, a.values<float>(4));
    e.add_int(0);
    e.tensor<bool>({1});
    e.repeat(2);
    ASSERT_EQ(e.call(kernels::aten_eq_Scalar_out), Error::Ok);
    Args w;
    w.tensor<bool>({1}, e.values<bool>(2));
    w.tensor<float>({}, {1.1f});
    w.tensor<float>({1}, a.values<float>(4));
    w.tensor<float>({1});
    w.repeat(3);
    ASSERT_EQ(w.call(kernels::aten_where_self_out), Error::Ok);
    const float m = (x[0] + x[1]) / 2;
    EXPECT_EQ(w.values<float>(3)[0], m == 0 ? 1.1f : m);
  }
}

TEST(Full, FloatIntBool) {
  Args a;
  a.add_int_list({2, 2});
  a.add_double(1.5);
  a.tensor<float>({2, 2});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_full_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2), (std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f}));

  Args b;
  b.add_int_list({3});
  b.add_int(-7);
  b.tensor<int64_t>({3});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_full_out), Error::Ok);
  EXPECT_EQ(b.values<int64_t>(2), (std::vector<int64_t>{-7, -7, -7}));

  Args c;
  c.add_int_list({2});
  c.add_int(1);
  c.tensor<float>({3});
  c.repeat(2);
  EXPECT_EQ(c.call(kernels::aten_full_out), Error::InvalidArgument);
}

std::vector<double> ref_softmax(const std::vector<float>& x, bool log_mode) {
  double mx = -INFINITY;
  for (float v : x) mx = std::max(mx, double(v));
  double s = 0;
  for (float v : x) s += std::exp(double(v) - mx);
  std::vector<double> r;
  for (float v : x)
    r.push_back(log_mode ? double(v) - mx - std::log(s) : std::exp(double(v) - mx) / s);
  return r;
}

TEST(Softmax, LastDimAndMiddleDimAndLargeValues) {
  Args a;
  a.tensor<float>({2, 3}, {1, 2, 3, 1000, 1001, 1002});  // large values need max subtraction
  a.add_int(-1);
  a.add_bool(false);
  a.tensor<float>({2, 3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten__softmax_out), Error::Ok);
  auto r = ref_softmax({1, 2, 3}, false);
  std::vector<double> want = r;
  want.insert(want.end(), r.begin(), r.end());
  expect_near(a.values<float>(3), want, 1e-6);

  // dim=1 of [2,3,2] channels-last-like order [0,2,1]
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = 0.37f * i - 2.0f;
  for (bool log_mode : {false, true}) {
    Args b;
    b.tensor<float>({2, 3, 2}, x, {0, 2, 1});
    b.add_int(1);
    b.add_bool(false);
    b.tensor<float>({2, 3, 2});
    b.repeat(3);
    ASSERT_EQ(b.call(log_mode ? kernels::aten__log_softmax_out : kernels::aten__softmax_out),
              Error::Ok);
    std::vector<double> want2(12);
    for (int n = 0; n < 2; ++n)
      for (int w = 0; w < 2; ++w) {
        std::vector<float> line;
        for (int c = 0; c < 3; ++c) line.push_back(x[(n * 3 + c) * 2 + w]);
        auto rr = ref_softmax(line, log_mode);
        for (int c = 0; c < 3; ++c) want2[(n * 3 + c) * 2 + w] = rr[c];
      }
    expect_near(b.values<float>(3), want2, 1e-6);
  }

  Args c;
  c.tensor<int32_t>({2}, {1, 2});
  c.add_int(0);
  c.add_bool(false);
  c.tensor<int32_t>({2});
  c.repeat(3);
  EXPECT_EQ(c.call(kernels::aten__softmax_out), Error::InvalidType);

  Args d;
  d.tensor<float>({2}, {1, 2});
  d.add_int(1);
  d.add_bool(false);
  d.tensor<float>({2});
  d.repeat(3);
  EXPECT_EQ(d.call(kernels::aten__softmax_out), Error::InvalidArgument);
}

#ifndef ETMCU_TEST_NO_KERNEL_TABLE  // the no-f64 variant links no kernel table
TEST(KernelTable, FindsCorpusOps) {
  for (const char* name :
       {"aten::add.out", "aten::mul.out", "aten::mean.out", "aten::eq.Scalar_out",
        "aten::clone.out", "aten::where.self_out", "aten::addmm.out", "aten::permute_copy.out",
        "dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out"}) {
    EXPECT_NE(find_kernel(name, strlen(name)), nullptr) << name;
  }
  EXPECT_EQ(find_kernel("aten::nope.out", 14), nullptr);
}
#endif

}  // namespace
}  // namespace etmcu
