// Diagnostic: why a load failed, in a form cheap enough for target code. It holds static text
// naming the field or check, optional numbers (got/expected), an optional index, and an optional
// name that points into the program (an operator or backend). format_diagnostic() builds the
// message.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/error.h"

// Diagnostic texts compile to empty strings when ETMCU_DIAGNOSTIC_TEXT is 0 (smallest firmware).
#ifndef ETMCU_DIAGNOSTIC_TEXT
#define ETMCU_DIAGNOSTIC_TEXT 1
#endif
#if ETMCU_DIAGNOSTIC_TEXT
#define ET_TEXT(s) s
#else
#define ET_TEXT(s) ""
#endif

namespace etmcu {

struct Diagnostic {
  Error error = Error::Ok;
  const char* what = "";   // e.g. "Tensor.sizes: vector runs past the end of the buffer"
  const char* where = "";  // e.g. "values" (with index) or "instruction"
  int64_t index = -1;      // index inside `where`, -1 when none
  int64_t offset = -1;     // byte offset in the file, -1 when none
  int64_t got = 0;
  int64_t expected = 0;
  bool has_numbers = false;
  char name[48] = {};  // e.g. operator or backend name (copied, truncated; empty when none)

  // Records the first failure only (later ones are consequences), returns `e`. Out of line on
  // purpose: there are ~100 call sites, and inlining them costs kilobytes on targets.
  __attribute__((noinline)) Error fail(Error e, const char* what_text, const char* where_text = "",
                                       long at = -1);
  // got/expected are 64-bit on every target (a program's sizes and offsets are int64).
  __attribute__((noinline)) Error fail_numbers(Error e, const char* what_text, int64_t got_value,
                                               int64_t expected_value, const char* where_text = "",
                                               long at = -1);
  // Sets the name once (the first failure's); `s` need not be NUL-terminated.
  void set_name(const char* s, size_t n) {
    if (name[0] != '\0' || s == nullptr) return;
    if (n > sizeof(name) - 1) n = sizeof(name) - 1;
    for (size_t i = 0; i < n; ++i) name[i] = s[i];
    name[n] = '\0';
  }
  void clear() { *this = Diagnostic(); }
};

// Writes "<ErrorName>: <where>[<index>]: <what> '<name>' (got G, expected E) at file offset O" into
// buf (always NUL-terminated); returns buf.
char* format_diagnostic(const Diagnostic& d, char* buf, size_t size);

}  // namespace etmcu
