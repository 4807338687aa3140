// Iterates the 1-D lines of a tensor along one dim (softmax, layer norm...): for each line, the
// start offsets in an input and an output of the same shape (any dim orders) and their strides.
#pragma once
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {
namespace util {

// Calls f(in_offset, out_offset) for every line of `in` along `dim`; *in_step/*out_step receive
// the element strides along dim.
template <typename F>
void for_each_line(const Tensor& in, const Tensor& out, int dim, int64_t* in_step,
                   int64_t* out_step, F f) {
  int64_t st[2][kTensorMaxDim] =
      {};  // (only dims < in.dim are read; zeroed for -Wmaybe-uninitialized)
  in.strides(st[0]);
  out.strides(st[1]);
  *in_step = st[0][dim];
  *out_step = st[1][dim];
  int32_t sizes[kTensorMaxDim];
  for (int d = 0; d < in.dim; ++d) sizes[d] = d == dim ? 1 : in.sizes[d];
  Tensor starts = in;  // same dim order, the line dim collapsed to 1
  starts.sizes = sizes;
  StridedIter it(starts, st, 2);
  const size_t n = starts.numel();
  for (size_t i = 0; i < n; ++i, it.next()) f(it.offset(0), it.offset(1));
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
