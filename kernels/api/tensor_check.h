// Validation every kernel library shares: an argument is a tensor whose metadata is sane (rank
// <= kTensorMaxDim, non-negative sizes, dim_order a permutation, a known element size) and whose
// data is present and large enough for every element. Libraries add their own checks on top.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

// Whether this build's kernels check their arguments, defined by the generated kernel table
// (cmake/kernel_table.cmake: 1 unless the table is built with NO_ARG_CHECKS).
extern "C" const uint8_t etmcu_kernel_arg_checks;

namespace etmcu {
namespace kernels {

// A firmware whose program is embedded in it, and which the host runtime ran with every check
// when the firmware was built (tools/firmware/etmcu_fw.py), leaves its kernels' argument checks
// out, as its runtime leaves out the load-time value checks (ETMCU_FEATURE_LOAD_VALUE_CHECKS=0):
// the same kernel sources checked the same calls on the host. With link-time optimisation the
// constant folds and the checks are dead code. Only the tests that refuse a malformed call are
// gated (ETMCU_BAD_ARG); the tests that choose a kernel path from the arguments always run. A
// firmware that loads its program at run time (--program-in-ram) or verifies it itself
// (--device-verification) keeps every check. (Always inlined: an out-of-line copy would hide the
// folded constant.)
__attribute__((always_inline)) inline bool kernel_arg_checks() {
  return etmcu_kernel_arg_checks != 0;
}

// A failed argument check: `cond` in a build that checks its kernels' arguments, else false.
#define ETMCU_BAD_ARG(cond) (::etmcu::kernels::kernel_arg_checks() && (cond))

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
