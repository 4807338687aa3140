// Depthwise micro-kernel for the CV32E40P with its PULP extensions: util/depthwise_blocks.h with
// each tap one cv.mac.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/depthwise_blocks.h"
#include "kernels/cortex_m/isa/xpulp/xpulp_insn.h"

namespace etmcu {
namespace kernels {
namespace int8 {

// One cv.mac.
struct DepthwiseMac {
  static int32_t mac(int32_t acc, int32_t a, int32_t b) { return xpulp::mac(acc, a, b); }
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
