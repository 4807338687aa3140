// Operand handling for the cortex_m elementwise int8 ops (add, mul, div, minimum, maximum):
// same-shape operands walked in memory order, the per-channel broadcast of a channels-last tensor,
// and numpy broadcasting of contiguous operands up to 4-D.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// One operand with 4-D right-aligned element strides (0 along broadcast dims) over out's shape.
struct Bcast4 {
  int32_t out[4];
  int64_t sa[4], sb[4];
};

// numpy broadcasting of contiguous a and b to contiguous out (rank <= 4). False if incompatible.
inline bool make_bcast4(const Tensor& a, const Tensor& b, const Tensor& out, Bcast4* bc) {
  if (a.dim > 4 || b.dim > 4 || out.dim > 4) return false;
  if (!is_contiguous_like(a) || !is_contiguous_like(b) || !is_contiguous_like(out)) return false;
  int64_t na = 1, nb = 1;
  for (int d = 3; d >= 0; --d) {
    const int ia = a.dim - 4 + d, ib = b.dim - 4 + d, io = out.dim - 4 + d;
    const int32_t sa = ia >= 0 ? a.sizes[ia] : 1, sb = ib >= 0 ? b.sizes[ib] : 1;
    const int32_t so = io >= 0 ? out.sizes[io] : 1;
    if ((sa != so && sa != 1) || (sb != so && sb != 1)) return false;
    bc->out[d] = so;
    bc->sa[d] = sa == 1 ? 0 : na;
    bc->sb[d] = sb == 1 ? 0 : nb;
    na *= sa;
    nb *= sb;
  }
  return true;
}

// Calls f(out_index, a_index, b_index) for every element of the broadcast.
template <typename F>
inline void for_each_bcast4(const Bcast4& bc, F&& f) {
  size_t o = 0;
  for (int32_t i0 = 0; i0 < bc.out[0]; ++i0)
    for (int32_t i1 = 0; i1 < bc.out[1]; ++i1)
      for (int32_t i2 = 0; i2 < bc.out[2]; ++i2)
        for (int32_t i3 = 0; i3 < bc.out[3]; ++i3) {
          const int64_t ia = i0 * bc.sa[0] + i1 * bc.sa[1] + i2 * bc.sa[2] + i3 * bc.sa[3];
          const int64_t ib = i0 * bc.sb[0] + i1 * bc.sb[1] + i2 * bc.sb[2] + i3 * bc.sb[3];
          f(o++, static_cast<size_t>(ia), static_cast<size_t>(ib));
        }
}

// Upstream's is_channel_broadcast: both 4-D, same channel count, and one of them holds only the
// channels ([1, C, 1, 1]).
inline bool is_channel_broadcast(const Tensor& a, const Tensor& b) {
  if (a.dim != 4 || b.dim != 4 || a.sizes[1] != b.sizes[1]) return false;
  return a.numel() == static_cast<size_t>(a.sizes[1]) ||
         b.numel() == static_cast<size_t>(b.sizes[1]);
}

// Operand pairing for add/mul: same layout (memory order), or a [1,C,1,1] operand repeated over
// every pixel of a channels-last one. `a_step`/`b_step` say how each index advances: element
// index i of out reads a[i % a_mod] and b[i % b_mod].
struct PairPlan {
  size_t a_mod, b_mod;
};
inline bool plan_same_or_channel(const Tensor& a, const Tensor& b, const Tensor& out, PairPlan* p) {
  if (is_channel_broadcast(a, b)) {
    const Tensor& big = a.numel() >= b.numel() ? a : b;
    if (!same_layout(big, out) || !is_nhwc_compatible(big)) return false;
    const size_t c = static_cast<size_t>(a.sizes[1]);
    p->a_mod = a.numel() >= b.numel() ? out.numel() : c;
    p->b_mod = a.numel() >= b.numel() ? c : out.numel();
    if (a.numel() == b.numel()) p->a_mod = p->b_mod = out.numel();
    return true;
  }
  if (!same_layout(a, b) || !same_layout(a, out)) return false;
  p->a_mod = p->b_mod = out.numel();
  return true;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
