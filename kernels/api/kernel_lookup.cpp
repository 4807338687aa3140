// find_kernel: binary search of the generated, sorted kernel table (once per operator at method
// load).
#include <string.h>

#include "kernels/api/kernel.h"
#include "kernels/api/kernel_paths.h"

uint32_t etmcu_kernel_paths_taken = 0;
uint32_t etmcu_kernel_paths_wanted = 0;

namespace etmcu {

const KernelEntry* find_kernel_entry(const char* name, size_t name_len) {
  Span<const KernelEntry> table = kernel_table();
  size_t lo = 0, hi = table.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char* entry = table[mid].name;
    // strncmp orders as the generator sorts (bytes; a prefix first) without the entry's length,
    // which only a match needs (a strlen per probe was most of the lookup's cycles).
    int c = strncmp(entry, name, name_len);
    if (c == 0) {
      size_t entry_len = strlen(entry);
      if (entry_len == name_len) return &table[mid];
      if (entry_len < name_len) return nullptr;  // `name` (from the file) has a NUL inside
      c = 1;                                     // longer than name: sorts after it
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return nullptr;
}

}  // namespace etmcu
