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
//
// Only values whose state changes at run time get persistent RAM (a "slot": method inputs and
// outputs, Move/JumpFalse/Free operands, scalars a kernel or delegate writes, tensors bound to
// external data). Every other value is rebuilt from the verified program in flash into the call
// buffer just before the instruction that reads it; the call buffer is sized by the largest call.
struct MethodLayout {
  uint32_t values = 0;
  uint32_t slots = 0;              // slot candidates, counted with repeats (an upper bound)
  uint32_t instruction_slots = 0;  // of which instructions name (0: load skips that scan)
  uint32_t external_slots = 0;     // of which tensors with external data name
  // The first instruction (global index) passing a value index out of range, UINT32_MAX when
  // none: load reports it and checks no other argument index.
  uint32_t bad_argument = 0xffffffffu;
  uint32_t operators = 0;
  uint32_t instructions = 0;
  uint32_t chains = 0;
  uint32_t delegates = 0;
  uint32_t inputs = 0;
  // The largest call: arguments, tensors it builds (direct or as list items), IntList items,
  // TensorList items.
  uint32_t call_args = 0;
  uint32_t call_tensors = 0;
  uint32_t call_ints = 0;
  uint32_t call_items = 0;
  // Why load must refuse the plan before building anything (nullptr when it may go on): call
  // arguments or list items repeated, through shared tables, beyond what the program's bytes could
  // hold unshared (so load stays O(program bytes)), or a call too large for the call buffer.
  const char* refused = nullptr;

  // The method allocator's blocks, in allocation order: the slot map, slots, kernels, chain
  // starts, delegates, input flags, call pointers, call values, call tensors and their value
  // ids, call ints, call items. Each is rounded to 16 bytes and allocated 16-aligned, so the sum
  // is exact for a 16-aligned allocator. Saturates at UINT32_MAX (never wraps): no pool is that
  // large, so a saturated size is refused as too large.
  uint32_t bytes() const;
};

// A call may pass at most this many arguments and build at most this many tensors (directly or
// as list items): the call buffer looks values up by linear search within one call.
constexpr uint32_t kMaxCallArgs = 1024;

// `flatbuffer_bytes`: the size of the program's flatbuffer (PteFile::flatbuffer_size()).
MethodLayout compute_method_layout(fb::Table plan, uint64_t flatbuffer_bytes);

}  // namespace etmcu
