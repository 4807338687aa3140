// cortex_m::quantized_linear.out, optimised variants: the same results as ref/ (bit for bit), with the
// offsets folded out of the inner loop and several output features per pass over the input:
//   sum((x + ioff)(w + foff)) = sum(x w) + ioff sum(w) + foff sum(x) + K ioff foff   (mod 2^32)
// (with a kernel_sum, which already holds bias + ioff sum(w + foff): kernel_sum + sum(x w) +
// foff sum(x)). The dot products are the ISA's (isa/<isa>/int8_dot.h).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/linear.h"
#include "int8_dot.h"  // isa/<isa>/int8_dot.h

namespace etmcu {
namespace kernels {
namespace {

using cmsis::wrap_add;
using cmsis::wrap_mul;

__attribute__((noinline)) void linear_rows(const int8::LinearJob& j) {
  constexpr int kOc = int8::kOc;
  const int32_t k = j.k;
  for (size_t b = 0; b < j.batches; ++b) {
    const int8_t* x = j.x + b * static_cast<size_t>(k);
    // foff * sum(x), and K * ioff * foff, once per input row
    const int32_t xterm = wrap_mul(j.foff, int8::row_sum(x, k));
    const int32_t kterm = wrap_mul(wrap_mul(k, j.ioff), j.foff);
    int8_t* y = j.y + b * static_cast<size_t>(j.nout);
    for (int32_t o = 0; o < j.nout; o += kOc) {
      int32_t ch[kOc], d[kOc] = {};
      const int8_t* w[kOc];
      for (int i = 0; i < kOc; ++i) {
        ch[i] = o + i < j.nout ? o + i : j.nout - 1;  // past the end: repeat the last (not stored)
        w[i] = j.w + static_cast<size_t>(ch[i]) * k;
      }
      int8::dot(x, w, k, d);
      const int stored = j.nout - o < kOc ? j.nout - o : kOc;
      for (int i = 0; i < stored; ++i) {
        int32_t acc;
        if (j.ksum != nullptr) {
          acc = wrap_add(wrap_add(j.ksum[ch[i]], d[i]), xterm);
        } else {
          acc = wrap_add(j.bias ? j.bias[ch[i]] : 0, d[i]);
          acc = wrap_add(acc, wrap_mul(j.ioff, int8::row_sum(w[i], k)));
          acc = wrap_add(wrap_add(acc, xterm), kterm);
        }
        acc = wrap_add(cmsis::requantize(acc, j.mult, j.shift), j.ooff);
        y[ch[i]] = static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
      }
    }
  }
}

}  // namespace

Error cortex_m_quantized_linear_out(KernelContext& ctx, Span<EValue*> args) {
  int8::LinearJob job;
  const Error e = int8::parse_linear(ctx, args, &job);
  if (e != Error::Ok) return e;
  if (job.k < int8::kMaxDotLength)
    linear_rows(job);
  else
    int8::linear_ref(job);
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
