// Value formatting for host tools.
#include "tools/cli/value_format.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace etmcu::host {

namespace {
// Reads tensor element k in logical (row-major over sizes) order, honouring dim_order.
size_t physical_index(const Tensor& t, size_t k) {
  if (t.is_contiguous()) return k;
  int64_t strides[kTensorMaxDim];
  t.strides(strides);
  size_t offset = 0;
  for (int d = t.dim - 1; d >= 0; --d) {
    size_t s = static_cast<size_t>(t.sizes[d]);
    offset += (k % s) * static_cast<size_t>(strides[d]);
    k /= s;
  }
  return offset;
}
}  // namespace

double tensor_element(const Tensor& t, size_t k) {
  size_t i = physical_index(t, k);
  const void* p = t.data;
  switch (t.dtype) {
    case ScalarType::Float:
      return static_cast<const float*>(p)[i];
    case ScalarType::Double:
      return static_cast<const double*>(p)[i];
    case ScalarType::Char:
      return static_cast<const int8_t*>(p)[i];
    case ScalarType::Byte:
      return static_cast<const uint8_t*>(p)[i];
    case ScalarType::Bool:
      return static_cast<const uint8_t*>(p)[i] ? 1 : 0;
    case ScalarType::Short:
      return static_cast<const int16_t*>(p)[i];
    case ScalarType::Int:
      return static_cast<const int32_t*>(p)[i];
    case ScalarType::Long:
      return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case ScalarType::UInt16:
      return static_cast<const uint16_t*>(p)[i];
    case ScalarType::UInt32:
      return static_cast<const uint32_t*>(p)[i];
    case ScalarType::UInt64:
      return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
    default:
      return NAN;
  }
}

std::vector<int64_t> tensor_shape(const Tensor& t) {
  return std::vector<int64_t>(t.sizes, t.sizes + t.dim);
}

nlohmann::json evalue_to_json(const EValue& v) {
  nlohmann::json j;
  switch (v.tag) {
    case Tag::Tensor: {
      const Tensor& t = v.to_tensor();
      j["kind"] = "tensor";
      j["dtype"] = scalar_type_name(t.dtype);
      j["shape"] = tensor_shape(t);
      j["dim_order"] = std::vector<int>(t.dim_order, t.dim_order + t.dim);
      auto values = nlohmann::json::array();
      bool integral = t.dtype != ScalarType::Float && t.dtype != ScalarType::Double &&
                      t.dtype != ScalarType::Half;
      for (size_t k = 0, n = t.data ? t.numel() : 0; k < n; ++k) {
        double x = tensor_element(t, k);
        if (t.dtype == ScalarType::Bool)
          values.push_back(x != 0);
        else if (integral)
          values.push_back(static_cast<int64_t>(x));
        else if (std::isfinite(x))
          values.push_back(x);
        else
          values.push_back(std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"));
      }
      j["values"] = values;
      break;
    }
    case Tag::Int:
      j = {{"kind", "int"}, {"value", v.to_int()}};
      break;
    case Tag::Double:
      j = {{"kind", "double"}, {"value", v.to_double()}};
      break;
    case Tag::Bool:
      j = {{"kind", "bool"}, {"value", v.to_bool()}};
      break;
    case Tag::String: {
      auto s = v.to_string();
      j = {{"kind", "string"}, {"value", std::string(s.data(), s.size())}};
      break;
    }
    case Tag::None:
      j = {{"kind", "none"}};
      break;
    default:
      j = {{"kind", "list"}};
      break;
  }
  return j;
}

std::string evalue_to_text(const EValue& v) {
  std::ostringstream out;
  if (!v.is_tensor()) {
    auto j = evalue_to_json(v);
    out << j["kind"].get<std::string>() << " " << (j.contains("value") ? j["value"].dump() : "");
    return out.str();
  }
  const Tensor& t = v.to_tensor();
  out << scalar_type_name(t.dtype) << "[";
  for (int d = 0; d < t.dim; ++d) out << (d ? ", " : "") << t.sizes[d];
  out << "] = [";
  size_t n = t.data ? t.numel() : 0, shown = n > 64 ? 32 : n;
  out.precision(7);
  for (size_t k = 0; k < shown; ++k) out << (k ? ", " : "") << tensor_element(t, k);
  if (shown < n) out << ", ... (" << n << " values)";
  out << "]";
  return out.str();
}

void fill_ones(ScalarType dtype, uint8_t* bytes, size_t numel) {
  for (size_t k = 0; k < numel; ++k) {
    switch (dtype) {
      case ScalarType::Float: {
        float one = 1.0f;
        std::memcpy(bytes + 4 * k, &one, 4);
        break;
      }
      case ScalarType::Double: {
        double one = 1.0;
        std::memcpy(bytes + 8 * k, &one, 8);
        break;
      }
      case ScalarType::Half: {
        uint16_t one = 0x3c00;
        std::memcpy(bytes + 2 * k, &one, 2);
        break;
      }
      case ScalarType::BFloat16: {
        uint16_t one = 0x3f80;
        std::memcpy(bytes + 2 * k, &one, 2);
        break;
      }
      default: {
        size_t e = element_size(dtype);
        std::memset(bytes + e * k, 0, e);
        bytes[e * k] = 1;  // little-endian integer 1 (and bool true)
      }
    }
  }
}

}  // namespace etmcu::host
