// The plain RV32IMC core's int8 dot products: on the device isa/rv32/dot4.S (four weight rows
// against one input, 13 instructions per input byte, 3.56 cycles per multiply-accumulate measured
// with the calls); on the host the scalar C loop, the same sums.
#pragma once
#if defined(__riscv)
#include <stdint.h>

#include "kernels/cortex_m/isa/scalar/row_sums.h"

extern "C" void etmcu_rv32_dot4(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d);

namespace etmcu {
namespace kernels {
namespace int8 {

// Output channels per pass (each input byte loaded feeds kOc multiply-accumulates).
constexpr int kOc = 4;

// d[k] += sum(x[i] * w[k][i]) over n bytes, k < kOc (callers keep n under kMaxDotLength).
inline void dot(const int8_t* x, const int8_t* const* w, int32_t n, int32_t* d) {
  etmcu_rv32_dot4(x, w, n, d);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
#else
#include "kernels/cortex_m/isa/scalar/int8_dot.h"
#endif
