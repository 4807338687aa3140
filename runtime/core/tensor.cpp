// Tensor's shape queries (see tensor.h for why they are out of line).
#include "runtime/core/tensor.h"

namespace etmcu {

__attribute__((noinline)) size_t Tensor::numel() const {
  size_t n = 1;
  for (int i = 0; i < dim; ++i) n *= static_cast<size_t>(sizes[i]);
  return n;
}

bool Tensor::is_contiguous() const {
  for (int i = 0; i < dim; ++i)
    if (dim_order[i] != i) return false;
  return true;
}

__attribute__((noinline)) bool Tensor::same_shape(const Tensor& other) const {
  if (dim != other.dim) return false;
  for (int i = 0; i < dim; ++i)
    if (sizes[i] != other.sizes[i]) return false;
  return true;
}

__attribute__((noinline)) bool Tensor::same_dim_order(const Tensor& other) const {
  if (dim != other.dim) return false;
  for (int i = 0; i < dim; ++i)
    if (dim_order[i] != other.dim_order[i]) return false;
  return true;
}

}  // namespace etmcu
