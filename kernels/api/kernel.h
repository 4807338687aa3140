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

// One row of the generated kernel table: the operator's full name ("aten::add.out") and its kernel.
struct KernelEntry {
  const char* name;
  OpFunction fn;
};

// The kernel table linked into this binary, sorted by name (generated at build time from an op
// list; see cmake/kernel_table.cmake). Looking up is a binary search done once per operator at
// method load.
Span<const KernelEntry> kernel_table();
// Finds the kernel for `name` ("ns::op.overload", or "ns::op" for the default overload); nullptr if
// absent.
OpFunction find_kernel(const char* name, size_t name_len);

}  // namespace etmcu
