// What every ISA's int8 dot products (isa/<isa>/int8_dot.h) share: the longest dot product whose
// int32 sum cannot overflow, and the plain byte sum used for the offset folding.
#pragma once
#include <stdint.h>

namespace etmcu {
namespace kernels {
namespace int8 {

// Largest dot-product length whose int32 sums of int8 products cannot overflow
// (|x * w| <= 2^14): longer filters take the reference loop, which wraps explicitly.
constexpr int32_t kMaxDotLength = 1 << 16;

inline int32_t byte_sum(const int8_t* w, int32_t n) {
  int32_t s = 0;
  for (int32_t i = 0; i < n; ++i) s += w[i];
  return s;
}

// d[k] += sum(x[i] * w[k][i]) for i in [i, n): the one-byte tail every ISA's dot ends with.
template <int kOc>
inline void dot_tail(const int8_t* x, const int8_t* const* w, int32_t i, int32_t n, int32_t* a) {
  for (; i < n; ++i) {
    const int32_t xv = x[i];
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) a[k] += xv * w[k][i];
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
