// Strided matrix product shared by mm/bmm/addmm/linear: C[i,j] = epilogue(i, j, sum_p A[i,p] *
// B[p,j]) accumulated in float for f32 (double for f64, int64 for integers), like PyTorch's CPU
// reference paths.
#pragma once
#include <stdint.h>

#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {
namespace util {

template <typename T>
struct AccOf {
  using type = int64_t;
};
template <>
struct AccOf<float> {
  using type = float;
};
template <>
struct AccOf<double> {
  using type = double;
};

// A is n x k with strides (a0, a1); B is k x m with (b0, b1); C is n x m with (c0, c1).
template <typename T, typename E>
void matmul(const T* a, Index a0, Index a1, const T* b, Index b0, Index b1, T* c, Index c0,
            Index c1, Index n, Index k, Index m, E epilogue) {
  using Acc = typename AccOf<T>::type;
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < m; ++j) {
      Acc acc = 0;
      const T* pa = a + i * a0;
      const T* pb = b + j * b1;
      for (Index p = 0; p < k; ++p)
        acc = wrap_add(acc, wrap_mul(static_cast<Acc>(pa[p * a1]), static_cast<Acc>(pb[p * b0])));
      c[i * c0 + j * c1] = static_cast<T>(epilogue(i, j, acc));
    }
  }
}

// Dispatch over the dtypes matmul supports (all supported ones except bool).
template <typename F>
inline bool dispatch_matmul(ScalarType t, F&& f) {
  if (t == ScalarType::Bool) return false;
  return dispatch_all(t, f);
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
