// cortex_m::quantized_add.out, optimised variants: the same results as ref/ (bit for bit), with the
// three requantizations prepared once per call (cmsis::Requant: no shift branches, inlined),
// for operands of one shape (the residual adds of ResNet) no index arithmetic per element and,
// where the parameters allow, no 64-bit product for the inputs (add_same_32), and where one input
// is rescaled by a power of two, a table for the other and the ISA's loop (add_with_table).
#include "add_table.h"  // isa/<isa>/add_table.h
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/add.h"
#include "kernels/cortex_m/util/paths.h"  // ETMCU_HOT_LOOPS

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

// An input's rescaling requantize((x + offset) << 20, m, shift) for shift <= 0 in 32-bit
// arithmetic: with u = x + offset (|u| < 2^9) the doubling high multiply is
//   floor((u * 2^20 * m + 2^30) / 2^31) = floor((u * m + 2^10) / 2^11)
//     = u * (m >> 11) + ((u * (m & 2047) + 2^10) >> 11)
// (neither product passes 2^29), then the rounding right shift; no 64-bit product (mulh takes five
// cycles on the CV32E40P).
struct InputRescale {
  int32_t m_high, m_low, offset, right, mask, threshold;
};
inline bool input_rescale_ok(int32_t shift, int32_t offset) {
  return shift <= 0 && offset >= -383 && offset <= 383;
}
inline InputRescale input_rescale(int32_t m, int32_t shift, int32_t offset) {
  const int32_t right = -shift;
  const int32_t mask = static_cast<int32_t>((uint32_t(1) << right) - 1u);
  return InputRescale{m >> 11, m & 2047, offset, right, mask, mask >> 1};
}
inline int32_t rescale(int32_t x, const InputRescale& r) {
  const int32_t u = x + r.offset;
  const int32_t high = u * r.m_high + ((u * r.m_low + 1024) >> 11);
  const int32_t result = high >> r.right;
  return result + ((high & r.mask) > r.threshold + (result < 0 ? 1 : 0) ? 1 : 0);
}

constexpr size_t kAddTableMin = 1024;

// At least |rescale(x)| for every int8 x (input_rescale_ok: shift <= 0, |offset| <= 383):
// (u * 2^20 * m / 2^31) >> -shift rounded, u = |x + offset| <= 128 + |offset|, in 32 bits
// (((m >> 11) + 1) * u < 2^29).
inline int32_t rescale_bound(int32_t m, int32_t shift, int32_t offset) {
  const int32_t u = 128 + (offset < 0 ? -offset : offset);
  return ((((m >> 11) + 1) * u) >> -shift) + 1;
}

// An input whose rescaling is a power of two: multiplier 2^30 and shift in [-19, 0]. The input
// of the larger scale has that in nearly every add (its real multiplier is 1/2; ResNet-8's three
// adds have one each). There rescale(x) = (x + offset) << (19 + shift) exactly: m_high = 2^19 and
// m_low = 0 give high = u * 2^19, which the right shift by at most 19 divides without remainder.
inline bool input_is_shift(int32_t m, int32_t shift) {
  return m == (int32_t(1) << 30) && shift <= 0 && shift >= -19;
}

// Operands of one shape, n >= kAddTableMin, the output's requantization in the 4v form (one mulh)
// and input s a power-of-two rescaling (input_is_shift): per element a table entry of input t,
// one shift of input s, the product and the clamp (isa/<isa>/add_table.h). The table holds
// 4 * (rescale(x, rt) + (offset_s << left)) for each int8 x, so 4v = table[t] + (s << (left +
// 2)) (|v| < 2^29: 4v fits 32 bits and has v's sign). Which input is which does not matter: the
// sum is symmetric. (ResNet-8's three adds, 28,672 elements: 44 -> 31 cycles an element on the
// CV32E40P, 44 -> 19 with Xpulp, the table's 256 entries included; +432 B of code plain.)
ETMCU_HOT_LOOPS __attribute__((noinline)) void add_with_table(
    const InputRescale& rt, int32_t offset_s, int32_t left, const cmsis::Requant4v& o, int32_t amin,
    int32_t amax, int32_t ooff, const int8_t* t, const int8_t* s, int8_t* y, size_t n) {
  // (a fixed 1 KiB on the stack: add_same_32 below says why)
  int32_t table[256];
  const uint32_t fold = static_cast<uint32_t>(offset_s) << left;
  for (int32_t v = -128; v < 128; ++v)
    table[v + 128] = static_cast<int32_t>((static_cast<uint32_t>(rescale(v, rt)) + fold) << 2);
  const int8::AddTableShift a{table + 128, t, s,    y,    static_cast<int32_t>(n),
                              left + 2,    o, amin, amax, amin == ooff ? 1 : 0};
  int8::add_table_shift(a);
}

// Operands of one shape with both inputs' rescaling in 32-bit arithmetic and the output's in the
// folded form (requantize + offset in one 64-bit product) where the parameters allow it.
// (The parameters are copied into locals: the int8 stores may alias anything, so the compiler
// would reload every field from memory once per element.)
// q4: the output's requantization with one mulh (cmsis::requantize_offset_4v) where it holds, else
// nullptr (the folded form's 64-bit product: ResNet-8's adds 48 -> 44 cycles an element on the
// CV32E40P with it).
ETMCU_HOT_LOOPS __attribute__((noinline)) void add_same_32(
    const AddQ& q, const InputRescale& r1_, const InputRescale& r2_, const cmsis::RequantFolded& f_,
    const cmsis::Requant4v* q4, const int8_t* a, const int8_t* b, int8_t* y, size_t n) {
  const InputRescale r1 = r1_, r2 = r2_;
  const cmsis::RequantFolded f = f_;
  const int32_t amin = q.amin, amax = q.amax;
  // The first input's 256 rescaled values, tabulated when the operands are long enough to pay
  // for it. A fixed 1 KiB on the stack rather than a declared temp buffer (kernels/api/kernel.h):
  // the static stack bound counts it, and on ResNet-8 it lies under the convolutions' deeper
  // stack, where temp would add 1,040 B of peak RAM (measured with the bench).
  int32_t table[256];
  const int32_t* t1 = table + 128;
  if (n >= kAddTableMin) {
    for (int32_t v = -128; v < 128; ++v) table[v + 128] = rescale(v, r1);
    if (q4 != nullptr) {
      const cmsis::Requant4v o = *q4;
      for (size_t i = 0; i < n; ++i) {
        const int32_t v = t1[a[i]] + rescale(b[i], r2);  // (|v| < 2^29: no wrap)
        y[i] = static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset_4v(v, o), amin, amax));
      }
      return;
    }
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = cmsis::requantize_offset(cmsis::wrap_add(t1[a[i]], rescale(b[i], r2)), f);
      y[i] = static_cast<int8_t>(cmsis::clamp(v, amin, amax));
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const int32_t v =
        cmsis::requantize_offset(cmsis::wrap_add(rescale(a[i], r1), rescale(b[i], r2)), f);
    y[i] = static_cast<int8_t>(cmsis::clamp(v, amin, amax));
  }
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
  const bool same = j.plan.a_mod == j.n && j.plan.b_mod == j.n;
  if (same && input_rescale_ok(j.s1, j.off1) && input_rescale_ok(j.s2, j.off2) &&
      cmsis::requant_foldable(j.mo, j.so)) {
    const InputRescale r1 = input_rescale(j.m1, j.s1, j.off1);
    const InputRescale r2 = input_rescale(j.m2, j.s2, j.off2);
    // The 4v form needs |sum| < 2^29.
    const int32_t bound = rescale_bound(j.m1, j.s1, j.off1) + rescale_bound(j.m2, j.s2, j.off2);
    const cmsis::Requant4v q4 = cmsis::requant_4v(j.mo, j.so, j.ooff);
    const bool use_4v = cmsis::requant_4v_ok(j.mo, j.so) && bound < (int32_t(1) << 29);
    // the table for the input that is not a shift (the first when both are)
    const bool shift_b = input_is_shift(j.m2, j.s2);
    if (use_4v && j.n >= kAddTableMin && (shift_b || input_is_shift(j.m1, j.s1))) {
      add_with_table(shift_b ? r1 : r2, shift_b ? j.off2 : j.off1, 19 + (shift_b ? j.s2 : j.s1), q4,
                     j.amin, j.amax, j.ooff, shift_b ? j.a : j.b, shift_b ? j.b : j.a, j.y, j.n);
      return Error::Ok;
    }
    add_same_32(q, r1, r2, cmsis::requant_folded(j.mo, j.so, j.ooff), use_4v ? &q4 : nullptr, j.a,
                j.b, j.y, j.n);
  } else if (j.plan.a_mod == j.n && j.plan.b_mod == j.n)
    add_same(q, j.a, j.b, j.y, j.n);
  else
    add_channel(q, j.a, j.b, j.y, j.n, j.plan.a_mod, j.plan.b_mod);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
