// Reductions over a set of dims (sum, mean): dim-list parsing, reduced-shape checks and a loop
// that walks out in its memory order and, per element, the reduced dims of the input.
#pragma once
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {
namespace util {

// `dims` is None or an IntList (empty = every dim). Sets a bitmask of reduced dims; false on a
// dim out of range or repeated.
bool reduction_mask(const EValue& dims, const Tensor& in, uint32_t* mask);
// out's shape is in's with the reduced dims removed (or kept as 1 with keepdim).
bool is_reduced_shape(const Tensor& in, uint32_t mask, bool keepdim, const Tensor& out);

// For every out element i: acc = sum over the reduced elements (in Acc), then finish(i, acc, n).
template <typename Acc, typename F>
void reduce_sum(const Tensor& in, uint32_t mask, bool keepdim, const Tensor& out, F finish) {
  int64_t in_st[kTensorMaxDim];
  in.strides(in_st);
  int64_t st[1][kTensorMaxDim];
  int od = 0;
  for (int d = 0; d < in.dim; ++d) {
    if (!(mask & (1u << d)))
      st[0][od++] = in_st[d];
    else if (keepdim)
      st[0][od++] = 0;
  }
  // Reduced dims in in's memory order (outermost first) for locality.
  int nr = 0;
  int32_t rsize[kTensorMaxDim];
  Index rst[kTensorMaxDim];
  size_t count = 1;
  for (int k = 0; k < in.dim; ++k) {
    int d = in.dim_order[k];
    if (mask & (1u << d)) {
      rsize[nr] = in.sizes[d];
      rst[nr] = in_st[d];
      count *= static_cast<size_t>(in.sizes[d]);
      ++nr;
    }
  }
  StridedIter it(out, st, 1);
  const size_t n = out.numel();
  int32_t idx[kTensorMaxDim];
  for (size_t i = 0; i < n; ++i, it.next()) {
    Acc acc = static_cast<Acc>(0);
    Index off = it.offset(0);
    for (int r = 0; r < nr; ++r) idx[r] = 0;
    for (size_t e = 0; e < count; ++e) {
      acc = wrap_add(acc, load_as<Acc>(in.data, in.dtype, off));
      for (int r = nr - 1; r >= 0; --r) {
        off += rst[r];
        if (++idx[r] < rsize[r]) break;
        off -= rst[r] * rsize[r];
        idx[r] = 0;
      }
    }
    finish(i, acc, count);
  }
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
