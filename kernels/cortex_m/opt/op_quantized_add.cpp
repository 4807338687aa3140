// cortex_m::quantized_add.out, optimised variants: the same results as ref/ (bit for bit), with the
// three requantizations prepared once per call (cmsis::Requant: no shift branches, inlined) and,
// for operands of one shape (the residual adds of ResNet), no index arithmetic per element.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/add.h"

namespace etmcu {
namespace kernels {

namespace {

struct AddQ {
  cmsis::Requant q1, q2, qo;
  int32_t off1, off2, ooff, amin, amax;
};

inline int8_t add_one(const AddQ& q, int32_t a, int32_t b) {
  const int32_t x1 = cmsis::requantize((a + q.off1) * (1 << int8::kAddLeftShift), q.q1);
  const int32_t x2 = cmsis::requantize((b + q.off2) * (1 << int8::kAddLeftShift), q.q2);
  const int32_t sum = cmsis::wrap_add(cmsis::requantize(cmsis::wrap_add(x1, x2), q.qo), q.ooff);
  return static_cast<int8_t>(cmsis::clamp(sum, q.amin, q.amax));
}

__attribute__((noinline)) void add_same(const AddQ& q, const int8_t* a, const int8_t* b, int8_t* y,
                                        size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = add_one(q, a[i], b[i]);
}

// One operand [1,C,1,1] over a channels-last other: the small one's index walks 0..C-1 per pixel.
__attribute__((noinline)) void add_channel(const AddQ& q, const int8_t* a, const int8_t* b,
                                           int8_t* y, size_t n, size_t a_mod, size_t b_mod) {
  size_t ia = 0, ib = 0;
  for (size_t i = 0; i < n; ++i) {
    y[i] = add_one(q, a[ia], b[ib]);
    if (++ia == a_mod) ia = 0;
    if (++ib == b_mod) ib = 0;
  }
}

}  // namespace

Error cortex_m_quantized_add_out(KernelContext& ctx, Span<EValue*> args) {
  int8::AddJob j;
  const Error e = int8::parse_quantized_add(ctx, args, &j);
  if (e != Error::Ok) return e;
  const AddQ q{cmsis::requant_params(j.m1, j.s1),
               cmsis::requant_params(j.m2, j.s2),
               cmsis::requant_params(j.mo, j.so),
               j.off1,
               j.off2,
               j.ooff,
               j.amin,
               j.amax};
  if (j.plan.a_mod == j.n && j.plan.b_mod == j.n)
    add_same(q, j.a, j.b, j.y, j.n);
  else
    add_channel(q, j.a, j.b, j.y, j.n, j.plan.a_mod, j.plan.b_mod);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
