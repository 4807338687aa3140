// Converting runtime values to JSON / text and filling input tensors, for host tools.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "tools/cli/file_io.h"

namespace etmcu::host {

// {"kind": "tensor", "dtype": "float32", "shape": [...], "values": [...]} or a scalar/string kind.
nlohmann::json evalue_to_json(const EValue& v);
// "float32[1, 3] = [2, 3, 4]" (long tensors are abbreviated).
std::string evalue_to_text(const EValue& v);
// Element k of a tensor as double (for comparisons).
double tensor_element(const Tensor& t, size_t k);
// Fills `bytes` with ones of `dtype`.
void fill_ones(ScalarType dtype, uint8_t* bytes, size_t numel);
// Tensor sizes as int64 vector.
std::vector<int64_t> tensor_shape(const Tensor& t);

}  // namespace etmcu::host
