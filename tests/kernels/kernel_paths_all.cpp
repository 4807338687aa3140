// The kernel-path symbols a kernel table defines (kernels/api/kernel_paths.h), for the test
// executables that link kernel libraries without one: every path compiled in.
#include "kernels/api/kernel_paths.h"

extern "C" {
const uint32_t etmcu_kernel_paths = 0xffffffffu;
uint32_t etmcu_kernel_paths_taken = 0;
uint32_t etmcu_kernel_paths_wanted = 0;
}
