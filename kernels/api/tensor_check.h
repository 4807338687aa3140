// Validation every kernel library shares: an argument is a tensor whose metadata is sane (rank
// <= kTensorMaxDim, non-negative sizes, dim_order a permutation, a known element size) and whose
// data is present and large enough for every element. Libraries add their own checks on top.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etmcu {
namespace kernels {

__attribute__((noinline)) inline bool is_well_formed_tensor_arg(Span<EValue*> args, size_t i) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->is_tensor()) return false;
  const Tensor* t = args[i]->payload.as_tensor;
  if (t == nullptr || t->dim > kTensorMaxDim) return false;
  if (t->dim > 0 && (t->sizes == nullptr || t->dim_order == nullptr)) return false;
  uint32_t seen = 0;
  uint64_t numel = 1;
  for (int d = 0; d < t->dim; ++d) {
    if (t->sizes[d] < 0 || t->dim_order[d] >= t->dim) return false;
    seen |= 1u << t->dim_order[d];
    numel *= static_cast<uint64_t>(t->sizes[d]);
    if (numel > (uint64_t(1) << 40)) return false;
  }
  if (t->dim > 0 && seen != ((1u << t->dim) - 1u)) return false;  // dim <= 16: no overflow
  const size_t es = t->element_size();
  if (es == 0 || numel * es > t->nbytes) return false;
  return numel == 0 || t->data != nullptr;
}

}  // namespace kernels
}  // namespace etmcu
