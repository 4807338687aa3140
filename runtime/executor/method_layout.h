// MethodLayout: how many of each object Method::load allocates, computed from the plan alone, so
// MethodMeta can say the method-allocator size before anything is allocated and load can check it.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/pte/flatbuffer.h"

namespace etmcu {

// Counts saturate at UINT32_MAX (items of lists and call arguments are summed over values and
// instructions that may share one table many times over), so an absurd plan gives an absurd size
// rather than a wrapped, small one.
struct MethodLayout {
  uint32_t values = 0;
  uint32_t tensors = 0;
  uint32_t list_ints = 0;     // total items of IntLists (materialised as int64)
  uint32_t list_tensors = 0;  // total items of (Optional)TensorLists
  uint32_t instructions = 0;
  uint32_t chains = 0;
  uint32_t call_args = 0;  // total args of Kernel/DelegateCalls
  uint32_t delegates = 0;
  uint32_t inputs = 0;

  // Each block is rounded to 16 bytes and allocated 16-aligned, so the total is exact for a
  // 16-aligned allocator. 64-bit on every target: on a 32-bit one, a size_t product could wrap.
  uint64_t bytes() const;
};

MethodLayout compute_method_layout(fb::Table plan);

}  // namespace etmcu
