// find_kernel: binary search of the generated, sorted kernel table (once per operator at method load).
#include <string.h>

#include "kernels/api/kernel.h"

namespace etmcu {

OpFunction find_kernel(const char* name, size_t name_len) {
  Span<const KernelEntry> table = kernel_table();
  size_t lo = 0, hi = table.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char* entry = table[mid].name;
    int c = strncmp(entry, name, name_len);
    if (c == 0 && entry[name_len] != '\0') c = 1;  // entry is longer: sorts after `name`
    if (c == 0) return table[mid].fn;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return nullptr;
}

}  // namespace etmcu
