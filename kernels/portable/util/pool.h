// Helpers for conv/pool kernels: reading (kernel_size, stride, padding, dilation) int lists of
// one or two entries, output-size arithmetic as in PyTorch, and 4-D stride views of 3-D/4-D
// (pool) or 3-D/4-D (conv1d as H = 1) tensors.
#pragma once
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {
namespace util {

// Reads an IntList of 1 or `n` entries (1 entry repeats) into v[n]; `empty_ok` with an empty
// list leaves v untouched (stride=[] means "same as kernel"). All entries must be >= min.
inline bool read_pair(const EValue& e, int n, int64_t* v, int64_t min, bool empty_ok) {
  if (!e.is_int_list()) return false;
  Span<const int64_t> l = e.to_int_list();
  if (l.size() == 0) return empty_ok;
  if (l.data() == nullptr || (l.size() != 1 && l.size() != static_cast<size_t>(n))) return false;
  for (int i = 0; i < n; ++i) {
    v[i] = l[l.size() == 1 ? 0 : i];
    if (v[i] < min || v[i] > 0x7fffffff) return false;
  }
  return true;
}

// PyTorch's pooling_output_shape: floor or ceil of the window count; with ceil_mode the last
// window must start inside the input or its left padding.
inline int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                             bool ceil_mode) {
  int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// 4-D [N, C, H, W] sizes and strides of a 3-D [C, H, W] or 4-D tensor (N = 1 for 3-D).
struct View4 {
  Index size[4];
  Index stride[4];
};
inline View4 view4_chw(const Tensor& t) {
  View4 v;
  int64_t st[kTensorMaxDim];
  t.strides(st);
  const int lead = 4 - t.dim;  // 1 for 3-D inputs
  for (int d = 0; d < 4; ++d) {
    v.size[d] = d < lead ? 1 : t.sizes[d - lead];
    v.stride[d] = d < lead ? 0 : static_cast<Index>(st[d - lead]);
  }
  return v;
}
// 4-D view of a conv operand: 4-D as is, 3-D [N, C, L] as [N, C, 1, L].
inline View4 view4_conv(const Tensor& t) {
  View4 v;
  int64_t st[kTensorMaxDim];
  t.strides(st);
  if (t.dim == 4) {
    for (int d = 0; d < 4; ++d) v.size[d] = t.sizes[d], v.stride[d] = static_cast<Index>(st[d]);
  } else {
    v.size[0] = t.sizes[0], v.stride[0] = static_cast<Index>(st[0]);
    v.size[1] = t.sizes[1], v.stride[1] = static_cast<Index>(st[1]);
    v.size[2] = 1, v.stride[2] = 0;
    v.size[3] = t.sizes[2], v.stride[3] = static_cast<Index>(st[2]);
  }
  return v;
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
