// Kernel buffers: where a kernel that declared a buffer (KernelEntry::temp_bytes, kernel.h) takes
// it at run time. The exporter plans a `scratch` tensor per call for the ops that have one; when
// that holds the kernel's bytes, the buffer is the planned scratch (in the activation arena, shared
// with tensors that are dead during the call); otherwise it comes from the temp pool, which method
// load checked against the kernel's declaration (docs/kernels.md, "Buffers").
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel.h"

namespace etmcu {

// The bytes of a planned scratch argument a kernel may use as its buffer: 0 unless it is a tensor
// with data, 4-byte aligned (the buffers hold words).
inline size_t planned_scratch_bytes(const EValue* scratch) {
  if (scratch == nullptr || !scratch->is_tensor()) return 0;
  const Tensor& t = scratch->to_tensor();
  if (t.data == nullptr || (reinterpret_cast<uintptr_t>(t.data) & 3u) != 0) return 0;
  return t.nbytes;
}

// A kernel's temp declaration for a buffer of `bytes`: 0 when the planned scratch holds it.
inline uint32_t temp_beyond_scratch(const EValue* scratch, uint32_t bytes) {
  return bytes <= planned_scratch_bytes(scratch) ? 0u : bytes;
}

// The buffer of `bytes` (> 0), 4-byte aligned: the planned scratch when it holds them, else from
// ctx.temp (reset after every instruction); nullptr when neither can. (One out-of-line copy for
// every kernel that takes a buffer.)
__attribute__((noinline)) inline void* kernel_buffer(KernelContext& ctx, const EValue* scratch,
                                                     uint32_t bytes) {
  if (bytes <= planned_scratch_bytes(scratch)) return scratch->to_tensor().data;
  return ctx.temp != nullptr ? ctx.temp->allocate(bytes, 4) : nullptr;
}

}  // namespace etmcu
