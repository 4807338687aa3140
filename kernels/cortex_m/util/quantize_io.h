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
  return !ETMCU_BAD_ARG(b == 0 || b >= 0x7f800000u);
}

// Which check of check_quant_args failed: the index of the op's message.
enum QuantCheck : int { kQArgCount, kQArgKinds, kQFloat, kQDtype, kQLayout, kQRange, kQScale };

// The checked arguments of quantize_per_tensor.out / dequantize_per_tensor.out.
struct QuantArgs {
  const Tensor* in;
  const Tensor* out;
  float scale;  // positive and finite
  int32_t zp, qmin, qmax;
};

// The argument checks of both ops in one function (their schemas are the same; quantize reads a
// float32 input into an int8/int16 out, dequantize the reverse): fills *q, or returns the error
// and sets *why. Each op's checks and their order are its own (the texts are in
// parse_quantize_per_tensor and parse_dequantize_per_tensor).
ETMCU_ARG_CHECKS inline Error check_quant_args(Span<EValue*> args, bool quantize, QuantArgs* q,
                                               int* why) {
  if (ETMCU_BAD_ARG(args.size() != 8)) return failed(why, kQArgCount, Error::InvalidArgument);
  if (ETMCU_BAD_ARG(!args_are(args, "TFIIIITR")))
    return failed(why, kQArgKinds, Error::InvalidArgument);
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 6);
  const Tensor& fl = quantize ? in : out;  // the float32 side
  const Tensor& qt = quantize ? out : in;  // the quantized side
  const int64_t dtype = int_arg(args, 5);
  const bool float_ok = fl.dtype == ScalarType::Float;
  const bool dtype_ok = (dtype == static_cast<int64_t>(ScalarType::Char) ||
                         dtype == static_cast<int64_t>(ScalarType::Short)) &&
                        static_cast<int64_t>(qt.dtype) == dtype;
  // quantize checks the float side first, dequantize the dtype
  if (ETMCU_BAD_ARG(!float_ok || !dtype_ok)) {
    *why = (quantize ? float_ok : !dtype_ok) ? kQDtype : kQFloat;
    return Error::InvalidType;
  }
  if (ETMCU_BAD_ARG(!same_layout(in, out))) return failed(why, kQLayout, Error::InvalidArgument);
  const bool i8 = qt.dtype == ScalarType::Char;
  const int64_t lo = i8 ? -128 : -32768, hi = i8 ? 127 : 32767;
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4), zp = int_arg(args, 2);
  // quantize: any int32 zero point (the result is clamped); dequantize: within [qmin, qmax]
  // (which also rules out qmin > qmax)
  if (ETMCU_BAD_ARG(qmin < lo || qmax > hi || qmin > qmax ||
                    (quantize ? !fits_i32(zp) : (zp < qmin || zp > qmax))))
    return failed(why, kQRange, Error::InvalidArgument);
  if (!read_scale(args, 1, &q->scale)) return failed(why, kQScale, Error::InvalidArgument);
  q->in = &in;
  q->out = &out;
  q->zp = static_cast<int32_t>(zp);
  q->qmin = static_cast<int32_t>(qmin);
  q->qmax = static_cast<int32_t>(qmax);
  return Error::Ok;
}

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max,
//                         ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
inline Error parse_quantize_per_tensor(KernelContext& ctx, Span<EValue*> args, QuantizeJob* job) {
  static constexpr const char* kWhy[] = {
      "cortex_m::quantize_per_tensor.out: expected 6 arguments + out (+ return)",
      "cortex_m::quantize_per_tensor.out: expected (input, scale, zero_point, quant_min, "
      "quant_max, dtype, out)",
      "cortex_m::quantize_per_tensor.out: input must be float32",
      "cortex_m::quantize_per_tensor.out: dtype must be int8 or int16 and match out",
      "cortex_m::quantize_per_tensor.out: out must have input's shape and layout",
      "cortex_m::quantize_per_tensor.out: quant_min/quant_max outside the dtype",
      "cortex_m::quantize_per_tensor.out: scale must be a positive finite float32",
  };
  QuantArgs q;
  int why = 0;
  const Error e = check_quant_args(args, true, &q, &why);
  if (e != Error::Ok) return ctx.fail(e, kWhy[why]);
  const bool i8 = q.out->dtype == ScalarType::Char;
  job->x = q.in->const_data_ptr<float>();
  job->q8 = i8 ? q.out->mutable_data_ptr<int8_t>() : nullptr;
  job->q16 = i8 ? nullptr : q.out->mutable_data_ptr<int16_t>();
  job->n = q.in->numel();
#if defined(__ARM_FP) && (__ARM_FP & 4)
  // A single-precision FPU (Cortex-M4F, M33, M55): the correctly rounded division is one VDIV,
  // the result reciprocal_bits computes without one.
  job->inv_scale = 1.0f / q.scale;
#else
  const uint32_t inv = reciprocal_bits(float_bits(q.scale));  // 1.0f / scale
  memcpy(&job->inv_scale, &inv, 4);
#endif
  job->zp = q.zp;
  job->qmin = q.qmin;
  job->qmax = q.qmax;
  return Error::Ok;
}

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//                           int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
inline Error parse_dequantize_per_tensor(KernelContext& ctx, Span<EValue*> args,
                                         DequantizeJob* job) {
  static constexpr const char* kWhy[] = {
      "cortex_m::dequantize_per_tensor.out: expected 6 arguments + out (+ return)",
      "cortex_m::dequantize_per_tensor.out: expected (input, scale, zero_point, quant_min, "
      "quant_max, dtype, out)",
      "cortex_m::dequantize_per_tensor.out: out must be float32",
      "cortex_m::dequantize_per_tensor.out: dtype must be int8 or int16 and match input",
      "cortex_m::dequantize_per_tensor.out: out must have input's shape and layout",
      "cortex_m::dequantize_per_tensor.out: need quant_min <= zero_point <= quant_max within the "
      "dtype",
      "cortex_m::dequantize_per_tensor.out: scale must be a positive finite float32",
  };
  QuantArgs q;
  int why = 0;
  const Error e = check_quant_args(args, false, &q, &why);
  if (e != Error::Ok) return ctx.fail(e, kWhy[why]);
  const bool i8 = q.in->dtype == ScalarType::Char;
  job->q8 = i8 ? q.in->const_data_ptr<int8_t>() : nullptr;
  job->q16 = i8 ? nullptr : q.in->const_data_ptr<int16_t>();
  job->y = q.out->mutable_data_ptr<float>();
  job->n = q.in->numel();
  job->scale = q.scale;
  job->zp = q.zp;
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
