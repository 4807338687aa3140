// find_kernel: binary search of the generated, sorted kernel table (once per operator at method
// load).
#include <string.h>

#include "kernels/api/kernel.h"

namespace etmcu {

OpFunction find_kernel(const char* name, size_t name_len) {
  Span<const KernelEntry> table = kernel_table();
  size_t lo = 0, hi = table.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char* entry = table[mid].name;
    size_t entry_len = strlen(entry);
    // Byte order, as the generator sorts; `name` may contain NULs (it comes from the file).
    int c = memcmp(entry, name, entry_len < name_len ? entry_len : name_len);
    if (c == 0) c = entry_len < name_len ? -1 : (entry_len > name_len ? 1 : 0);
    if (c == 0) return table[mid].fn;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return nullptr;
}

}  // namespace etmcu
