// The requantized int8 output of the fast int8 kernels: the output offset and activation range
// held as values (read through a job after every int8 store, which may alias anything, they were
// reloaded for each output) and the per-channel parameters prepared once (cmsis::Requant).
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/cmsis_math.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct OutputQ {
  int32_t offset, min, max;
};
inline int8_t finish(const OutputQ& o, const cmsis::Requant& rq, int32_t acc) {
  acc = cmsis::wrap_add(cmsis::requantize(acc, rq), o.offset);
  return static_cast<int8_t>(cmsis::clamp(acc, o.min, o.max));
}
// The same with the parameters read per output (for tails and rare shapes).
inline int8_t finish(const OutputQ& o, int32_t mult, int32_t shift, int32_t acc) {
  acc = cmsis::wrap_add(cmsis::requantize(acc, mult, shift), o.offset);
  return static_cast<int8_t>(cmsis::clamp(acc, o.min, o.max));
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
