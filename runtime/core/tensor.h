// Tensor: a view of typed, shaped memory. The runtime never owns tensor bytes: `data` points into a
// planned arena, the .pte's constant segment, external data, or caller memory. Shape metadata
// (`sizes`, `dim_order`) points into the verified .pte and is read-only.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/scalar_type.h"

namespace etmcu {

constexpr int kTensorMaxDim = 16;

struct Tensor {
  void* data = nullptr;
  const int32_t* sizes = nullptr;      // `dim` entries, logical (N, C, H, W, ...) order
  const uint8_t* dim_order = nullptr;  // `dim` entries, outermost memory dim first
  size_t nbytes = 0;                   // numel * element_size (what is planned for it)
  ScalarType dtype = ScalarType::Float;
  uint8_t dim = 0;

  // numel, is_contiguous, same_shape and same_dim_order are out of line (tensor.cpp): every
  // kernel calls them once per call, not per element, and inlined copies cost flash in each.
  size_t numel() const;
  int32_t size(int i) const { return sizes[i]; }
  size_t element_size() const { return etmcu::element_size(dtype); }

  template <typename T>
  T* mutable_data_ptr() const {
    return static_cast<T*>(data);
  }
  template <typename T>
  const T* const_data_ptr() const {
    return static_cast<const T*>(data);
  }

  // True when the memory order is the logical order (dim_order = 0, 1, ..., dim-1).
  bool is_contiguous() const;
  // True for a 4-D tensor stored NHWC (dim_order = 0, 2, 3, 1).
  bool is_channels_last() const {
    return dim == 4 && dim_order[0] == 0 && dim_order[1] == 2 && dim_order[2] == 3 &&
           dim_order[3] == 1;
  }
  // Element strides of each logical dim, derived from sizes and dim_order.
  void strides(int64_t* out) const {
    int64_t stride = 1;
    for (int k = dim - 1; k >= 0; --k) {
      out[dim_order[k]] = stride;
      stride *= sizes[dim_order[k]];
    }
  }
  // Same logical shape as `other`.
  bool same_shape(const Tensor& other) const;
  bool same_dim_order(const Tensor& other) const;
};

}  // namespace etmcu
