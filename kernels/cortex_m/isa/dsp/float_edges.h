// quantize_per_tensor / dequantize_per_tensor with the core's FPU: the float32 loops.
#pragma once
#include "kernels/cortex_m/util/quantize_io.h"

namespace etmcu {
namespace kernels {
namespace int8 {

inline void quantize_all(const QuantizeJob& j) { quantize_floats(j); }
inline void dequantize_all(const DequantizeJob& j) { dequantize_floats(j); }

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
