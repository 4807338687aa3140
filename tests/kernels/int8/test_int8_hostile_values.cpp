// Regressions of the kernel-argument mutants (tests/fuzz/test_kernel_arg_mutants.cpp): argument
// values that once made an int8 kernel compute outside its arithmetic's domain. Each call must
// return a clean error (and, under ASan/UBSan, stay free of undefined behaviour).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/cortex_m/cortex_m_ops.h"

namespace etmcu {
namespace {

// An int8 [1, n] tensor over caller memory.
struct Int8Row {
  int32_t sizes[2];
  uint8_t order[2] = {0, 1};
  Tensor t;
  Int8Row(int8_t* data, int32_t n) : sizes{1, n} {
    t.dtype = ScalarType::Char;
    t.sizes = sizes;
    t.dim_order = order;
    t.dim = 2;
    t.nbytes = static_cast<size_t>(n);
    t.data = data;
  }
};

// softmax.out(input, dim, input_zp, output_zp, input_multiplier, input_shift, diff_min, out)
Error softmax(int8_t* in_data, int8_t* out_data, int32_t n, int64_t diff_min) {
  Int8Row in(in_data, n), out(out_data, n);
  std::vector<EValue> v = {
      EValue::from_tensor(&in.t), EValue::from_int(-1),        EValue::from_int(0),
      EValue::from_int(-128),     EValue::from_int(1 << 30),   EValue::from_int(20),
      EValue::from_int(diff_min), EValue::from_tensor(&out.t), EValue::from_tensor(&out.t)};
  std::vector<EValue*> args;
  for (EValue& e : v) args.push_back(&e);
  KernelContext ctx;
  return kernels::cortex_m_softmax_out(ctx, Span<EValue*>(args.data(), args.size()));
}

// A positive diff_min dropped every element, the row maximum too: the exp sum was 0 and the
// reciprocal's Newton-Raphson steps overflowed int32 (UBSan: signed integer overflow).
TEST(Int8HostileValues, SoftmaxRejectsPositiveDiffMin) {
  int8_t in[8], out[8];
  std::memset(in, 0x5a, sizeof(in));
  for (int64_t diff_min : {int64_t{1}, int64_t{0x7fffffff}}) {
    std::memset(out, 0, sizeof(out));
    EXPECT_EQ(softmax(in, out, 8, diff_min), Error::InvalidArgument) << diff_min;
  }
  // The boundary stays valid: diff_min 0 keeps the maxima (here all equal: 1/8 each).
  ASSERT_EQ(softmax(in, out, 8, 0), Error::Ok);
  for (int8_t y : out) EXPECT_EQ(y, -128 + 32);
}

}  // namespace
}  // namespace etmcu
