// ScalarType: element types as numbered in the .pte schema (same as PyTorch's c10::ScalarType).
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace etmcu {

enum class ScalarType : int8_t {
  Byte = 0,    // uint8
  Char = 1,    // int8
  Short = 2,   // int16
  Int = 3,     // int32
  Long = 4,    // int64
  Half = 5,    // float16
  Float = 6,   // float32
  Double = 7,  // float64
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits16 = 22,
  Float8e5m2 = 23,
  Float8e4m3fn = 24,
  Float8e5m2fnuz = 25,
  Float8e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

// Bytes per element, or 0 for a value that is not a valid ScalarType.
size_t element_size(ScalarType t);
// True when `raw` names a ScalarType the schema can carry.
bool is_valid_scalar_type(int raw);
// numpy-style name ("float32", "int8", "bool", ...); "invalid" for unknown values.
const char* scalar_type_name(ScalarType t);

}  // namespace etmcu
