// Depthwise micro-kernel for cores without SIMD (Armv6-M, and the Arm DSP cores): four channels
// per block, the input offset folded out of inner windows (util/depthwise_blocks.h).
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j) { return depthwise_blocks_any<WrapMac>(j); }

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
