// Tests of convolution, pooling, normalization, upsampling and padding kernels against naive
// double-precision references written here (NCHW index arithmetic), including channels-last.
#include <algorithm>
#include <cmath>

#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;
using test::expect_near;

std::vector<float> pattern(size_t n, float scale, float shift, int mod = 17) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float((i * 11 + 5) % mod) + shift;
  return v;
}

struct ConvCase {
  int N, C, H, W, Cout, kH, kW, groups;
  int sH, sW, pH, pW, dH, dW;
  bool bias;
};

int conv_out(int in, int k, int s, int p, int d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

std::vector<double> ref_conv2d(const ConvCase& c, const std::vector<float>& x,
                               const std::vector<float>& w, const std::vector<float>& b) {
  const int OH = conv_out(c.H, c.kH, c.sH, c.pH, c.dH), OW = conv_out(c.W, c.kW, c.sW, c.pW, c.dW);
  const int cin_g = c.C / c.groups, cout_g = c.Cout / c.groups;
  std::vector<double> y(c.N * c.Cout * OH * OW);
  for (int n = 0; n < c.N; ++n)
    for (int oc = 0; oc < c.Cout; ++oc)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          double s = c.bias ? b[oc] : 0.0;
          for (int ic = 0; ic < cin_g; ++ic)
            for (int kh = 0; kh < c.kH; ++kh)
              for (int kw = 0; kw < c.kW; ++kw) {
                int ih = oh * c.sH - c.pH + kh * c.dH, iw = ow * c.sW - c.pW + kw * c.dW;
                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                int ci = (oc / cout_g) * cin_g + ic;
                s += double(x[((n * c.C + ci) * c.H + ih) * c.W + iw]) *
                     w[((oc * cin_g + ic) * c.kH + kh) * c.kW + kw];
              }
          y[((n * c.Cout + oc) * OH + oh) * OW + ow] = s;
        }
  return y;
}

void run_conv2d(const ConvCase& c, bool channels_last, int mixed = 0) {
  SCOPED_TRACE(testing::Message() << "C=" << c.C << " Cout=" << c.Cout << " g=" << c.groups
                                  << " s=" << c.sH << "," << c.sW << " p=" << c.pH << "," << c.pW
                                  << " d=" << c.dH << "," << c.dW << " cl=" << channels_last);
  const int OH = conv_out(c.H, c.kH, c.sH, c.pH, c.dH), OW = conv_out(c.W, c.kW, c.sW, c.pW, c.dW);
  auto x = pattern(c.N * c.C * c.H * c.W, 0.25f, -2);
  auto w = pattern(c.Cout * (c.C / c.groups) * c.kH * c.kW, -0.125f, 1, 13);
  auto b = pattern(c.Cout, 0.5f, -1, 7);
  std::vector<uint8_t> order = channels_last ? test::channels_last() : std::vector<uint8_t>{};
  // mixed: 1 = only the input channels-last, 2 = only the weight, 3 = only the out.
  std::vector<uint8_t> cl = test::channels_last(), none;
  std::vector<uint8_t> xo = mixed ? (mixed == 1 ? cl : none) : order;
  std::vector<uint8_t> wo = mixed ? (mixed == 2 ? cl : none) : order;
  if (mixed) order = mixed == 3 ? cl : none;
  Args a;
  a.tensor<float>({c.N, c.C, c.H, c.W}, x, xo);
  a.tensor<float>({c.Cout, c.C / c.groups, c.kH, c.kW}, w, wo);
  if (c.bias)
    a.tensor<float>({c.Cout}, b);
  else
    a.add_none();
  a.add_int_list({c.sH, c.sW});
  a.add_int_list({c.pH, c.pW});
  a.add_int_list({c.dH, c.dW});
  a.add_bool(false);
  a.add_int_list({0, 0});
  a.add_int(c.groups);
  a.empty({c.N, c.Cout, OH, OW}, ScalarType::Float, order);
  a.repeat(9);
  ASSERT_EQ(a.call(kernels::aten_convolution_out), Error::Ok) << a.ctx.failure;
  expect_near(a.values<float>(9), ref_conv2d(c, x, w, b), 1e-5);
}

TEST(Convolution, Conv2dVariants) {
  const ConvCase cases[] = {
      {1, 3, 5, 5, 4, 3, 3, 1, 1, 1, 0, 0, 1, 1, true},   // plain
      {2, 4, 7, 6, 6, 3, 2, 2, 2, 1, 1, 0, 1, 1, true},   // groups, stride, padding
      {1, 4, 6, 6, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1, false},  // depthwise, no bias
      {1, 2, 9, 9, 3, 3, 3, 1, 2, 2, 2, 2, 2, 2, true},   // dilation + stride + padding
      {1, 3, 10, 4, 6, 5, 1, 3, 1, 1, 2, 0, 1, 1, true},  // depthwise multiplier 2, KWS-like
  };
  for (const auto& c : cases) {
    run_conv2d(c, false);
    run_conv2d(c, true);
  }
}

TEST(Convolution, MixedDimOrders) {
  const ConvCase c{2, 4, 7, 6, 6, 3, 2, 2, 2, 1, 1, 0, 1, 1, true};
  for (int mixed = 1; mixed <= 3; ++mixed) run_conv2d(c, false, mixed);
}

TEST(Convolution, Conv1d) {
  // x [1, 2, 8], w [4, 1, 3], groups 2, stride 2, padding 1, dilation 1.
  auto x = pattern(16, 0.5f, -3), w = pattern(12, 0.25f, -1), b = pattern(4, 1, 0);
  Args a;
  a.tensor<float>({1, 2, 8}, x);
  a.tensor<float>({4, 1, 3}, w);
  a.tensor<float>({4}, b);
  a.add_int_list({2});
  a.add_int_list({1});
  a.add_int_list({1});
  a.add_bool(false);
  a.add_int_list({0});
  a.add_int(2);
  a.tensor<float>({1, 4, 4});
  a.repeat(9);
  ASSERT_EQ(a.call(kernels::aten_convolution_out), Error::Ok) << a.ctx.failure;
  ConvCase c{1, 2, 1, 8, 4, 1, 3, 2, 1, 2, 0, 1, 1, 1, true};
  expect_near(a.values<float>(9), ref_conv2d(c, x, w, b), 1e-5);
}

TEST(Convolution, Errors) {
  auto build = [](Args& a, bool transposed, int out_w) {
    a.tensor<float>({1, 1, 3, 3}, pattern(9, 1, 0));
    a.tensor<float>({1, 1, 2, 2}, pattern(4, 1, 0));
    a.add_none();
    a.add_int_list({1, 1});
    a.add_int_list({0, 0});
    a.add_int_list({1, 1});
    a.add_bool(transposed);
    a.add_int_list({0, 0});
    a.add_int(1);
    a.tensor<float>({1, 1, 2, out_w});
    a.repeat(9);
  };
  Args t;
  build(t, true, 2);
  EXPECT_EQ(t.call(kernels::aten_convolution_out), Error::NotSupported);
  Args s;
  build(s, false, 3);
  EXPECT_EQ(s.call(kernels::aten_convolution_out), Error::InvalidArgument);
  Args n;
  build(n, false, 2);
  n.pop();
  EXPECT_EQ(n.call(kernels::aten_convolution_out), Error::InvalidArgument);
  Args g;
  build(g, false, 2);
  g.replace(8, EValue::from_int(2));  // groups does not divide channels
  EXPECT_EQ(g.call(kernels::aten_convolution_out), Error::InvalidArgument);
}

int pool_out(int in, int k, int s, int p, int d, bool ceil_mode) {
  int num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int o = int(std::floor(double(num) / s)) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

void run_max_pool(int C, int H, int W, int k, int s, int p, int d, bool ceil_mode, bool cl) {
  SCOPED_TRACE(testing::Message() << "k=" << k << " s=" << s << " p=" << p << " d=" << d
                                  << " ceil=" << ceil_mode << " cl=" << cl);
  const int OH = pool_out(H, k, s, p, d, ceil_mode), OW = pool_out(W, k, s, p, d, ceil_mode);
  auto x = pattern(C * H * W, 1, -8, 23);
  std::vector<uint8_t> order = cl ? test::channels_last() : std::vector<uint8_t>{};
  Args a;
  a.tensor<float>({1, C, H, W}, x, order);
  a.add_int_list({k, k});
  a.add_int_list({s, s});
  a.add_int_list({p, p});
  a.add_int_list({d, d});
  a.add_bool(ceil_mode);
  a.empty({1, C, OH, OW}, ScalarType::Float, order);
  a.empty({1, C, OH, OW}, ScalarType::Long, order);
  a.add_tensor_list({6, 7});
  ASSERT_EQ(a.call(kernels::aten_max_pool2d_with_indices_out), Error::Ok) << a.ctx.failure;
  auto got = a.values<float>(6);
  auto gi = a.values<int64_t>(7);
  for (int c = 0; c < C; ++c)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        float best = -INFINITY;
        int64_t bi = -1;
        for (int kh = 0; kh < k; ++kh)
          for (int kw = 0; kw < k; ++kw) {
            int ih = oh * s - p + kh * d, iw = ow * s - p + kw * d;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            float v = x[(c * H + ih) * W + iw];
            if (bi < 0 || v > best) best = v, bi = ih * W + iw;
          }
        size_t o = (c * OH + oh) * OW + ow;
        EXPECT_EQ(got[o], best);
        EXPECT_EQ(gi[o], bi);
      }
}

TEST(MaxPool2d, Variants) {
  for (bool cl : {false, true}) {
    run_max_pool(2, 6, 6, 2, 2, 0, 1, false, cl);
    run_max_pool(2, 7, 7, 3, 2, 1, 1, false, cl);
    run_max_pool(2, 7, 7, 2, 2, 0, 1, true, cl);   // ceil_mode adds a partial window
    run_max_pool(1, 8, 8, 3, 1, 1, 2, false, cl);  // dilation
    run_max_pool(3, 5, 5, 3, 2, 1, 1, true, cl);
  }
}

TEST(MaxPool2d, EmptyIndicesAreNotWritten) {
  // What the exporter emits when nothing reads the indices: no int64 buffer to plan.
  Args a;
  a.tensor<float>({1, 1, 2, 4}, {1, 5, 3, 2, 4, 0, 7, 6});
  a.add_int_list({2, 2});
  a.add_int_list({});
  a.add_int_list({0, 0});
  a.add_int_list({1, 1});
  a.add_bool(false);
  a.tensor<float>({1, 1, 1, 2});
  a.empty({0, 0, 0, 0}, ScalarType::Long);
  a.add_tensor_list({6, 7});
  ASSERT_EQ(a.call(kernels::aten_max_pool2d_with_indices_out), Error::Ok) << a.ctx.failure;
  EXPECT_EQ(a.values<float>(6), (std::vector<float>{5, 7}));

  Args b;  // indices with elements must still have the output's shape
  b.tensor<float>({1, 1, 2, 4}, {1, 5, 3, 2, 4, 0, 7, 6});
  b.add_int_list({2, 2});
  b.add_int_list({});
  b.add_int_list({0, 0});
  b.add_int_list({1, 1});
  b.add_bool(false);
  b.tensor<float>({1, 1, 1, 2});
  b.tensor<int64_t>({1, 1, 1, 1});
  b.add_tensor_list({6, 7});
  EXPECT_EQ(b.call(kernels::aten_max_pool2d_with_indices_out), Error::InvalidArgument);
}

TEST(MaxPool2d, NaNAndErrors) {
  Args a;
  a.tensor<float>({1, 1, 2, 2}, {1, NAN, 3, 2});
  a.add_int_list({2, 2});
  a.add_int_list({});  // stride [] = kernel
  a.add_int_list({0, 0});
  a.add_int_list({1, 1});
  a.add_bool(false);
  a.tensor<float>({1, 1, 1, 1});
  a.tensor<int64_t>({1, 1, 1, 1});
  a.add_tensor_list({6, 7});
  ASSERT_EQ(a.call(kernels::aten_max_pool2d_with_indices_out), Error::Ok);
  EXPECT_TRUE(std::isnan(a.values<float>(6)[0]));
  EXPECT_EQ(a.values<int64_t>(7)[0], 1);

  Args b;  // int32 indices rejected
  b.tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  b.add_int_list({2, 2});
  b.add_int_list({2, 2});
  b.add_int_list({0, 0});
  b.add_int_list({1, 1});
  b.add_bool(false);
  b.tensor<float>({1, 1, 1, 1});
  b.tensor<int32_t>({1, 1, 1, 1});
  b.add_tensor_list({6, 7});
  EXPECT_EQ(b.call(kernels::aten_max_pool2d_with_indices_out), Error::InvalidType);

  Args c;  // missing TensorList
  c.tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  c.add_int_list({2, 2});
  c.add_int_list({2, 2});
  c.add_int_list({0, 0});
  c.add_int_list({1, 1});
  c.add_bool(false);
  c.tensor<float>({1, 1, 1, 1});
  c.tensor<int64_t>({1, 1, 1, 1});
  c.repeat(6);
  EXPECT_EQ(c.call(kernels::aten_max_pool2d_with_indices_out), Error::InvalidArgument);
}

void run_avg_pool(int H, int W, int k, int s, int p, bool ceil_mode, bool include_pad, int divisor,
                  bool cl) {
  SCOPED_TRACE(testing::Message() << "k=" << k << " s=" << s << " p=" << p << " ceil=" << ceil_mode
                                  << " pad=" << include_pad << " div=" << divisor);
  const int C = 2;
  const int OH = pool_out(H, k, s, p, 1, ceil_mode), OW = pool_out(W, k, s, p, 1, ceil_mode);
  auto x = pattern(C * H * W, 0.5f, -4, 19);
  std::vector<uint8_t> order = cl ? test::channels_last() : std::vector<uint8_t>{};
  Args a;
  a.tensor<float>({1, C, H, W}, x, order);
  a.add_int_list({k, k});
  a.add_int_list({s, s});
  a.add_int_list({p, p});
  a.add_bool(ceil_mode);
  a.add_bool(include_pad);
  if (divisor)
    a.add_int(divisor);
  else
    a.add_none();
  a.empty({1, C, OH, OW}, ScalarType::Float, order);
  a.repeat(7);
  ASSERT_EQ(a.call(kernels::aten_avg_pool2d_out), Error::Ok) << a.ctx.failure;
  std::vector<double> want;
  for (int c = 0; c < C; ++c)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        int h0 = oh * s - p, w0 = ow * s - p;
        int h1 = std::min(h0 + k, H + p), w1 = std::min(w0 + k, W + p);
        int padded = (h1 - h0) * (w1 - w0);
        double sum = 0;
        int cnt = 0;
        for (int h = std::max(h0, 0); h < std::min(h1, H); ++h)
          for (int w = std::max(w0, 0); w < std::min(w1, W); ++w)
            sum += x[(c * H + h) * W + w], ++cnt;
        want.push_back(sum / (divisor ? divisor : (include_pad ? padded : cnt)));
      }
  expect_near(a.values<float>(7), want, 1e-6);
}

TEST(AvgPool2d, Variants) {
  for (bool cl : {false, true}) {
    run_avg_pool(6, 6, 2, 2, 0, false, true, 0, cl);
    run_avg_pool(7, 7, 3, 2, 1, false, true, 0, cl);
    run_avg_pool(7, 7, 3, 2, 1, false, false, 0, cl);
    run_avg_pool(7, 7, 2, 2, 0, true, true, 0, cl);  // ceil_mode partial window
    run_avg_pool(7, 5, 3, 2, 1, true, false, 0, cl);
    run_avg_pool(5, 5, 3, 1, 1, false, true, 4, cl);  // divisor_override
  }
}

TEST(AdaptiveAvgPool2d, UnevenWindows) {
  const int H = 5, W = 7, OH = 3, OW = 2;
  auto x = pattern(H * W, 1, 0, 29);
  Args a;
  a.tensor<float>({1, 1, H, W}, x);
  a.add_int_list({OH, OW});
  a.tensor<float>({1, 1, OH, OW});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten__adaptive_avg_pool2d_out), Error::Ok);
  std::vector<double> want;
  for (int oh = 0; oh < OH; ++oh)
    for (int ow = 0; ow < OW; ++ow) {
      int h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
      int w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
      double s = 0;
      for (int h = h0; h < h1; ++h)
        for (int w = w0; w < w1; ++w) s += x[h * W + w];
      want.push_back(s / ((h1 - h0) * (w1 - w0)));
    }
  expect_near(a.values<float>(2), want);
}

TEST(BatchNorm, NoTrainingChannelsLast) {
  const int N = 2, C = 3, H = 2, W = 2;
  auto x = pattern(N * C * H * W, 0.5f, -3);
  std::vector<float> w = {1, 0.5f, -2}, b = {0, 1, 0.25f}, m = {0.1f, -0.2f, 0.3f},
                     v = {1, 4, 0.25f};
  for (bool cl : {false, true}) {
    std::vector<uint8_t> order = cl ? test::channels_last() : std::vector<uint8_t>{};
    Args a;
    a.tensor<float>({N, C, H, W}, x, order);
    a.tensor<float>({C}, w);
    a.tensor<float>({C}, b);
    a.tensor<float>({C}, m);
    a.tensor<float>({C}, v);
    a.add_double(0.1);
    a.add_double(1e-5);
    a.empty({N, C, H, W}, ScalarType::Float, order);
    a.tensor<float>({0});
    a.tensor<float>({0});
    a.add_tensor_list({7, 8, 9});
    ASSERT_EQ(a.call(kernels::aten__native_batch_norm_legit_no_training_out), Error::Ok)
        << a.ctx.failure;
    std::vector<double> want;
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        for (int i = 0; i < H * W; ++i)
          want.push_back(
              (x[(n * C + c) * H * W + i] - m[c]) / std::sqrt(double(v[c]) + 1e-5) * w[c] + b[c]);
    expect_near(a.values<float>(7), want, 1e-5);
  }
}

TEST(LayerNorm, LastDimWithStats) {
  const int R = 3, D = 4;
  auto x = pattern(R * D, 0.75f, -5);
  std::vector<float> w = {1, 2, 0.5f, -1}, b = {0, 0.1f, 0.2f, 0.3f};
  Args a;
  a.tensor<float>({R, D}, x);
  a.add_int_list({D});
  a.tensor<float>({D}, w);
  a.tensor<float>({D}, b);
  a.add_double(1e-5);
  a.tensor<float>({R, D});
  a.tensor<float>({R, 1});
  a.tensor<float>({R, 1});
  a.add_tensor_list({5, 6, 7});
  ASSERT_EQ(a.call(kernels::aten_native_layer_norm_out), Error::Ok) << a.ctx.failure;
  std::vector<double> want, wm, wr;
  for (int r = 0; r < R; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < D; ++i) mean += x[r * D + i];
    mean /= D;
    for (int i = 0; i < D; ++i) var += (x[r * D + i] - mean) * (x[r * D + i] - mean);
    var /= D;
    double rstd = 1 / std::sqrt(var + 1e-5);
    wm.push_back(mean);
    wr.push_back(rstd);
    for (int i = 0; i < D; ++i) want.push_back((x[r * D + i] - mean) * rstd * w[i] + b[i]);
  }
  expect_near(a.values<float>(5), want, 1e-5);
  expect_near(a.values<float>(6), wm, 1e-6);
  expect_near(a.values<float>(7), wr, 1e-5);

  Args e;  // normalized_shape mismatch
  e.tensor<float>({R, D}, x);
  e.add_int_list({D + 1});
  e.add_none();
  e.add_none();
  e.add_double(1e-5);
  e.tensor<float>({R, D});
  e.tensor<float>({R, 1});
  e.tensor<float>({R, 1});
  e.add_tensor_list({5, 6, 7});
  EXPECT_EQ(e.call(kernels::aten_native_layer_norm_out), Error::InvalidArgument);
}

TEST(UpsampleNearest2d, SizesAndScales) {
  auto x = pattern(2 * 2 * 3, 1, 0, 97);
  Args a;  // 2x via output_size, channels-last in/out
  a.tensor<float>({1, 2, 2, 3}, x, test::channels_last());
  a.add_int_list({4, 6});
  a.add_none();
  a.empty({1, 2, 4, 6}, ScalarType::Float, test::channels_last());
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_upsample_nearest2d_vec_out), Error::Ok) << a.ctx.failure;
  auto got = a.values<float>(3);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 6; ++w)
        EXPECT_EQ(got[(c * 4 + h) * 6 + w], x[(c * 2 + h / 2) * 3 + w / 2]);

  Args b;  // non-integer ratio 3 -> 5 via output size: src = floor(dst * 3/5)
  b.tensor<float>({1, 1, 1, 3}, {10, 20, 30});
  b.add_int_list({1, 5});
  b.add_none();
  b.tensor<float>({1, 1, 1, 5});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_upsample_nearest2d_vec_out), Error::Ok);
  EXPECT_EQ(b.values<float>(3), (std::vector<float>{10, 10, 20, 20, 30}));

  Args c;  // scale factors
  c.tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  c.add_none();
  c.add_double_list({1.5, 1.5});
  c.tensor<float>({1, 1, 3, 3});
  c.repeat(3);
  ASSERT_EQ(c.call(kernels::aten_upsample_nearest2d_vec_out), Error::Ok);
  EXPECT_EQ(c.values<float>(3), (std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4}));
}

TEST(UpsampleBilinear2d, HalfPixelAlignCornersAndScales) {
  // Expected values: torch.nn.functional.interpolate(..., mode="bilinear") (torch 1.13).
  Args a;  // 2x2 -> 4x4, half-pixel centres, channels-last output
  a.tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  a.add_int_list({4, 4});
  a.add_bool(false);
  a.add_none();
  a.empty({1, 1, 4, 4}, ScalarType::Float, test::channels_last());
  a.repeat(4);
  ASSERT_EQ(a.call(kernels::aten_upsample_bilinear2d_vec_out), Error::Ok) << a.ctx.failure;
  const std::vector<float> want = {1.0f, 1.25f, 1.75f, 2.0f, 1.5f, 1.75f, 2.25f, 2.5f,
                                   2.5f, 2.75f, 3.25f, 3.5f, 3.0f, 3.25f, 3.75f, 4.0f};
  auto got = a.values<float>(4);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;

  Args b;  // align_corners: 2x2 -> 3x3
  b.tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  b.add_int_list({3, 3});
  b.add_bool(true);
  b.add_none();
  b.tensor<float>({1, 1, 3, 3});
  b.repeat(4);
  ASSERT_EQ(b.call(kernels::aten_upsample_bilinear2d_vec_out), Error::Ok);
  EXPECT_EQ(b.values<float>(4), (std::vector<float>{1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}));

  Args c;  // scale factors (1, 1.5): the source scale is 1 / 1.5, as PyTorch's
  c.tensor<float>({1, 1, 1, 3}, {10, 20, 30});
  c.add_none();
  c.add_bool(false);
  c.add_double_list({1.0, 1.5});
  c.tensor<float>({1, 1, 1, 4});
  c.repeat(4);
  ASSERT_EQ(c.call(kernels::aten_upsample_bilinear2d_vec_out), Error::Ok);
  auto gc = c.values<float>(4);
  const float wc[] = {10.0f, 15.0f, 21.666666f, 28.333334f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(gc[i], wc[i], 1e-5f) << i;

  Args d;  // int8 is not a float type: rejected
  d.tensor<int8_t>({1, 1, 2, 2}, {1, 2, 3, 4});
  d.add_int_list({4, 4});
  d.add_bool(false);
  d.add_none();
  d.tensor<int8_t>({1, 1, 4, 4});
  d.repeat(4);
  EXPECT_EQ(d.call(kernels::aten_upsample_bilinear2d_vec_out), Error::InvalidType);
}

TEST(ConstantPadNd, PadAndCrop) {
  Args a;
  a.tensor<float>({2, 2}, {1, 2, 3, 4});
  a.add_int_list({1, 0, 0, 1});  // last dim: 1 before; dim 0: 1 after
  a.add_double(-1);
  a.tensor<float>({3, 3});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_constant_pad_nd_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{-1, 1, 2, -1, 3, 4, -1, -1, -1}));

  Args b;  // negative pad crops; int8 with channels-last layout
  std::vector<int8_t> x(1 * 2 * 2 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = int8_t(i);
  b.tensor<int8_t>({1, 2, 2, 3}, x, test::channels_last());
  b.add_int_list({-1, 1});
  b.add_int(7);
  b.empty({1, 2, 2, 3}, ScalarType::Char, test::channels_last());
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten_constant_pad_nd_out), Error::Ok);
  EXPECT_EQ(b.values<int8_t>(3), (std::vector<int8_t>{1, 2, 7, 4, 5, 7, 7, 8, 7, 10, 11, 7}));

  Args c;
  c.tensor<float>({2}, {1, 2});
  c.add_int_list({1});
  c.add_int(0);
  c.tensor<float>({3});
  c.repeat(3);
  EXPECT_EQ(c.call(kernels::aten_constant_pad_nd_out), Error::InvalidArgument);
}

}  // namespace
}  // namespace etmcu
