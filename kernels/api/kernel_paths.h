// Kernel paths: the shape-class branches inside the optimised kernels (a 1x1 strip kernel, an
// im2col block kernel, a depthwise plane kernel, a reference loop, ...). A firmware built for one
// program keeps only the branches that program takes, so the code a device ships is the code it
// runs (issue 13; docs/bare-metal.md "Kernel paths per program"):
//  - etmcu_kernel_paths, the mask of paths compiled in, is defined by the generated kernel table
//    (cmake/kernel_table.cmake; all ones unless the build names a mask). With link-time
//    optimisation the compiler folds it, so every branch outside the mask is dead code.
//  - etmcu_kernel_paths_taken collects the bit of every path a kernel takes. tools/firmware/ builds
//    a firmware with every path, reads the mask it reports after one run, and rebuilds with it.
//  - etmcu_kernel_paths_wanted collects the bits of left-out paths that a kernel covers with a
//    slower form giving the same bits (kernel_path_or_fallback: the micro-kernels' general loops),
//    where a stale mask would otherwise go unnoticed; tools/firmware/ records the paths again when
//    a run reports any.
// A path is chosen from shapes, strides, offsets and the plan's alignment, never from data, so the
// same program takes the same paths. A kernel that needs a path this build left out returns
// NotSupported naming it (kernel_path_missing), instead of running something else.
#pragma once
#include <stdint.h>

#include "kernels/api/kernel.h"

extern "C" {
extern const uint32_t etmcu_kernel_paths;
extern uint32_t etmcu_kernel_paths_taken;
extern uint32_t etmcu_kernel_paths_wanted;
}

namespace etmcu {
namespace kernels {

// (Always inlined: an out-of-line copy would hide the folded mask from the branch that calls it.)
// Whether path `bit` is in this build (no record: for a branch that may turn out to do nothing).
__attribute__((always_inline)) inline bool kernel_path_on(uint32_t bit) {
  return (etmcu_kernel_paths >> bit & 1u) != 0;
}
// Records path `bit` as taken.
__attribute__((always_inline)) inline void kernel_path_mark(uint32_t bit) {
  etmcu_kernel_paths_taken |= 1u << bit;
}
// Whether path `bit` is in this build, recording it as taken when it is. Call it where the branch
// is chosen, after the shape tests: `if (shape_fits && kernel_path(kPathX)) run_x();`.
__attribute__((always_inline)) inline bool kernel_path(uint32_t bit) {
  if (!kernel_path_on(bit)) return false;
  kernel_path_mark(bit);
  return true;
}

// kernel_path for a branch whose absence the kernel covers with a slower form giving the same
// bits (no NotSupported to tell a stale mask): the left-out path is recorded as wanted. (Only
// there: a store at every kernel_path site measured 300 B of KWS code.)
__attribute__((always_inline)) inline bool kernel_path_or_fallback(uint32_t bit) {
  if (kernel_path(bit)) return true;
  etmcu_kernel_paths_wanted |= 1u << bit;
  return false;
}

// The bits: 0-23 the cortex_m int8 kernels' (kernels/cortex_m/util/paths.h), 24-31 the portable
// kernels': the strided copies (one per element size: a program's layout changes are usually of
// one dtype) and the binary ops' general cases.
enum PortablePath : uint32_t {
  kPathGather1 = 24,  // gather_copy of 1-byte elements (kernels/portable/util/kernel_util.cpp)
  kPathGather2,
  kPathGather4,
  kPathGather8,
  kPathBinaryStrided,  // binary ops: broadcasting, dim orders, mixed dtypes (map_binary_strided)
  kPathBinaryScaled,   // add/sub with alpha != 1
  // 30, 31: the cortex_m kernels' kPathDyadic and kPathFrexp (kernels/cortex_m/util/paths.h)
};

// NotSupported for a path this build left out: it was built for another program's paths (one
// message for all; without diagnostic texts the device keeps none).
inline Error kernel_path_missing(KernelContext& ctx) {
  return ctx.fail(Error::NotSupported,
                  "kernel path left out of this firmware (built for another program's paths)");
}

}  // namespace kernels
}  // namespace etmcu
