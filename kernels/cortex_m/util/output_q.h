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
// The folded form (cmsis::requantize_offset: multiplier > 0, shift in [-22, -2]).
inline int8_t finish(const OutputQ& o, const cmsis::RequantFolded& q, int32_t acc) {
  return static_cast<int8_t>(cmsis::clamp(cmsis::requantize_offset(acc, q), o.min, o.max));
}
// The requantization of a block of kN channels: folded when every channel allows it, else the
// prepared general form.
template <int kN>
struct BlockRequant {
  bool folded;
  cmsis::RequantFolded f[kN];
  cmsis::Requant g[kN];
  void prepare(const int32_t* mult, const int32_t* shift, const int32_t* ch, int32_t offset) {
    folded = true;
    for (int k = 0; k < kN; ++k)
      folded = folded && cmsis::requant_foldable(mult[ch[k]], shift[ch[k]]);
    for (int k = 0; k < kN; ++k) {
      if (folded)
        f[k] = cmsis::requant_folded(mult[ch[k]], shift[ch[k]], offset);
      else
        g[k] = cmsis::requant_params(mult[ch[k]], shift[ch[k]]);
    }
  }
};
// The same with the parameters read per output (for tails and rare shapes).
inline int8_t finish(const OutputQ& o, int32_t mult, int32_t shift, int32_t acc) {
  acc = cmsis::wrap_add(cmsis::requantize(acc, mult, shift), o.offset);
  return static_cast<int8_t>(cmsis::clamp(acc, o.min, o.max));
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
