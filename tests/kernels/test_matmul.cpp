// Tests of mm/bmm/addmm/linear against a naive double-precision reference, including transposed
// (non-contiguous dim order) operands and the corpus linear.pte sequence.
#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;
using test::expect_near;

std::vector<float> pattern(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float((i * 7 + 3) % 13) + shift;
  return v;
}

// C = A[n,k] @ B[k,m] in double.
std::vector<double> ref_mm(const std::vector<float>& a, const std::vector<float>& b, int n, int k,
                           int m) {
  std::vector<double> c(n * m, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      for (int p = 0; p < k; ++p) c[i * m + j] += double(a[i * k + p]) * b[p * m + j];
  return c;
}

TEST(Mm, F32AndTransposedOperand) {
  const int n = 3, k = 5, m = 4;
  auto A = pattern(n * k, 0.5f, -2), B = pattern(k * m, -0.25f, 1);
  Args a;
  a.tensor<float>({n, k}, A);
  a.tensor<float>({k, m}, B);
  a.tensor<float>({n, m});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_mm_out), Error::Ok);
  expect_near(a.values<float>(2), ref_mm(A, B, n, k, m));

  Args b;  // B stored column-major (dim order [1,0])
  b.tensor<float>({n, k}, A);
  b.tensor<float>({k, m}, B, {1, 0});
  b.tensor<float>({n, m});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_mm_out), Error::Ok);
  expect_near(b.values<float>(2), ref_mm(A, B, n, k, m));

  Args c;  // int32
  c.tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  c.tensor<int32_t>({2, 2}, {5, 6, 7, 8});
  c.tensor<int32_t>({2, 2});
  c.repeat(2);
  ASSERT_EQ(c.call(kernels::aten_mm_out), Error::Ok);
  EXPECT_EQ(c.values<int32_t>(2), (std::vector<int32_t>{19, 22, 43, 50}));

  Args d;  // inner dims mismatch
  d.tensor<float>({2, 3}, pattern(6, 1, 0));
  d.tensor<float>({2, 3}, pattern(6, 1, 0));
  d.tensor<float>({2, 3});
  d.repeat(2);
  EXPECT_EQ(d.call(kernels::aten_mm_out), Error::InvalidArgument);
}

TEST(Bmm, Batches) {
  const int bs = 2, n = 2, k = 3, m = 2;
  auto A = pattern(bs * n * k, 0.5f, -1), B = pattern(bs * k * m, 0.25f, 0.5f);
  Args a;
  a.tensor<float>({bs, n, k}, A);
  a.tensor<float>({bs, k, m}, B);
  a.tensor<float>({bs, n, m});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_bmm_out), Error::Ok);
  std::vector<double> want;
  for (int i = 0; i < bs; ++i) {
    auto r =
        ref_mm(std::vector<float>(A.begin() + i * n * k, A.begin() + (i + 1) * n * k),
               std::vector<float>(B.begin() + i * k * m, B.begin() + (i + 1) * k * m), n, k, m);
    want.insert(want.end(), r.begin(), r.end());
  }
  expect_near(a.values<float>(2), want);
}

TEST(Addmm, CorpusLinearSequence) {
  // linear.pte: Wt = permute_copy(W, [1,0]); out = addmm(b, x, Wt, beta=1, alpha=1).
  auto W = pattern(9, 0.3f, -1), x = pattern(9, -0.7f, 2);
  std::vector<float> bias = {0.1f, -0.2f, 0.3f};
  Args p;
  p.tensor<float>({3, 3}, W);
  p.add_int_list({1, 0});
  p.tensor<float>({3, 3});
  p.repeat(2);
  ASSERT_EQ(p.call(kernels::aten_permute_copy_out), Error::Ok);
  Args a;
  a.tensor<float>({3}, bias);
  a.tensor<float>({3, 3}, x);
  a.tensor<float>({3, 3}, p.values<float>(2));
  a.add_int(1);
  a.add_int(1);
  a.tensor<float>({3, 3});
  a.repeat(5);
  ASSERT_EQ(a.call(kernels::aten_addmm_out), Error::Ok);
  std::vector<double> want(9);
  for (int i = 0; i < 3; ++i)
    for (int o = 0; o < 3; ++o) {
      double s = bias[o];
      for (int j = 0; j < 3; ++j) s += double(x[i * 3 + j]) * W[o * 3 + j];
      want[i * 3 + o] = s;
    }
  expect_near(a.values<float>(5), want);
}

TEST(Addmm, BetaAlphaAndBetaZeroIgnoresNaN) {
  auto A = pattern(4, 1, 0), B = pattern(4, 1, 1);
  Args a;
  a.tensor<float>({2, 1}, {1, 2});
  a.tensor<float>({2, 2}, A);
  a.tensor<float>({2, 2}, B);
  a.add_double(0.5);
  a.add_double(2.0);
  a.tensor<float>({2, 2});
  a.repeat(5);
  ASSERT_EQ(a.call(kernels::aten_addmm_out), Error::Ok);
  auto mm = ref_mm(A, B, 2, 2, 2);
  expect_near(a.values<float>(5),
              {0.5 * 1 + 2 * mm[0], 0.5 * 1 + 2 * mm[1], 0.5 * 2 + 2 * mm[2], 0.5 * 2 + 2 * mm[3]});

  Args b;
  b.tensor<float>({2, 2}, {NAN, NAN, NAN, NAN});
  b.tensor<float>({2, 2}, A);
  b.tensor<float>({2, 2}, B);
  b.add_int(0);
  b.add_int(1);
  b.tensor<float>({2, 2});
  b.repeat(5);
  ASSERT_EQ(b.call(kernels::aten_addmm_out), Error::Ok);
  expect_near(b.values<float>(5), mm);

  Args c;  // bias does not broadcast
  c.tensor<float>({3}, {1, 2, 3});
  c.tensor<float>({2, 2}, A);
  c.tensor<float>({2, 2}, B);
  c.add_int(1);
  c.add_int(1);
  c.tensor<float>({2, 2});
  c.repeat(5);
  EXPECT_EQ(c.call(kernels::aten_addmm_out), Error::InvalidArgument);

  Args d;  // wrong arg count
  d.tensor<float>({2}, {1, 2});
  d.tensor<float>({2, 2}, A);
  d.tensor<float>({2, 2}, B);
  d.add_int(1);
  d.tensor<float>({2, 2});
  d.repeat(4);
  EXPECT_EQ(d.call(kernels::aten_addmm_out), Error::InvalidArgument);
}

TEST(Linear, BatchedWithAndWithoutBias) {
  const int B = 2, T = 3, k = 4, m = 5;
  auto x = pattern(B * T * k, 0.2f, -1), W = pattern(m * k, -0.1f, 0.5f);
  auto bias = pattern(m, 1, -3);
  for (bool with_bias : {true, false}) {
    Args a;
    a.tensor<float>({B, T, k}, x);
    a.tensor<float>({m, k}, W);
    if (with_bias)
      a.tensor<float>({m}, bias);
    else
      a.add_none();
    a.tensor<float>({B, T, m});
    a.repeat(3);
    ASSERT_EQ(a.call(kernels::aten_linear_out), Error::Ok);
    std::vector<double> want;
    for (int r = 0; r < B * T; ++r)
      for (int o = 0; o < m; ++o) {
        double s = with_bias ? bias[o] : 0.0;
        for (int j = 0; j < k; ++j) s += double(x[r * k + j]) * W[o * k + j];
        want.push_back(s);
      }
    expect_near(a.values<float>(3), want);
  }
}

}  // namespace
}  // namespace etmcu
