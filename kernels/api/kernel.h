// The kernel ABI: every operator kernel is a plain function taking the method's argument list in
// upstream's out-variant layout (schema arguments in order, then the returned value(s); see
// docs/kernels.md). Kernels validate their arguments and return an Error; they never abort.
#pragma once
#include <stddef.h>

#include "runtime/core/diagnostic.h"  // ETMCU_DIAGNOSTIC_TEXT
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/span.h"

namespace etmcu {

// Per-call context: the temp allocator (reset by the executor after every instruction) and a
// slot where a kernel may leave a static string explaining a failure.
struct KernelContext {
  MemoryAllocator* temp = nullptr;
  const char* failure = nullptr;

  // Records why the kernel failed (a string literal) and returns `e`, for `return ctx.fail(...)`.
  // Without diagnostic texts (the firmware default, runtime/core/diagnostic.h) the reason is
  // dropped, and with it the literal: the kernels' messages were 6.6 KB of upstream KWS's
  // firmware that the device never printed.
  Error fail(Error e, const char* why) {
#if ETMCU_DIAGNOSTIC_TEXT
    failure = why;
#else
    (void)why;
#endif
    return e;
  }
};

using OpFunction = Error (*)(KernelContext& ctx, Span<EValue*> args);

// A kernel's buffer declaration: the bytes of the temp pool one call takes, from the call's
// arguments as method load binds them (shapes and constants; inputs have no data yet). A kernel
// that needs a buffer states it here and takes it from its planned `scratch` tensor when that is
// large enough, else from ctx.temp (kernels/api/kernel_scratch.h); the declaration then counts
// only what the planned scratch does not cover. Method load takes the largest over the method's
// calls and refuses a temp pool smaller than that (docs/kernels.md, "Buffers").
using TempBytesFunction = uint32_t (*)(Span<EValue*> args);

// One row of the generated kernel table: the operator's full name ("aten::add.out"), its kernel,
// and the kernel's temp declaration (nullptr: the kernel takes no temp).
struct KernelEntry {
  const char* name;
  OpFunction fn;
  TempBytesFunction temp_bytes;
};

// The kernel table linked into this binary, sorted by name (generated at build time from an op
// list; see cmake/kernel_table.cmake). Looking up is a binary search done once per operator at
// method load.
Span<const KernelEntry> kernel_table();
// Finds the kernel for `name` ("ns::op.overload", or "ns::op" for the default overload); nullptr if
// absent.
const KernelEntry* find_kernel_entry(const char* name, size_t name_len);
inline OpFunction find_kernel(const char* name, size_t name_len) {
  const KernelEntry* e = find_kernel_entry(name, name_len);
  return e != nullptr ? e->fn : nullptr;
}

}  // namespace etmcu
