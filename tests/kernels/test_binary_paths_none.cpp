// The binary ops in a build whose kernel-path mask is empty (kernels/api/kernel_paths.h), as a
// firmware for a program with only contiguous alpha-1 binary ops links them: those still run, and
// a call that needs a left-out path (broadcasting, another dim order, alpha != 1) is refused with
// NotSupported, its out untouched. test_dtype_mask.cpp checks that the full build records the bits.
#include <gtest/gtest.h>

#include "kernels/api/kernel_paths.h"  // declares the mask extern "C" before the definition below
#include "kernels/api/tensor_check.h"
#include "kernels/portable/portable_ops.h"
#include "tests/kernels/kernel_test_util.h"

extern "C" {
const uint32_t etmcu_kernel_paths = 0;  // what a generated kernel table defines for mask 0
uint32_t etmcu_kernel_paths_taken = 0;
uint32_t etmcu_kernel_paths_wanted = 0;
const uint8_t etmcu_kernel_arg_checks = 1;
}

namespace etmcu {
namespace {

using test::Args;

TEST(BinaryPathsNone, ContiguousUnitAlphaRuns) {
  Args same;
  same.tensor<float>({3}, {1.0f, 2.0f, 3.0f});
  same.tensor<float>({3}, {0.5f, 0.25f, -1.0f});
  same.add_int(1);
  same.empty({3}, ScalarType::Float);
  same.repeat(3);
  ASSERT_EQ(same.call(kernels::aten_add_out), Error::Ok);
  EXPECT_EQ(same.values<float>(3), (std::vector<float>{1.5f, 2.25f, 2.0f}));

  Args scalar;  // tensor op one-element tensor: the contiguous scalar loop
  scalar.tensor<float>({2}, {1.0f, -1.0f});
  scalar.tensor<float>({}, {3.0f});
  scalar.empty({2}, ScalarType::Float);
  scalar.repeat(2);
  ASSERT_EQ(scalar.call(kernels::aten_mul_out), Error::Ok);
  EXPECT_EQ(scalar.values<float>(2), (std::vector<float>{3.0f, -3.0f}));
  EXPECT_EQ(etmcu_kernel_paths_taken, 0u);
}

TEST(BinaryPathsNone, LeftOutPathsAreRefused) {
  Args bcast;  // [2,3] + [3]: the strided path
  bcast.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  bcast.tensor<float>({3}, {2, 4, 6});
  bcast.add_int(1);
  bcast.tensor<float>({2, 3}, {-7, -7, -7, -7, -7, -7});
  bcast.repeat(3);
  EXPECT_EQ(bcast.call(kernels::aten_add_out), Error::NotSupported);
  EXPECT_EQ(bcast.values<float>(3), (std::vector<float>{-7, -7, -7, -7, -7, -7}));

  Args scaled;  // alpha 2
  scaled.tensor<float>({2}, {1.0f, 2.0f});
  scaled.tensor<float>({2}, {3.0f, 4.0f});
  scaled.add_int(2);
  scaled.tensor<float>({2}, {-7, -7});
  scaled.repeat(3);
  EXPECT_EQ(scaled.call(kernels::aten_sub_out), Error::NotSupported);
  EXPECT_EQ(scaled.values<float>(3), (std::vector<float>{-7, -7}));

  Args order;  // a [2,2] stored transposed: the strided path
  order.tensor<float>({2, 2}, {1, 2, 3, 4}, {1, 0});
  order.tensor<float>({2, 2}, {10, 20, 30, 40});
  order.tensor<float>({2, 2}, {-7, -7, -7, -7});
  order.repeat(2);
  EXPECT_EQ(order.call(kernels::aten_mul_out), Error::NotSupported);
  EXPECT_EQ(order.values<float>(2), (std::vector<float>{-7, -7, -7, -7}));
  EXPECT_EQ(etmcu_kernel_paths_wanted, 0u);  // refused, not covered by a fallback
}

}  // namespace
}  // namespace etmcu
