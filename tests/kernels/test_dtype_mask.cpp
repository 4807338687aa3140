// The portable kernels built for float32 tensors only (ETMCU_KERNEL_DTYPES = bit 6), as firmware
// for a float program builds them: float ops with integer and float Scalars still compute right,
// tensors of a left-out dtype are rejected cleanly and their outputs left untouched.
#include <gtest/gtest.h>

#include "kernels/api/kernel_paths.h"
#include "kernels/portable/portable_ops.h"
#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {

using test::Args;

TEST(DtypeMask, FloatOpsWithIntAndFloatScalars) {
  Args a;
  a.tensor<float>({3}, {1.0f, -2.0f, 0.5f});
  a.add_int(2);  // other: an Int Scalar (travels as an int64 temporary)
  a.add_int(3);  // alpha
  a.empty({3}, ScalarType::Float);
  a.repeat(3);
  ASSERT_EQ(a.call(kernels::aten_add_Scalar_out), Error::Ok);
  EXPECT_EQ(a.values<float>(3), (std::vector<float>{7.0f, 4.0f, 6.5f}));

  Args m;
  m.tensor<float>({2}, {4.0f, -8.0f});
  m.add_double(0.25);
  m.empty({2}, ScalarType::Float);
  m.repeat(2);
  ASSERT_EQ(m.call(kernels::aten_mul_Scalar_out), Error::Ok);
  EXPECT_EQ(m.values<float>(2), (std::vector<float>{1.0f, -2.0f}));
}

// The single-dtype build takes every path of the binary ops with compile-time promotion: the
// contiguous loops, one-element others, broadcasting, other dim orders, a double alpha.
TEST(DtypeMask, SingleDtypeBinaryOpPaths) {
  Args same;  // contiguous, alpha 1
  same.tensor<float>({3}, {1.0f, 2.0f, 3.0f});
  same.tensor<float>({3}, {0.5f, 0.25f, -1.0f});
  same.add_int(1);
  same.empty({3}, ScalarType::Float);
  same.repeat(3);
  ASSERT_EQ(same.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(same.values<float>(3), (std::vector<float>{1.5f, 2.25f, 2.0f}));

  Args bcast;  // [2,3] - 0.5 * [3]: broadcasting, double alpha, the strided path
  bcast.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  bcast.tensor<float>({3}, {2, 4, 6});
  bcast.add_double(0.5);
  bcast.empty({2, 3}, ScalarType::Float);
  bcast.repeat(3);
  etmcu_kernel_paths_taken = 0;
  ASSERT_EQ(bcast.call(kernels::aten_sub_out), Error::Ok);
  EXPECT_EQ(bcast.values<float>(3), (std::vector<float>{0, 0, 0, 3, 3, 3}));
  // the kernel paths it took (kernels/api/kernel_paths.h), as a firmware build records them
  EXPECT_EQ(etmcu_kernel_paths_taken,
            (1u << kernels::kPathBinaryStrided) | (1u << kernels::kPathBinaryScaled));

  Args zero_dim;  // a 0-dim other and alpha 2: the one-element loop
  zero_dim.tensor<float>({2}, {1.0f, -1.0f});
  zero_dim.tensor<float>({}, {3.0f});
  zero_dim.add_int(2);
  zero_dim.empty({2}, ScalarType::Float);
  zero_dim.repeat(3);
  ASSERT_EQ(zero_dim.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(zero_dim.values<float>(3), (std::vector<float>{7.0f, 5.0f}));

  Args order;  // a [2,2] stored transposed (dim_order 1,0) times a contiguous [2,2]
  order.tensor<float>({2, 2}, {1, 2, 3, 4}, {1, 0});  // values in logical order, stored transposed
  order.tensor<float>({2, 2}, {10, 20, 30, 40});
  order.empty({2, 2}, ScalarType::Float);
  order.repeat(2);
  ASSERT_EQ(order.call(kernels::aten_mul_out), Error::Ok);
  EXPECT_EQ(order.values<float>(2), (std::vector<float>{10, 40, 90, 160}));

  Args div;  // true division by a Bool Scalar (1)
  div.tensor<float>({2}, {3.0f, -4.0f});
  div.add_bool(true);
  div.empty({2}, ScalarType::Float);
  div.repeat(2);
  ASSERT_EQ(div.call(kernels::aten_div_Scalar_out), Error::Ok);
  EXPECT_EQ(div.values<float>(2), (std::vector<float>{3.0f, -4.0f}));
}

TEST(DtypeMask, LeftOutDtypesAreRejected) {
  Args a;
  a.tensor<int32_t>({2}, {1, 2});
  a.tensor<int32_t>({2}, {3, 4});
  a.add_int(1);
  a.tensor<int32_t>({2}, {-7, -7});
  a.repeat(3);
  EXPECT_NE(a.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(a.values<int32_t>(3), (std::vector<int32_t>{-7, -7}));
}

}  // namespace
}  // namespace etmcu
