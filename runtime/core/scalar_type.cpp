// Element sizes and names of scalar types.
#include "runtime/core/scalar_type.h"

namespace etmcu {

size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
    case ScalarType::QInt8:
    case ScalarType::QUInt8:
    case ScalarType::QUInt4x2:
    case ScalarType::QUInt2x4:
    case ScalarType::Float8e5m2:
    case ScalarType::Float8e4m3fn:
    case ScalarType::Float8e5m2fnuz:
    case ScalarType::Float8e4m3fnuz:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Bits16:
    case ScalarType::UInt16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
    case ScalarType::QInt32:
    case ScalarType::UInt32:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
    case ScalarType::UInt64:
      return 8;
  }
  return 0;
}

bool is_valid_scalar_type(int raw) {
  return raw >= -128 && raw <= 127 && element_size(static_cast<ScalarType>(raw)) != 0;
}

const char* scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Char:
      return "int8";
    case ScalarType::Short:
      return "int16";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Half:
      return "float16";
    case ScalarType::Float:
      return "float32";
    case ScalarType::Double:
      return "float64";
    case ScalarType::Bool:
      return "bool";
    case ScalarType::QInt8:
      return "qint8";
    case ScalarType::QUInt8:
      return "quint8";
    case ScalarType::QInt32:
      return "qint32";
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::QUInt4x2:
      return "quint4x2";
    case ScalarType::QUInt2x4:
      return "quint2x4";
    case ScalarType::Bits16:
      return "bits16";
    case ScalarType::Float8e5m2:
      return "float8_e5m2";
    case ScalarType::Float8e4m3fn:
      return "float8_e4m3fn";
    case ScalarType::Float8e5m2fnuz:
      return "float8_e5m2fnuz";
    case ScalarType::Float8e4m3fnuz:
      return "float8_e4m3fnuz";
    case ScalarType::UInt16:
      return "uint16";
    case ScalarType::UInt32:
      return "uint32";
    case ScalarType::UInt64:
      return "uint64";
  }
  return "invalid";
}

}  // namespace etmcu
