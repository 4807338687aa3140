// Tests of layout/copy kernels: clone, dim-order copies, _to_copy, permute/transpose, view,
// (un)squeeze, expand, select, slice, cat; expected values come from index arithmetic.
#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;

std::vector<float> iota_f(size_t n, float start = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + float(i);
  return v;
}

TEST(Clone, ZeroDimConstantAndDimOrderChange) {
  Args a;  // corpus model.pte: clone of a f32[] constant, memory_format None
  a.tensor<float>({}, {1.1f});
  a.add_none();
  a.tensor<float>({});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_clone_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2)[0], 1.1f);

  auto x = iota_f(2 * 3 * 2 * 2);
  Args b;  // contiguous -> channels-last with memory_format=channels_last
  b.tensor<float>({2, 3, 2, 2}, x);
  b.add_int(2);
  b.empty({2, 3, 2, 2}, ScalarType::Float, test::channels_last());
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_clone_out), Error::Ok);
  EXPECT_EQ(b.values<float>(2), x);
  // Physical layout really is NHWC: element (n=0,c=1,h=0,w=0) sits at offset 1.
  const float* raw = static_cast<const float*>(b.at(2).to_tensor().data);
  EXPECT_EQ(raw[1], x[4]);

  Args c;  // memory_format contiguous but out is channels-last
  c.tensor<float>({1, 2, 1, 1}, {1, 2});
  c.add_int(0);
  c.empty({1, 2, 1, 1}, ScalarType::Float, test::channels_last());
  c.repeat(2);
  EXPECT_EQ(c.call(kernels::aten_clone_out), Error::InvalidArgument);

  Args d;  // dtype mismatch
  d.tensor<float>({2}, {1, 2});
  d.add_none();
  d.tensor<int32_t>({2});
  d.repeat(2);
  EXPECT_EQ(d.call(kernels::aten_clone_out), Error::InvalidType);
}

TEST(CloneDimOrder, KwsInt8ChannelsLastToChannelsLast) {
  // KWS: _clone_dim_order(i8[1,64,25,5] dim_order [0,2,3,1], non_blocking=False,
  // dim_order=[0,2,3,1]) into an i8 channels-last out.
  std::vector<int8_t> x(64 * 25 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = int8_t(int(i * 7) % 256 - 128);
  Args a;
  a.tensor<int8_t>({1, 64, 25, 5}, x, test::channels_last());
  a.add_bool(false);
  a.add_int_list({0, 2, 3, 1});
  a.empty({1, 64, 25, 5}, ScalarType::Char, test::channels_last());
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::dim_order_ops__clone_dim_order_out), Error::Ok);
  EXPECT_EQ(a.values<int8_t>(3), x);
  EXPECT_EQ(a.tt(3).bytes, a.tt(0).bytes);  // same physical bytes
}

TEST(CloneDimOrder, ContiguousToChannelsLastAndBack) {
  auto x = iota_f(1 * 3 * 2 * 4);
  Args a;
  a.tensor<float>({1, 3, 2, 4}, x);
  a.add_bool(false);
  a.add_int_list({0, 2, 3, 1});
  a.empty({1, 3, 2, 4}, ScalarType::Float, test::channels_last());
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::dim_order_ops__clone_dim_order_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), x);
  const float* raw = static_cast<const float*>(a.at(3).to_tensor().data);
  // NHWC: offset of (c, h, w) = (h*4 + w)*3 + c.
  EXPECT_EQ(raw[(1 * 4 + 2) * 3 + 2], x[2 * 8 + 1 * 4 + 2]);

  Args b;  // [0,2,1,3] (KWS input order) -> contiguous
  b.tensor<float>({1, 1, 49, 10}, iota_f(490), {0, 2, 1, 3});
  b.add_bool(false);
  b.add_int_list({0, 1, 2, 3});
  b.tensor<float>({1, 1, 49, 10});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::dim_order_ops__clone_dim_order_out), Error::Ok);
  EXPECT_EQ(b.values<float>(3), iota_f(490));

  Args c;  // dim_order argument disagrees with out
  c.tensor<float>({1, 3, 2, 4}, x);
  c.add_bool(false);
  c.add_int_list({0, 2, 3, 1});
  c.tensor<float>({1, 3, 2, 4});
  c.repeat(3);
  EXPECT_EQ(c.call(kernels::dim_order_ops__clone_dim_order_out), Error::InvalidArgument);

  Args d;  // None keeps self's order: contiguous out for channels-last self is wrong
  d.tensor<float>({1, 3, 2, 4}, x, test::channels_last());
  d.add_bool(false);
  d.add_none();
  d.tensor<float>({1, 3, 2, 4});
  d.repeat(3);
  EXPECT_EQ(d.call(kernels::dim_order_ops__clone_dim_order_out), Error::InvalidArgument);

  Args e;  // _clone_dim_order does not convert dtypes
  e.tensor<float>({2}, {1, 2});
  e.add_bool(false);
  e.add_none();
  e.tensor<int32_t>({2});
  e.repeat(3);
  EXPECT_EQ(e.call(kernels::dim_order_ops__clone_dim_order_out), Error::InvalidType);
}

TEST(CloneDimOrder, FewChannelsToChannelsLastWithBatch) {
  // three channels (the short-innermost-dim block walk of the strided copy), two images
  std::vector<int8_t> x(2 * 3 * 5 * 7);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(i * 7 + 3);
  Args a;
  a.tensor<int8_t>({2, 3, 5, 7}, x);
  a.add_bool(false);
  a.add_int_list({0, 2, 3, 1});
  a.empty({2, 3, 5, 7}, ScalarType::Char, test::channels_last());
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::dim_order_ops__clone_dim_order_out), Error::Ok);
  EXPECT_EQ(a.values<int8_t>(3), x);
  const int8_t* raw = static_cast<const int8_t*>(a.at(3).to_tensor().data);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 5; ++h)
        for (int w = 0; w < 7; ++w)
          ASSERT_EQ(raw[((n * 5 + h) * 7 + w) * 3 + c], x[((n * 3 + c) * 5 + h) * 7 + w]);
}

TEST(ToDimOrderCopy, ConvertsDtypeAndOrder) {
  Args a;
  a.tensor<float>({1, 2, 1, 2}, {1.7f, -2.9f, 0.0f, 300.5f});
  a.add_bool(false);
  a.add_int_list({0, 2, 3, 1});
  a.empty({1, 2, 1, 2}, ScalarType::Int, test::channels_last());
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::dim_order_ops__to_dim_order_copy_out), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(3), (std::vector<int32_t>{1, -2, 0, 300}));

  Args b;
  b.tensor<int32_t>({3}, {0, 5, -1});
  b.add_bool(false);
  b.add_none();
  b.tensor<bool>({3});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::dim_order_ops__to_dim_order_copy_out), Error::Ok);
  EXPECT_EQ(b.values<bool>(3), (std::vector<bool>{false, true, true}));
}

TEST(ToCopy, FloatToIntAndBoolToFloat) {
  Args a;
  a.tensor<float>({4}, {-1.5f, 2.5f, 127.9f, 0.2f});
  a.add_bool(false);
  a.add_none();
  a.tensor<int8_t>({4});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten__to_copy_out), Error::Ok);
  EXPECT_EQ(a.values<int8_t>(3), (std::vector<int8_t>{-1, 2, 127, 0}));

  Args b;
  b.tensor<bool>({2}, {true, false});
  b.add_bool(false);
  b.add_none();
  b.tensor<float>({2});
  b.repeat(3);
  ASSERT_EQ(b.call(kernels::aten__to_copy_out), Error::Ok);
  EXPECT_EQ(b.values<float>(3), (std::vector<float>{1, 0}));

  Args c;
  c.tensor<int64_t>({2}, {(int64_t(1) << 40) + 3, -7});
  c.add_bool(false);
  c.add_none();
  c.tensor<int32_t>({2});
  c.repeat(3);
  ASSERT_EQ(c.call(kernels::aten__to_copy_out), Error::Ok);
  EXPECT_EQ(c.values<int32_t>(3), (std::vector<int32_t>{3, -7}));  // wraps like a C cast
}

TEST(Permute, LinearWeightTransposeAnd4D) {
  Args a;  // corpus linear.pte: permute_copy(W, [1, 0])
  a.tensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  a.add_int_list({1, 0});
  a.tensor<float>({3, 3});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_permute_copy_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2), (std::vector<float>{1, 4, 7, 2, 5, 8, 3, 6, 9}));

  // NCHW -> NHWC permutation of a [2,3,4,5] tensor, with a negative dim.
  const int N = 2, C = 3, H = 4, W = 5;
  auto x = iota_f(N * C * H * W);
  Args b;
  b.tensor<float>({N, C, H, W}, x);
  b.add_int_list({0, 2, -1, 1});
  b.tensor<float>({N, H, W, C});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_permute_copy_out), Error::Ok);
  auto got = b.values<float>(2);
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < W; ++w)
        for (int c = 0; c < C; ++c)
          EXPECT_EQ(got[((n * H + h) * W + w) * C + c], x[((n * C + c) * H + h) * W + w]);

  Args c;  // channels-last input gives the same logical result
  c.tensor<float>({N, C, H, W}, x, test::channels_last());
  c.add_int_list({0, 2, 3, 1});
  c.tensor<float>({N, H, W, C});
  c.repeat(2);
  ASSERT_EQ(c.call(kernels::aten_permute_copy_out), Error::Ok);
  EXPECT_EQ(c.values<float>(2), got);

  Args d;  // not a permutation
  d.tensor<float>({2, 2}, {1, 2, 3, 4});
  d.add_int_list({0, 0});
  d.tensor<float>({2, 2});
  d.repeat(2);
  EXPECT_EQ(d.call(kernels::aten_permute_copy_out), Error::InvalidArgument);

  Args e;  // wrong out shape
  e.tensor<float>({2, 3}, iota_f(6));
  e.add_int_list({1, 0});
  e.tensor<float>({2, 3});
  e.repeat(2);
  EXPECT_EQ(e.call(kernels::aten_permute_copy_out), Error::InvalidArgument);
}

TEST(Transpose, Int32) {
  Args a;
  a.tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  a.add_int(0);
  a.add_int(-1);
  a.tensor<int32_t>({3, 2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_transpose_copy_int_out), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(3), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
}

TEST(View, InferAndChannelsLastInput) {
  Args a;
  a.tensor<float>({2, 3, 2}, iota_f(12));
  a.add_int_list({-1, 4});
  a.tensor<float>({3, 4});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_view_copy_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2), iota_f(12));

  Args b;  // flatten of a channels-last tensor follows logical (NCHW) order
  b.tensor<float>({1, 2, 2, 2}, iota_f(8), test::channels_last());
  b.add_int_list({1, 8});
  b.tensor<float>({1, 8});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_view_copy_out), Error::Ok);
  EXPECT_EQ(b.values<float>(2), iota_f(8));

  Args c;
  c.tensor<float>({2, 3}, iota_f(6));
  c.add_int_list({4, -1});
  c.tensor<float>({4, 2});
  c.repeat(2);
  EXPECT_EQ(c.call(kernels::aten_view_copy_out), Error::InvalidArgument);

  Args d;
  d.tensor<float>({2, 3}, iota_f(6));
  d.add_int_list({-1, -1});
  d.tensor<float>({2, 3});
  d.repeat(2);
  EXPECT_EQ(d.call(kernels::aten_view_copy_out), Error::InvalidArgument);
}

TEST(Squeeze, UnsqueezeAndSqueezeDims) {
  Args a;
  a.tensor<float>({2, 3}, iota_f(6));
  a.add_int(-1);
  a.tensor<float>({2, 3, 1});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_unsqueeze_copy_out), Error::Ok);
  EXPECT_EQ(a.values<float>(2), iota_f(6));

  Args b;  // dim 1 has size 3: kept; dims 0 and 2 squeezed
  b.tensor<float>({1, 3, 1}, iota_f(3));
  b.add_int_list({0, 1, 2});
  b.tensor<float>({3});
  b.repeat(2);
  ASSERT_EQ(b.call(kernels::aten_squeeze_copy_dims_out), Error::Ok);
  EXPECT_EQ(b.values<float>(2), iota_f(3));

  Args c;
  c.tensor<float>({1, 3, 1}, iota_f(3));
  c.add_int_list({0});
  c.tensor<float>({3});
  c.repeat(2);
  EXPECT_EQ(c.call(kernels::aten_squeeze_copy_dims_out), Error::InvalidArgument);
}

TEST(Squeeze, SqueezeDim) {
  Args a;
  a.tensor<int32_t>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  a.add_int(-2);
  a.tensor<int32_t>({2, 3});
  a.repeat(2);
  ASSERT_EQ(a.call(kernels::aten_squeeze_copy_dim_out), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(2), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));

  Args b;  // size-3 dim is kept; out must keep the rank
  b.tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  b.add_int(1);
  b.tensor<int32_t>({6});
  b.repeat(2);
  EXPECT_EQ(b.call(kernels::aten_squeeze_copy_dim_out), Error::InvalidArgument);
}

TEST(Expand, BroadcastsWithMinusOne) {
  Args a;
  a.tensor<float>({3, 1}, {1, 2, 3});
  a.add_int_list({2, -1, 4});
  a.add_bool(false);
  a.tensor<float>({2, 3, 4});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_expand_copy_out), Error::Ok);
  auto got = a.values<float>(3);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(got[(i * 3 + j) * 4 + k], float(j + 1));

  Args b;
  b.tensor<float>({3}, {1, 2, 3});
  b.add_int_list({2, 4});
  b.add_bool(false);
  b.tensor<float>({2, 4});
  b.repeat(3);
  EXPECT_EQ(b.call(kernels::aten_expand_copy_out), Error::InvalidArgument);
}

TEST(Select, MiddleDimAndNegativeIndex) {
  Args a;
  a.tensor<float>({2, 3, 2}, iota_f(12));
  a.add_int(1);
  a.add_int(-1);
  a.tensor<float>({2, 2});
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_select_copy_int_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{4, 5, 10, 11}));

  Args b;
  b.tensor<float>({2, 3}, iota_f(6));
  b.add_int(0);
  b.add_int(2);
  b.tensor<float>({3});
  b.repeat(3);
  EXPECT_EQ(b.call(kernels::aten_select_copy_int_out), Error::InvalidArgument);
}

TEST(Slice, StepAndClamping) {
  Args a;
  a.tensor<float>({2, 7}, iota_f(14));
  a.add_int(1);
  a.add_int(1);
  a.add_int(100);  // clamped to 7
  a.add_int(2);
  a.tensor<float>({2, 3});
  a.repeat(5);
  ASSERT_EQ(a.call(kernels::aten_slice_copy_Tensor_out), Error::Ok);
  EXPECT_EQ(a.values<float>(5), (std::vector<float>{1, 3, 5, 8, 10, 12}));

  Args b;
  b.tensor<int32_t>({5}, {0, 1, 2, 3, 4});
  b.add_int(0);
  b.add_int(-3);
  b.add_none();
  b.add_int(1);
  b.tensor<int32_t>({3});
  b.repeat(5);
  ASSERT_EQ(b.call(kernels::aten_slice_copy_Tensor_out), Error::Ok);
  EXPECT_EQ(b.values<int32_t>(5), (std::vector<int32_t>{2, 3, 4}));
}

TEST(Cat, Dim1MixedOrdersAndErrors) {
  Args a;  // args 0,1 are the list members; the call starts at index 2
  a.tensor<float>({2, 2}, {1, 2, 3, 4});
  a.tensor<float>({2, 1}, {5, 6});
  a.add_tensor_list({0, 1});
  a.add_int(-1);
  a.tensor<float>({2, 3});
  a.repeat(4);
  ASSERT_EQ(a.call(kernels::aten_cat_out, 2), Error::Ok);
  EXPECT_EQ(a.values<float>(4), (std::vector<float>{1, 2, 5, 3, 4, 6}));

  Args d;  // channels-last + contiguous inputs into a channels-last out, along C
  d.tensor<float>({1, 2, 2, 2}, iota_f(8), test::channels_last());
  d.tensor<float>({1, 1, 2, 2}, iota_f(4, 100));
  d.add_tensor_list({0, 1});
  d.add_int(1);
  d.empty({1, 3, 2, 2}, ScalarType::Float, test::channels_last());
  d.repeat(4);
  ASSERT_EQ(d.call(kernels::aten_cat_out, 2), Error::Ok);
  std::vector<float> want = iota_f(8);
  for (float v : iota_f(4, 100)) want.push_back(v);
  EXPECT_EQ(d.values<float>(4), want);

  Args i;  // int32 input into a float out (promotion)
  i.tensor<int32_t>({1}, {7});
  i.tensor<float>({1}, {0.5f});
  i.add_tensor_list({0, 1});
  i.add_int(0);
  i.tensor<float>({2});
  i.repeat(4);
  ASSERT_EQ(i.call(kernels::aten_cat_out, 2), Error::Ok);
  EXPECT_EQ(i.values<float>(4), (std::vector<float>{7, 0.5f}));

  Args e;  // out size along dim wrong
  e.tensor<float>({2}, {1, 2});
  e.tensor<float>({2}, {3, 4});
  e.add_tensor_list({0, 1});
  e.add_int(0);
  e.tensor<float>({3});
  e.repeat(4);
  EXPECT_EQ(e.call(kernels::aten_cat_out, 2), Error::InvalidArgument);

  Args f;  // non-cat dims differ
  f.tensor<float>({2, 2}, {1, 2, 3, 4});
  f.tensor<float>({3, 1}, {5, 6, 7});
  f.add_tensor_list({0, 1});
  f.add_int(1);
  f.tensor<float>({2, 3});
  f.repeat(4);
  EXPECT_EQ(f.call(kernels::aten_cat_out, 2), Error::InvalidArgument);
}

}  // namespace
}  // namespace etmcu
