// cortex_m::softmax.out: int8 softmax along the last dim (arm_softmax_s8): fixed-point exp of the
// scaled differences to the row max, a Newton-Raphson reciprocal of their sum, output zp -128.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"
#include "kernels/cortex_m/util/cmsis_math.h"

namespace etmcu {
namespace kernels {

namespace {
using cmsis::divide_by_power_of_two;
using cmsis::doubling_high_mult;
using cmsis::mult_by_power_of_two;

constexpr int32_t kAccumBits = 12;

inline int32_t select(bool cond, int32_t a, int32_t b) { return cond ? a : b; }

// arm_nn_exp_on_negative_values (5 integer bits assumed): exp(val) for val <= 0 in Q5.26 -> Q0.31.
int32_t exp_on_negative_values(int32_t val) {
  int32_t shift = 24;
  const int32_t val_mod_minus_quarter = (val & ((1 << shift) - 1)) - (1 << shift);
  const int32_t remainder = val_mod_minus_quarter - val;
  const int32_t x = cmsis::wrap_add(cmsis::wrap_mul(val_mod_minus_quarter, 32), 1 << 28);
  const int32_t x2 = doubling_high_mult(x, x);
  const int32_t inner = divide_by_power_of_two(
      doubling_high_mult(cmsis::wrap_add(divide_by_power_of_two(doubling_high_mult(x2, x2), 2),
                                         doubling_high_mult(x2, x)),
                         715827883) +
          x2,
      1);
  int32_t result = cmsis::wrap_add(1895147668, doubling_high_mult(1895147668, x + inner));
  static constexpr int32_t kFactors[7] = {1672461947, 1302514674, 790015084, 290630308,
                                          39332535,   720401,     242};
  for (int i = 0; i < 7; ++i) {
    result =
        select((remainder & (1 << shift)) != 0, doubling_high_mult(result, kFactors[i]), result);
    ++shift;
  }
  return select(val == 0, cmsis::kQ31Max, result);
}

// arm_nn_one_over_one_plus_x_for_x_in_0_1.
int32_t one_over_one_plus_x(int32_t val) {
  const int64_t sum = static_cast<int64_t>(val) + cmsis::kQ31Max;
  const int32_t half_den = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = 1515870810 + doubling_high_mult(half_den, -1010580540);
  const int32_t shift = 1 << 29;
  // Wrapping adds (CMSIS-NN's two's complement): for val in [0, 2^31) the steps stay in range.
  for (int i = 0; i < 3; ++i)
    x = cmsis::wrap_add(
        x, mult_by_power_of_two(doubling_high_mult(x, shift - doubling_high_mult(half_den, x)), 2));
  return mult_by_power_of_two(x, 1);
}

inline int32_t clz32(uint32_t v) {
  if (v == 0) return 32;
  int32_t n = 0;
  while ((v & 0x80000000u) == 0) {
    v <<= 1;
    ++n;
  }
  return n;
}
}  // namespace

// softmax.out(Tensor input, int dim, int input_zero_point, int output_zero_point,
//     int input_multiplier, int input_shift, int diff_min, *, Tensor(a!) out) -> Tensor(a!)
// input/out int8, same shape, contiguous; dim must be the last one; output_zero_point must be -128
// (output scale 1/256). input_zero_point is not used by the arithmetic.
Error cortex_m_softmax_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 9)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::softmax.out: expected 7 arguments + out (+ return)");
  bool ok = is_tensor(args, 0) && is_tensor(args, 7) && is_return_of(args, 8, 7);
  for (size_t i = 1; i <= 6; ++i) ok = ok && is_int(args, i);
  if (!ok)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::softmax.out: expected (input, dim, input_zp, output_zp, "
                    "input_multiplier, input_shift, diff_min, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 7);
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::softmax.out: tensors must be int8");
  if (in.dim < 1 || !same_layout(in, out) || !is_contiguous_like(in))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::softmax.out: input and out must be contiguous with the same shape");
  const int64_t dim = int_arg(args, 1);
  if (dim != in.dim - 1 && dim != -1)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::softmax.out: only softmax over the last dim is supported");
  if (int_arg(args, 3) != -128)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::softmax.out: output_zero_point must be -128");
  const int64_t mult = int_arg(args, 4), shift = int_arg(args, 5), diff_min = int_arg(args, 6);
  // diff_min > 0 would drop every element, the row maximum too: the exp sum would be 0, outside
  // the reciprocal's domain (found by the kernel-argument mutants).
  if (!valid_requant(mult, shift) || shift < 0 || !fits_i32(diff_min) || diff_min > 0)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::softmax.out: input_multiplier/input_shift (shift in [0, 30]) or "
                    "diff_min (<= 0) out of range");
  const int32_t row = in.sizes[in.dim - 1];
  if (row <= 0) return Error::Ok;
  if (row > 4096)  // the Q31 exp sum could overflow (CMSIS-NN would shift by more than 31)
    return ctx.fail(Error::NotSupported, "cortex_m::softmax.out: rows longer than 4096");
  const size_t rows = in.numel() / static_cast<size_t>(row);
  const int32_t m = static_cast<int32_t>(mult), dmin = static_cast<int32_t>(diff_min);
  const int32_t mask = static_cast<int32_t>(uint32_t(1) << shift);
  const int8_t* x = in.const_data_ptr<int8_t>();
  int8_t* y = out.mutable_data_ptr<int8_t>();
  for (size_t r = 0; r < rows; ++r, x += row, y += row) {
    int8_t mx = x[0];
    for (int32_t c = 1; c < row; ++c) mx = x[c] > mx ? x[c] : mx;
    int32_t sum = 0;
    for (int32_t c = 0; c < row; ++c) {
      const int32_t diff = x[c] - mx;
      if (diff >= dmin)
        sum = cmsis::wrap_add(sum, divide_by_power_of_two(exp_on_negative_values(doubling_high_mult(
                                                              cmsis::wrap_mul(diff, mask), m)),
                                                          kAccumBits));
    }
    const int32_t headroom = clz32(static_cast<uint32_t>(sum));
    const uint32_t shifted_sum = sum > 0 ? static_cast<uint32_t>(sum) << headroom : 0u;
    const int32_t scale = one_over_one_plus_x(static_cast<int32_t>(shifted_sum - 0x80000000u));
    const int32_t bits_over_unit = kAccumBits - headroom + 23;
    for (int32_t c = 0; c < row; ++c) {
      const int32_t diff = x[c] - mx;
      if (diff >= dmin) {
        const int32_t e =
            exp_on_negative_values(doubling_high_mult(cmsis::wrap_mul(diff, mask), m));
        const int32_t res =
            divide_by_power_of_two(doubling_high_mult(scale, e), bits_over_unit) - 128;
        y[c] = static_cast<int8_t>(cmsis::clamp(res, -128, 127));
      } else {
        y[c] = -128;
      }
    }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
