// cortex_m::quantize_per_tensor.out and dequantize_per_tensor.out, shared by their variants: the
// argument checks that fill a job, and the float32 loops (the reference semantics; the variants
// for cores with an FPU run them too, isa/<isa>/float_edges.h). The checks read the scale as
// float32 and take its reciprocal with integer work (no soft-double, no __divsf3).
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/util/arg_util.h"
#include "kernels/cortex_m/util/float_bits.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct QuantizeJob {
  const float* x;
  int8_t* q8;    // int8 output, or
  int16_t* q16;  // int16 output
  size_t n;
  float inv_scale;  // 1.0f / scale, in float32 (> 0, possibly subnormal or infinite)
  int32_t zp, qmin, qmax;
};

struct DequantizeJob {
  const int8_t* q8;
  const int16_t* q16;
  float* y;
  size_t n;
  float scale;  // > 0 and finite
  int32_t zp;
};

// A scale argument as float32 (the double narrowed like static_cast<float>), accepted when positive
// and finite: what quantization means, and the range the integer loops of cores without an FPU
// cover exactly (util/float_bits.h). Zero, negative, infinite and NaN scales are an error.
inline bool read_scale(Span<EValue*> args, size_t i, float* scale) {
  *scale = args[i]->scalar_as_float();
  const uint32_t b = float_bits(*scale);
  return b != 0 && b < 0x7f800000u;
}

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max,
//                         ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
ETMCU_ARG_CHECKS inline Error parse_quantize_per_tensor(KernelContext& ctx, Span<EValue*> args,
                                                        QuantizeJob* job) {
  if (args.size() != 8)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: expected 6 arguments + out (+ return)");
  if (!args_are(args, "TFIIIITR"))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: expected (input, scale, zero_point, "
                    "quant_min, quant_max, dtype, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 6);
  const int64_t dtype = int_arg(args, 5);
  if (in.dtype != ScalarType::Float)
    return ctx.fail(Error::InvalidType, "cortex_m::quantize_per_tensor.out: input must be float32");
  if ((dtype != static_cast<int64_t>(ScalarType::Char) &&
       dtype != static_cast<int64_t>(ScalarType::Short)) ||
      static_cast<int64_t>(out.dtype) != dtype)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantize_per_tensor.out: dtype must be int8 or int16 and match out");
  if (!same_layout(in, out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: out must have input's shape and layout");
  const bool i8 = out.dtype == ScalarType::Char;
  const int64_t lo = i8 ? -128 : -32768, hi = i8 ? 127 : 32767;
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4), zp = int_arg(args, 2);
  if (qmin < lo || qmax > hi || qmin > qmax || !fits_i32(zp))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: quant_min/quant_max outside the dtype");
  float scale;
  if (!read_scale(args, 1, &scale))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantize_per_tensor.out: scale must be a positive finite float32");
  job->x = in.const_data_ptr<float>();
  job->q8 = i8 ? out.mutable_data_ptr<int8_t>() : nullptr;
  job->q16 = i8 ? nullptr : out.mutable_data_ptr<int16_t>();
  job->n = in.numel();
  const uint32_t inv = reciprocal_bits(float_bits(scale));  // 1.0f / scale
  memcpy(&job->inv_scale, &inv, 4);
  job->zp = static_cast<int32_t>(zp);
  job->qmin = static_cast<int32_t>(qmin);
  job->qmax = static_cast<int32_t>(qmax);
  return Error::Ok;
}

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//                           int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
ETMCU_ARG_CHECKS inline Error parse_dequantize_per_tensor(KernelContext& ctx, Span<EValue*> args,
                                                          DequantizeJob* job) {
  if (args.size() != 8)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: expected 6 arguments + out (+ return)");
  if (!args_are(args, "TFIIIITR"))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: expected (input, scale, zero_point, "
                    "quant_min, quant_max, dtype, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 6);
  const int64_t dtype = int_arg(args, 5);
  if ((dtype != static_cast<int64_t>(ScalarType::Char) &&
       dtype != static_cast<int64_t>(ScalarType::Short)) ||
      static_cast<int64_t>(in.dtype) != dtype)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::dequantize_per_tensor.out: dtype must be int8 or int16 and match "
                    "input");
  if (out.dtype != ScalarType::Float)
    return ctx.fail(Error::InvalidType, "cortex_m::dequantize_per_tensor.out: out must be float32");
  if (!same_layout(in, out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: out must have input's shape and layout");
  const bool i8 = in.dtype == ScalarType::Char;
  const int64_t lo = i8 ? -128 : -32768, hi = i8 ? 127 : 32767;
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4), zp = int_arg(args, 2);
  if (qmin < lo || qmax > hi || zp < qmin || zp > qmax)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: need quant_min <= zero_point <= "
                    "quant_max within the dtype");
  if (!read_scale(args, 1, &job->scale))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::dequantize_per_tensor.out: scale must be a positive finite float32");
  job->q8 = i8 ? in.const_data_ptr<int8_t>() : nullptr;
  job->q16 = i8 ? nullptr : in.const_data_ptr<int16_t>();
  job->y = out.mutable_data_ptr<float>();
  job->n = in.numel();
  job->zp = static_cast<int32_t>(zp);
  return Error::Ok;
}

// nearbyintf(v) in the default rounding mode: |v| < 2^23 plus 2^23 lands in [2^23, 2^24), where
// float32's spacing is 1, so the add itself rounds to an integer, nearest even. Two FPU adds
// instead of a call to rintf on FPUs without VRINT (the Cortex-M4's); NaN and |v| >= 2^23
// (already integral) pass through.
inline float round_half_even(float v) {
  const float a = v < 0 ? -v : v;
  if (!(a < 8388608.0f)) return v;
  const float r = (a + 8388608.0f) - 8388608.0f;
  return v < 0 ? -r : r;
}

// One float32 multiply by the reciprocal, rounded to nearest even, plus the zero point, clamped.
template <typename Q>
inline Q quantize_float(float x, float inv_scale, int32_t zp, int32_t qmin, int32_t qmax) {
  const float r = round_half_even(inv_scale * x);
  int64_t v;
  if (r >= 1073741824.0f) {
    v = qmax;
  } else if (r <= -1073741824.0f || r != r) {  // very negative, or NaN
    v = r != r ? zp : qmin;
  } else {
    v = static_cast<int64_t>(zp) + static_cast<int32_t>(r);
  }
  return static_cast<Q>(v < qmin ? qmin : (v > qmax ? qmax : v));
}

// One loop for both widths (the width a branch per element): these run once per inference, on
// the model's input and output, so the second loop's code is not worth its few cycles.
inline void quantize_floats(const QuantizeJob& j) {
  for (size_t i = 0; i < j.n; ++i) {
    const int32_t v = quantize_float<int32_t>(j.x[i], j.inv_scale, j.zp, j.qmin, j.qmax);
    if (j.q8)
      j.q8[i] = static_cast<int8_t>(v);
    else
      j.q16[i] = static_cast<int16_t>(v);
  }
}

// out = float(q - zero_point) * scale, one float32 multiply.
inline void dequantize_floats(const DequantizeJob& j) {
  for (size_t i = 0; i < j.n; ++i)
    j.y[i] = static_cast<float>((j.q8 ? j.q8[i] : j.q16[i]) - j.zp) * j.scale;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
