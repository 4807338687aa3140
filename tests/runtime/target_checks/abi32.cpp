// Compiled (not run) for a 32-bit target by target_checks.sh: on rv32, `long` is 32-bit, so these
// fail to compile if a program's 64-bit sizes would be narrowed on the way to a diagnostic. (The
// method layout's byte count is 32-bit and saturates instead of wrapping: tests/runtime/
// test_hardening.cpp, LayoutBytesSaturateInsteadOfWrapping.)
#include "runtime/core/diagnostic.h"
#include "runtime/executor/method_layout.h"

static_assert(sizeof(long) == 4, "this check is meant for a 32-bit target");
static_assert(sizeof(etmcu::MethodLayout().bytes()) == 4, "MethodLayout::bytes() saturates at 32 bits");
etmcu::Error (etmcu::Diagnostic::*const kFailNumbers)(etmcu::Error, const char*, int64_t, int64_t,
                                                      const char*,
                                                      long) = &etmcu::Diagnostic::fail_numbers;
