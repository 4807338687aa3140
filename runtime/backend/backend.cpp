// The fixed backend table and compile-spec access.
#include "runtime/backend/backend.h"

#include <string.h>

namespace etmcu {
namespace {
// Zero-initialised (.bss): no static constructor.
const Backend* g_backends;
size_t g_num_backends;
}  // namespace

void set_backend_table(Span<const Backend> backends) {
  g_backends = backends.data();
  g_num_backends = backends.size();
}

Span<const Backend> backend_table() { return Span<const Backend>(g_backends, g_num_backends); }

const BackendInterface* find_backend(const char* name, size_t len) {
  for (size_t i = 0; i < g_num_backends; ++i) {
    const char* n = g_backends[i].name;
    if (strncmp(n, name, len) == 0 && n[len] == '\0') return g_backends[i].backend;
  }
  return nullptr;
}

CompileSpec CompileSpecs::operator[](size_t i) const {
  fb::Table t(specs_.ref(static_cast<uint32_t>(i)));
  fb::Vector v = t.vector(1);
  const char* key = t.has(0) ? t.string(0).data : "";
  return CompileSpec{key, Span<const uint8_t>(v.base, v.size)};
}

}  // namespace etmcu
