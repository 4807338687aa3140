// The kernel-path symbols a kernel table defines (kernels/api/kernel_paths.h), for the test
// executables that link kernel libraries without one: every path compiled in, and the kernels'
// argument checks on (kernels/api/tensor_check.h).
#include "kernels/api/kernel_paths.h"
#include "kernels/api/tensor_check.h"

extern "C" {
const uint32_t etmcu_kernel_paths = 0xffffffffu;
uint32_t etmcu_kernel_paths_taken = 0;
uint32_t etmcu_kernel_paths_wanted = 0;
const uint8_t etmcu_kernel_arg_checks = 1;
}
