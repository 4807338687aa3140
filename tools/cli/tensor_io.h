// Method inputs from arrays and outputs to arrays, shared by the CLI (`run --input x.npy`) and the
// in-process C API (tools/capi, etmcu.Program), so both check, quantize and lay out the same way.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/executor/method_meta.h"
#include "tools/cli/file_io.h"

namespace etmcu::host {

// The bytes of input `index` in the tensor's dim order from an array in logical (C) order.
// `label` names the array in messages ("'x.npy'", "array"). Shapes are checked, not just bytes:
// dims of size 1 may be left out or added, nothing else. A float32 array for an int8 input of a
// program with int8 I/O is quantized with the input's recorded scale and zero point, as
// cortex_m::quantize_per_tensor does. Throws std::runtime_error with the reason.
std::vector<uint8_t> input_from_array(const NpyArray& a, const std::string& label, size_t index,
                                      const TensorInfo& info, const Result<QuantParams>& quant);

// The tensor's elements in logical (C) order, whatever its dim order (.npy and numpy want it).
std::vector<uint8_t> logical_bytes(const Tensor& t);

}  // namespace etmcu::host
