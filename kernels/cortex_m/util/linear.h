// cortex_m::quantized_linear.out, shared by its variants (ref/, fast/): the argument checks that
// fill a LinearJob, and the reference arithmetic (arm_fully_connected_s8's results).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/arg_util.h"
#include "kernels/cortex_m/util/cmsis_math.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct LinearJob {
  const int8_t* x;
  const int8_t* w;
  const int32_t* bias;
  const int32_t* ksum;
  int8_t* y;
  size_t batches;
  int32_t k, nout;
  int32_t ioff, foff, ooff, mult, shift, amin, amax;
};

// The reference arithmetic, one multiply-accumulate at a time.
inline __attribute__((noinline)) void linear_ref(const LinearJob& j) {
  for (size_t b = 0; b < j.batches; ++b) {
    const int8_t* xb = j.x + b * static_cast<size_t>(j.k);
    for (int32_t o = 0; o < j.nout; ++o) {
      const int8_t* wr = j.w + static_cast<size_t>(o) * j.k;
      int32_t acc;
      if (j.ksum != nullptr) {  // kernel_sum already holds bias + input_offset * sum(w + f_off)
        acc = j.ksum[o];
        for (int32_t i = 0; i < j.k; ++i) acc = cmsis::wrap_add(acc, xb[i] * (wr[i] + j.foff));
      } else {
        acc = j.bias ? j.bias[o] : 0;
        for (int32_t i = 0; i < j.k; ++i)
          acc = cmsis::wrap_add(acc, (xb[i] + j.ioff) * (wr[i] + j.foff));
      }
      acc = cmsis::wrap_add(cmsis::requantize(acc, j.mult, j.shift), j.ooff);
      j.y[b * static_cast<size_t>(j.nout) + o] =
          static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
    }
  }
}

// quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum,
//     int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers,
//     int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out)
// input [..., K] int8; weights [N, K] int8; bias [N] int32 or None; kernel_sum [N] int32 or None
// (= input_offset * sum_k(w + filter_offset) + bias, used instead of bias when present);
// out [..., N] int8. Requantization uses element 0 of the two lists.
ETMCU_ARG_CHECKS inline Error parse_linear(KernelContext& ctx, Span<EValue*> args, LinearJob* job) {
  if (ETMCU_BAD_ARG(args.size() != 13))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: expected 11 arguments + out (+ return)");
  if (ETMCU_BAD_ARG(!args_are(args, "TTttIIILLIITR")))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: expected (input, weights, bias?, kernel_sum?, "
                    "input_offset, filter_offset, output_offset, multipliers[], shifts[], "
                    "activation_max, activation_min, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& w = tensor(args, 1);
  const Tensor& out = tensor(args, 11);
  if (ETMCU_BAD_ARG(in.dtype != ScalarType::Char || w.dtype != ScalarType::Char ||
                    out.dtype != ScalarType::Char))
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantized_linear.out: input, weights and out must be int8");
  if (ETMCU_BAD_ARG(in.dim < 1 || out.dim < 1 || w.dim != 2 || !is_contiguous_like(w) ||
                    !is_contiguous_like(in) || !is_contiguous_like(out)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: need contiguous input [..., K], weights "
                    "[N, K], out [..., N]");
  const int32_t k = in.sizes[in.dim - 1], nout = out.sizes[out.dim - 1];
  const size_t batches = k > 0 ? in.numel() / static_cast<size_t>(k) : 0;
  if (ETMCU_BAD_ARG(w.sizes[0] != nout || w.sizes[1] != k || k <= 0 ||
                    out.numel() != batches * static_cast<size_t>(nout)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: weights must be [out_features, in_features] "
                    "and out [..., out_features] with input's batch");
  const bool has_bias = has_tensor(args, 2), has_ksum = has_tensor(args, 3);
  if (ETMCU_BAD_ARG((has_bias && !is_int32_vector(tensor(args, 2), nout)) ||
                    (has_ksum && !is_int32_vector(tensor(args, 3), nout))))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: bias and kernel_sum must be int32 "
                    "[out_features]");
  Span<const int64_t> mults = args[7]->to_int_list(), shifts = args[8]->to_int_list();
  if (ETMCU_BAD_ARG(mults.size() < 1 || shifts.size() < 1 || !valid_requant(mults[0], shifts[0])))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: need a multiplier in (INT32_MIN, INT32_MAX] "
                    "and a shift in [-31, 30]");
  const int64_t in_off = int_arg(args, 4), f_off = int_arg(args, 5), out_off = int_arg(args, 6);
  const int64_t act_max = int_arg(args, 9), act_min = int_arg(args, 10);
  if (ETMCU_BAD_ARG(!offsets_in_range(args, 4, 3) || act_min < -128 || act_max > 127 ||
                    act_min > act_max))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_linear.out: offsets or activation range out of range "
                    "(note the order: activation_max, then activation_min)");
  LinearJob& j = *job;
  j.x = in.const_data_ptr<int8_t>();
  j.w = w.const_data_ptr<int8_t>();
  j.bias = has_bias ? tensor(args, 2).const_data_ptr<int32_t>() : nullptr;
  j.ksum = has_ksum ? tensor(args, 3).const_data_ptr<int32_t>() : nullptr;
  j.y = out.mutable_data_ptr<int8_t>();
  j.batches = batches;
  j.k = k;
  j.nout = nout;
  j.ioff = static_cast<int32_t>(in_off);
  j.foff = static_cast<int32_t>(f_off);
  j.ooff = static_cast<int32_t>(out_off);
  j.mult = static_cast<int32_t>(mults[0]);
  j.shift = static_cast<int32_t>(shifts[0]);
  j.amin = static_cast<int32_t>(act_min);
  j.amax = static_cast<int32_t>(act_max);
  return Error::Ok;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
