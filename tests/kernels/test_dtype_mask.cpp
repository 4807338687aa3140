// The portable kernels built for float32 tensors only (ETMCU_KERNEL_DTYPES = bit 6), as firmware
// for a float program builds them: float ops with integer and float Scalars still compute right,
// tensors of a left-out dtype are rejected cleanly and their outputs left untouched.
#include <gtest/gtest.h>

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
