// Depthwise micro-kernel for cores without SIMD (plain RV32IMC, Armv6-M): four channels per
// block, the input offset folded out of inner windows (util/depthwise_blocks.h).
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// A multiply and an add.
struct DepthwiseMac {
  static int32_t mac(int32_t acc, int32_t a, int32_t b) { return wrap_add(acc, wrap_mul(a, b)); }
};

// The depthwise layers this ISA has a micro-kernel for (dilation 1 is checked by the op); false:
// the op runs the reference loop.
inline bool depthwise_fast(const DwJob& j) {
  if (j.cm == 1) {
    depthwise_blocks<false, DepthwiseMac>(j);
    return true;
  }
  if (j.cm % 4 == 0) {  // e.g. KWS's first layer: 1 -> 64 channels
    depthwise_blocks<true, DepthwiseMac>(j);
    return true;
  }
  return false;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
