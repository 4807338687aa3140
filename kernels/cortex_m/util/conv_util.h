// Shared parsing for the cortex_m convolution family: int[2] pairs, offsets/activation ranges and
// the 4-D NHWC view (n, h, w, c) of an activation tensor given logically as [N, C, H, W].
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct Pair {
  int32_t h, w;
};

// Reads an int[2] list whose entries lie in [lo, hi].
inline bool read_pair(Span<EValue*> args, size_t i, int64_t lo, int64_t hi, Pair* out) {
  if (!is_int_list(args, i, 2)) return false;
  Span<const int64_t> v = args[i]->to_int_list();
  if (v[0] < lo || v[0] > hi || v[1] < lo || v[1] > hi) return false;
  out->h = static_cast<int32_t>(v[0]);
  out->w = static_cast<int32_t>(v[1]);
  return true;
}

struct Nhwc {
  int32_t n, h, w, c;
};
inline Nhwc nhwc_of(const Tensor& t) {
  return Nhwc{t.sizes[0], t.sizes[2], t.sizes[3], t.sizes[1]};
}

// Output extent of a convolution along one axis; -1 when the window never fits.
inline int32_t conv_out_size(int32_t in, int32_t k, int32_t stride, int32_t pad, int32_t dil) {
  const int64_t span = static_cast<int64_t>(dil) * (k - 1) + 1;
  const int64_t num = static_cast<int64_t>(in) + 2 * static_cast<int64_t>(pad) - span;
  if (num < 0) return -1;
  return static_cast<int32_t>(num / stride + 1);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
