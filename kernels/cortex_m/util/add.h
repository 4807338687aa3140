// cortex_m::quantized_add.out, shared by its variants (ref/, opt/): the argument checks that fill
// an AddJob (arm_elementwise_add_s8's parameters).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/elementwise_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct AddJob {
  const int8_t* a;
  const int8_t* b;
  int8_t* y;
  size_t n;
  PairPlan plan;  // out[i] = f(a[i % a_mod], b[i % b_mod])
  int32_t off1, m1, s1, off2, m2, s2, mo, so, ooff, amin, amax;
};
// Both inputs are shifted left by this before their rescaling.
constexpr int32_t kAddLeftShift = 20;

// The long same-shape loop of the optimised variants (opt/op_quantized_add.cpp add_with_table)
// where one input's rescaling is a power of two and the output's requantization the 4v form:
// y[i] = clamp(cmsis::requantize_offset_of_4v(v4, q)) with v4 = table[t[i]] + (s[i] << left4)
// (4v, in 32-bit wrapping arithmetic). isa/<isa>/add_table.h runs it.
struct AddTableShift {
  const int32_t* table;  // the entry of x = 0 (256 entries around it)
  const int8_t* t;       // the tabulated input
  const int8_t* s;       // the shifted input
  int8_t* y;
  int32_t n;  // >= 1
  int32_t left4;
  cmsis::Requant4v q;
  int32_t amin, amax;
  // 1: amin is the output offset (a fused ReLU: ResNet-8's three adds), the ReLU form below
  int32_t relu;
};

// The ReLU form of one element (AddTableShift::relu). q is the 4v form (requant_4v_ok: a
// positive multiplier and right >= 2), so a sum below 0 requantizes to at most the offset, which
// the clamp raises to amin; a sum of 0 gives exactly the offset ((1 + 2^(right-1)) >> right is 0).
// Clamping the sum at 0 first therefore changes no result: the sign term is then always +1 and
// the lower clamp never acts. The ISAs' loops compute exactly this (Xpulp: cv.max, mulh, one
// cv.addRNr, cv.min; plain RV32: a branch for a sum below 0 instead of the clamp).
inline int32_t add_relu_of_4v(int32_t v4, const cmsis::Requant4v& q, int32_t amax) {
  const int32_t v = v4 < 0 ? 0 : v4;
  const int32_t high = static_cast<int32_t>((static_cast<int64_t>(v) * q.multiplier) >> 32);
  const int32_t y = (high + 1 + (q.offset_high + (int32_t(1) << (q.right - 1)))) >> q.right;
  return y < amax ? y : amax;
}

// The loop in C (the ISAs without one of their own, and the host build of the Xpulp one).
inline void add_table_shift_c(const AddTableShift& a) {
  const int32_t* table = a.table;
  const int8_t *t = a.t, *s = a.s;
  int8_t* y = a.y;
  const cmsis::Requant4v q = a.q;
  const int32_t left4 = a.left4, amin = a.amin, amax = a.amax;
  // (an entry may wrap, the sum 4v does not)
  auto v4 = [&](int32_t i) {
    return static_cast<int32_t>(static_cast<uint32_t>(table[t[i]]) +
                                (static_cast<uint32_t>(s[i]) << left4));
  };
  if (a.relu) {  // (two loops: a test per element cost the Cortex-M55 1.3 % on ResNet-8)
    for (int32_t i = 0; i < a.n; ++i) y[i] = static_cast<int8_t>(add_relu_of_4v(v4(i), q, amax));
    return;
  }
  for (int32_t i = 0; i < a.n; ++i)
    y[i] = static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset_of_4v(v4(i), q), amin, amax));
}

// quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//     Tensor other, int other_zero_point, int other_multiplier, int other_shift,
//     int output_zero_point, int output_multiplier, int output_shift, int activation_min,
//     int activation_max, *, Tensor(a!) out) -> Tensor(a!)
// Same shapes (any common layout), or one [1,C,1,1] operand broadcast over a channels-last one.
ETMCU_ARG_CHECKS inline Error parse_quantized_add(KernelContext& ctx, Span<EValue*> args,
                                                  AddJob* job) {
  if (args.size() == 13)
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_add.out: 11-argument schema without activation_min/max "
                    "(before 2026-03) is not supported; re-export");
  if (args.size() != 15)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_add.out: expected 13 arguments + out (+ return)");
  bool ok =
      is_tensor(args, 0) && is_tensor(args, 4) && is_tensor(args, 13) && is_return_of(args, 14, 13);
  static constexpr size_t kIntArgs[] = {1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12};
  for (size_t i : kIntArgs) ok = ok && is_int(args, i);
  if (!ok)
    return ctx.fail(
        Error::InvalidArgument,
        "cortex_m::quantized_add.out: expected (self, zp, mult, shift, other, zp, mult, "
        "shift, out_zp, out_mult, out_shift, activation_min, activation_max, out)");
  const Tensor& a = tensor(args, 0);
  const Tensor& b = tensor(args, 4);
  const Tensor& out = tensor(args, 13);
  if (a.dtype != ScalarType::Char || b.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::quantized_add.out: tensors must be int8");
  PairPlan plan;
  if (!plan_same_or_channel(a, b, out, &plan))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_add.out: operands must have out's shape and layout, or "
                    "one be [1,C,1,1] with a channels-last other");
  const int64_t zp1 = int_arg(args, 1), zp2 = int_arg(args, 5), zpo = int_arg(args, 8);
  if (!valid_requant(int_arg(args, 2), int_arg(args, 3)) ||
      !valid_requant(int_arg(args, 6), int_arg(args, 7)) ||
      !valid_requant(int_arg(args, 9), int_arg(args, 10)) || !in_range(zp1, -255, 255) ||
      !in_range(zp2, -255, 255) || !in_range(zpo, -255, 255) ||
      !valid_activation(int_arg(args, 11), int_arg(args, 12)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_add.out: zero points, multipliers (> INT32_MIN), shifts "
                    "([-31, 30]) or activation range out of range");
  const int32_t off1 = static_cast<int32_t>(-zp1), off2 = static_cast<int32_t>(-zp2);
  const int32_t m1 = static_cast<int32_t>(int_arg(args, 2)),
                s1 = static_cast<int32_t>(int_arg(args, 3));
  const int32_t m2 = static_cast<int32_t>(int_arg(args, 6)),
                s2 = static_cast<int32_t>(int_arg(args, 7));
  const int32_t mo = static_cast<int32_t>(int_arg(args, 9)),
                so = static_cast<int32_t>(int_arg(args, 10));
  const int32_t ooff = static_cast<int32_t>(zpo);
  const int32_t amin = static_cast<int32_t>(int_arg(args, 11));
  const int32_t amax = static_cast<int32_t>(int_arg(args, 12));
  job->off1 = off1, job->m1 = m1, job->s1 = s1, job->off2 = off2, job->m2 = m2, job->s2 = s2;
  job->mo = mo, job->so = so, job->ooff = ooff, job->amin = amin, job->amax = amax;
  job->a = a.const_data_ptr<int8_t>();
  job->b = b.const_data_ptr<int8_t>();
  job->y = out.mutable_data_ptr<int8_t>();
  job->n = out.numel();
  job->plan = plan;
  return Error::Ok;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
