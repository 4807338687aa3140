// Argument-mutation robustness: starting from a valid call of every kernel, replaces each argument
// in turn by values of every other kind (and truncates the list); kernels must return an error or
// Ok without crashing or touching memory out of bounds (run under ASan/UBSan to check the latter).
#include <functional>
#include <utility>

#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;

using Builder = std::function<void(Args&)>;

void t4(Args& a) { a.tensor<float>({1, 2, 3, 3}, std::vector<float>(18, 0.5f)); }
void out_repeat(Args& a, std::vector<int32_t> shape, ScalarType dt = ScalarType::Float) {
  a.empty(shape, dt);
  a.repeat(a.size() - 1);
}

std::vector<std::pair<const char*, std::pair<OpFunction, Builder>>> cases() {
  auto f2 = [](Args& a) { a.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}); };
  auto binary = [=](bool alpha, bool scalar) {
    return [=](Args& a) {
      f2(a);
      if (scalar)
        a.add_double(2);
      else
        f2(a);
      if (alpha) a.add_int(1);
      out_repeat(a, {2, 3});
    };
  };
  auto unary = [=](Args& a) {
    f2(a);
    out_repeat(a, {2, 3});
  };
  std::vector<std::pair<const char*, std::pair<OpFunction, Builder>>> c = {
      {"add", {kernels::aten_add_out, binary(true, false)}},
      {"add.Scalar", {kernels::aten_add_Scalar_out, binary(true, true)}},
      {"sub", {kernels::aten_sub_out, binary(true, false)}},
      {"sub.Scalar", {kernels::aten_sub_Scalar_out, binary(true, true)}},
      {"mul", {kernels::aten_mul_out, binary(false, false)}},
      {"mul.Scalar", {kernels::aten_mul_Scalar_out, binary(false, true)}},
      {"div", {kernels::aten_div_out, binary(false, false)}},
      {"div.Scalar", {kernels::aten_div_Scalar_out, binary(false, true)}},
      {"div.mode",
       {kernels::aten_div_out_mode,
        [=](Args& a) {
          f2(a);
          f2(a);
          a.add_string("floor");
          out_repeat(a, {2, 3});
        }}},
      {"relu", {kernels::aten_relu_out, unary}},
      {"abs", {kernels::aten_abs_out, unary}},
      {"sqrt", {kernels::aten_sqrt_out, unary}},
      {"log", {kernels::aten_log_out, unary}},
      {"leaky_relu",
       {kernels::aten_leaky_relu_out,
        [=](Args& a) {
          f2(a);
          a.add_double(0.01);
          out_repeat(a, {2, 3});
        }}},
      {"lt.Scalar",
       {kernels::aten_lt_Scalar_out,
        [=](Args& a) {
          f2(a);
          a.add_int(2);
          out_repeat(a, {2, 3}, ScalarType::Bool);
        }}},
      {"ge.Tensor",
       {kernels::aten_ge_Tensor_out,
        [=](Args& a) {
          f2(a);
          a.tensor<int32_t>({3}, {1, 2, 3});
          out_repeat(a, {2, 3}, ScalarType::Bool);
        }}},
      {"neg", {kernels::aten_neg_out, unary}},
      {"sigmoid", {kernels::aten_sigmoid_out, unary}},
      {"tanh", {kernels::aten_tanh_out, unary}},
      {"exp", {kernels::aten_exp_out, unary}},
      {"rsqrt", {kernels::aten_rsqrt_out, unary}},
      {"gelu",
       {kernels::aten_gelu_out,
        [=](Args& a) {
          f2(a);
          a.add_string("none");
          out_repeat(a, {2, 3});
        }}},
      {"hardtanh",
       {kernels::aten_hardtanh_out,
        [=](Args& a) {
          f2(a);
          a.add_int(-1);
          a.add_int(1);
          out_repeat(a, {2, 3});
        }}},
      {"clamp",
       {kernels::aten_clamp_out,
        [=](Args& a) {
          f2(a);
          a.add_double(0);
          a.add_none();
          out_repeat(a, {2, 3});
        }}},
      {"softmax",
       {kernels::aten__softmax_out,
        [=](Args& a) {
          f2(a);
          a.add_int(1);
          a.add_bool(false);
          out_repeat(a, {2, 3});
        }}},
      {"log_softmax",
       {kernels::aten__log_softmax_out,
        [=](Args& a) {
          f2(a);
          a.add_int(0);
          a.add_bool(false);
          out_repeat(a, {2, 3});
        }}},
      {"mm",
       {kernels::aten_mm_out,
        [=](Args& a) {
          f2(a);
          a.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
          out_repeat(a, {2, 2});
        }}},
      {"bmm",
       {kernels::aten_bmm_out,
        [=](Args& a) {
          a.tensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6});
          a.tensor<float>({1, 3, 2}, {1, 2, 3, 4, 5, 6});
          out_repeat(a, {1, 2, 2});
        }}},
      {"addmm",
       {kernels::aten_addmm_out,
        [=](Args& a) {
          a.tensor<float>({2}, {1, 2});
          f2(a);
          a.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
          a.add_int(1);
          a.add_int(1);
          out_repeat(a, {2, 2});
        }}},
      {"linear",
       {kernels::aten_linear_out,
        [=](Args& a) {
          f2(a);
          a.tensor<float>({4, 3}, std::vector<float>(12, 1));
          a.tensor<float>({4}, {1, 2, 3, 4});
          out_repeat(a, {2, 4});
        }}},
      {"convolution",
       {kernels::aten_convolution_out,
        [=](Args& a) {
          t4(a);
          a.tensor<float>({2, 1, 2, 2}, std::vector<float>(8, 1));
          a.tensor<float>({2}, {1, 2});
          a.add_int_list({1, 1});
          a.add_int_list({0, 0});
          a.add_int_list({1, 1});
          a.add_bool(false);
          a.add_int_list({0, 0});
          a.add_int(2);
          out_repeat(a, {1, 2, 2, 2});
        }}},
      {"max_pool",
       {kernels::aten_max_pool2d_with_indices_out,
        [=](Args& a) {
          t4(a);
          a.add_int_list({2, 2});
          a.add_int_list({1, 1});
          a.add_int_list({0, 0});
          a.add_int_list({1, 1});
          a.add_bool(true);
          a.empty({1, 2, 2, 2}, ScalarType::Float);
          a.empty({1, 2, 2, 2}, ScalarType::Long);
          a.add_tensor_list({6, 7});
        }}},
      {"avg_pool",
       {kernels::aten_avg_pool2d_out,
        [=](Args& a) {
          t4(a);
          a.add_int_list({2, 2});
          a.add_int_list({1, 1});
          a.add_int_list({1, 1});
          a.add_bool(true);
          a.add_bool(false);
          a.add_none();
          out_repeat(a, {1, 2, 4, 4});
        }}},
      {"adaptive_avg_pool",
       {kernels::aten__adaptive_avg_pool2d_out,
        [=](Args& a) {
          t4(a);
          a.add_int_list({2, 2});
          out_repeat(a, {1, 2, 2, 2});
        }}},
      {"mean",
       {kernels::aten_mean_out,
        [=](Args& a) {
          f2(a);
          a.add_int_list({1});
          a.add_bool(true);
          a.add_none();
          out_repeat(a, {2, 1});
        }}},
      {"sum",
       {kernels::aten_sum_IntList_out,
        [=](Args& a) {
          f2(a);
          a.add_int_list({0});
          a.add_bool(false);
          a.add_none();
          out_repeat(a, {3});
        }}},
      {"permute",
       {kernels::aten_permute_copy_out,
        [=](Args& a) {
          f2(a);
          a.add_int_list({1, 0});
          out_repeat(a, {3, 2});
        }}},
      {"transpose",
       {kernels::aten_transpose_copy_int_out,
        [=](Args& a) {
          f2(a);
          a.add_int(0);
          a.add_int(1);
          out_repeat(a, {3, 2});
        }}},
      {"view",
       {kernels::aten_view_copy_out,
        [=](Args& a) {
          f2(a);
          a.add_int_list({-1});
          out_repeat(a, {6});
        }}},
      {"unsqueeze",
       {kernels::aten_unsqueeze_copy_out,
        [=](Args& a) {
          f2(a);
          a.add_int(0);
          out_repeat(a, {1, 2, 3});
        }}},
      {"squeeze.dims",
       {kernels::aten_squeeze_copy_dims_out,
        [=](Args& a) {
          a.tensor<float>({1, 3}, {1, 2, 3});
          a.add_int_list({0});
          out_repeat(a, {3});
        }}},
      {"squeeze.dim",
       {kernels::aten_squeeze_copy_dim_out,
        [=](Args& a) {
          a.tensor<float>({1, 3}, {1, 2, 3});
          a.add_int(0);
          out_repeat(a, {3});
        }}},
      {"expand",
       {kernels::aten_expand_copy_out,
        [=](Args& a) {
          a.tensor<float>({1, 3}, {1, 2, 3});
          a.add_int_list({2, 3});
          a.add_bool(false);
          out_repeat(a, {2, 3});
        }}},
      {"select",
       {kernels::aten_select_copy_int_out,
        [=](Args& a) {
          f2(a);
          a.add_int(1);
          a.add_int(2);
          out_repeat(a, {2});
        }}},
      {"slice",
       {kernels::aten_slice_copy_Tensor_out,
        [=](Args& a) {
          f2(a);
          a.add_int(1);
          a.add_int(0);
          a.add_int(3);
          a.add_int(2);
          out_repeat(a, {2, 2});
        }}},
      {"clone",
       {kernels::aten_clone_out,
        [=](Args& a) {
          f2(a);
          a.add_none();
          out_repeat(a, {2, 3});
        }}},
      {"to_copy",
       {kernels::aten__to_copy_out,
        [=](Args& a) {
          f2(a);
          a.add_bool(false);
          a.add_none();
          out_repeat(a, {2, 3}, ScalarType::Int);
        }}},
      {"to_dim_order_copy",
       {kernels::dim_order_ops__to_dim_order_copy_out,
        [=](Args& a) {
          f2(a);
          a.add_bool(false);
          a.add_int_list({0, 1});
          out_repeat(a, {2, 3}, ScalarType::Char);
        }}},
      {"clone_dim_order",
       {kernels::dim_order_ops__clone_dim_order_out,
        [=](Args& a) {
          f2(a);
          a.add_bool(false);
          a.add_none();
          out_repeat(a, {2, 3});
        }}},
      {"full",
       {kernels::aten_full_out,
        [=](Args& a) {
          a.add_int_list({2, 3});
          a.add_double(1.5);
          out_repeat(a, {2, 3});
        }}},
      {"eq",
       {kernels::aten_eq_Scalar_out,
        [=](Args& a) {
          f2(a);
          a.add_int(2);
          out_repeat(a, {2, 3}, ScalarType::Bool);
        }}},
      {"where",
       {kernels::aten_where_self_out,
        [=](Args& a) {
          a.tensor<bool>({2, 1}, {true, false});
          f2(a);
          a.tensor<float>({}, {7});
          out_repeat(a, {2, 3});
        }}},
      {"batch_norm",
       {kernels::aten__native_batch_norm_legit_no_training_out,
        [=](Args& a) {
          t4(a);
          for (int i = 0; i < 4; ++i) a.tensor<float>({2}, {1, 2});
          a.add_double(0.1);
          a.add_double(1e-5);
          a.empty({1, 2, 3, 3}, ScalarType::Float);
          a.empty({0}, ScalarType::Float);
          a.empty({0}, ScalarType::Float);
          a.add_tensor_list({7, 8, 9});
        }}},
      {"layer_norm",
       {kernels::aten_native_layer_norm_out,
        [=](Args& a) {
          f2(a);
          a.add_int_list({3});
          a.tensor<float>({3}, {1, 2, 3});
          a.tensor<float>({3}, {1, 2, 3});
          a.add_double(1e-5);
          a.empty({2, 3}, ScalarType::Float);
          a.empty({2, 1}, ScalarType::Float);
          a.empty({2, 1}, ScalarType::Float);
          a.add_tensor_list({5, 6, 7});
        }}},
      {"upsample",
       {kernels::aten_upsample_nearest2d_vec_out,
        [=](Args& a) {
          t4(a);
          a.add_none();
          a.add_double_list({2.0, 2.0});
          out_repeat(a, {1, 2, 6, 6});
        }}},
      {"constant_pad",
       {kernels::aten_constant_pad_nd_out,
        [=](Args& a) {
          f2(a);
          a.add_int_list({1, 1});
          a.add_int(0);
          out_repeat(a, {2, 5});
        }}},
  };
  return c;
}

// Replacement values of every kind, including tensors of awkward shapes and dtypes.
std::vector<std::function<void(Args&)>> replacements() {
  return {
      [](Args& a) { a.add_none(); },
      [](Args& a) { a.add_int(-1); },
      [](Args& a) { a.add_int(1 << 20); },
      [](Args& a) { a.add_double(NAN); },
      [](Args& a) { a.add_bool(true); },
      [](Args& a) { a.add_int_list({}); },
      [](Args& a) {
        a.add_int_list({-5, 100, 0});
      },
      [](Args& a) { a.add_double_list({}); },
      [](Args& a) { a.add_string("x"); },
      [](Args& a) { a.add_tensor_list({}); },
      [](Args& a) { a.tensor<float>({0}, {}); },
      [](Args& a) { a.tensor<float>({7}, std::vector<float>(7, 1)); },
      [](Args& a) {
        a.tensor<int8_t>({2, 3}, std::vector<int8_t>(6, 1));
      },
      [](Args& a) { a.tensor<float>({}, {1}); },
      [](Args& a) {
        a.tensor<float>({1, 1, 1, 1, 1}, {1});
      },
      [](Args& a) {
        a.empty({2, 3}, ScalarType::Half);
      },
  };
}

bool acceptable(Error e) {
  return e == Error::Ok || e == Error::InvalidArgument || e == Error::InvalidType ||
         e == Error::NotSupported;
}

TEST(ArgMutation, ValidCallsSucceed) {
  for (auto& [name, op] : cases()) {
    Args a;
    op.second(a);
    EXPECT_EQ(a.call(op.first), Error::Ok) << name << ": " << (a.ctx.failure ? a.ctx.failure : "");
  }
}

TEST(ArgMutation, EveryArgumentEveryKind) {
  auto reps = replacements();
  for (auto& [name, op] : cases()) {
    Args base;
    op.second(base);
    const size_t n = base.size();
    for (size_t i = 0; i < n; ++i) {
      for (size_t r = 0; r < reps.size(); ++r) {
        Args a;
        op.second(a);
        reps[r](a);             // appended at index n
        a.replace(i, a.at(n));  // ... and copied over argument i
        a.pop();                // drop the appended original
        Error e = a.call(op.first);
        EXPECT_TRUE(acceptable(e)) << name << " arg " << i << " rep " << r;
        if (e != Error::Ok) EXPECT_NE(a.ctx.failure, nullptr) << name << " arg " << i;
      }
    }
    for (size_t r = 0; r < reps.size(); ++r) {  // out and return slot replaced together
      Args a;
      op.second(a);
      reps[r](a);
      a.replace(n - 2, a.at(n));
      a.replace(n - 1, a.at(n));
      a.pop();
      EXPECT_TRUE(acceptable(a.call(op.first))) << name << " out rep " << r;
    }
    for (size_t keep = 0; keep < n; ++keep) {  // truncated lists
      Args a;
      op.second(a);
      a.pop(n - keep);
      EXPECT_EQ(a.call(op.first), Error::InvalidArgument) << name << " with " << keep << " args";
    }
  }
}

}  // namespace
}  // namespace etmcu
