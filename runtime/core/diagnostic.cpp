// format_diagnostic: a small formatter with no printf dependency (printf costs kilobytes on
// targets).
#include "runtime/core/diagnostic.h"

namespace etmcu {
namespace {

struct Writer {
  char* buf;
  size_t size;
  size_t len = 0;
  void put(char c) {
    if (len + 1 < size) buf[len++] = c;
  }
  void str(const char* s, size_t n = static_cast<size_t>(-1)) {
    for (size_t i = 0; i < n && s[i] != '\0'; ++i) put(s[i]);
  }
  void num(int64_t v) {
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    do {
      tmp[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0) put('-');
    while (n > 0) put(tmp[--n]);
  }
};

}  // namespace

// Indices are `long` (the native word on targets: 64-bit math costs code on rv32); the numbers are
// int64_t, since sizes and offsets from a program are 64-bit and `long` is 32-bit on targets.
Error Diagnostic::fail(Error e, const char* what_text, const char* where_text, long at) {
  if (error == Error::Ok) {
    error = e;
    what = what_text;
    where = where_text;
    index = at;
  }
  return e;
}

Error Diagnostic::fail_numbers(Error e, const char* what_text, int64_t got_value,
                               int64_t expected_value, const char* where_text, long at) {
  if (error == Error::Ok) {
    fail(e, what_text, where_text, at);
    got = got_value;
    expected = expected_value;
    has_numbers = true;
  }
  return e;
}

char* format_diagnostic(const Diagnostic& d, char* buf, size_t size) {
  if (size == 0) return buf;
  Writer w{buf, size};
  w.str(error_name(d.error));
  if (d.where != nullptr && d.where[0] != '\0') {
    w.str(": ");
    w.str(d.where);
    if (d.index >= 0) {
      w.put('[');
      w.num(d.index);
      w.put(']');
    }
  }
  if (d.what != nullptr && d.what[0] != '\0') {
    w.str(": ");
    w.str(d.what);
  }
  if (d.name[0] != '\0') {
    w.str(" '");
    w.str(d.name);
    w.put('\'');
  }
  if (d.has_numbers) {
    w.str(" (got ");
    w.num(d.got);
    w.str(", expected ");
    w.num(d.expected);
    w.put(')');
  }
  if (d.offset >= 0) {
    w.str(" at file offset ");
    w.num(d.offset);
  }
  buf[w.len] = '\0';
  return buf;
}

}  // namespace etmcu
