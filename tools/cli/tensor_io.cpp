// Inputs from arrays, outputs to arrays (see tensor_io.h).
#include "tools/cli/tensor_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace etmcu::host {

namespace {

// Logical (C order) bytes -> the tensor's dim order in memory (identity for contiguous).
std::vector<uint8_t> to_dim_order(const std::vector<uint8_t>& logical, const TensorInfo& info) {
  size_t dim = info.sizes.size(), e = element_size(info.dtype);
  bool contiguous = true;
  for (size_t d = 0; d < info.dim_order.size(); ++d) contiguous &= info.dim_order[d] == d;
  if (contiguous || dim == 0) return logical;
  // Strides of each logical dim in the physical (dim-ordered) layout.
  std::vector<size_t> stride(dim);
  size_t s = 1;
  for (size_t k = dim; k-- > 0;) {
    stride[info.dim_order[k]] = s;
    s *= static_cast<size_t>(info.sizes[info.dim_order[k]]);
  }
  std::vector<uint8_t> phys(logical.size());
  for (size_t k = 0, n = logical.size() / e; k < n; ++k) {
    size_t rem = k, off = 0;
    for (size_t d = dim; d-- > 0;) {
      off += (rem % info.sizes[d]) * stride[d];
      rem /= info.sizes[d];
    }
    std::memcpy(phys.data() + off * e, logical.data() + k * e, e);
  }
  return phys;
}

// float32 -> int8 as cortex_m::quantize_per_tensor does (float32 reciprocal, ties to even).
std::vector<uint8_t> quantize_floats(const std::vector<uint8_t>& f32, QuantParams q) {
  std::vector<uint8_t> out(f32.size() / 4);
  float inv = 1.0f / q.scale;
  for (size_t k = 0; k < out.size(); ++k) {
    float x;
    std::memcpy(&x, f32.data() + 4 * k, 4);
    long r = std::lrint(x * inv) + q.zero_point;
    r = std::min(127L, std::max(-128L, r));
    out[k] = static_cast<uint8_t>(static_cast<int8_t>(r));
  }
  return out;
}

std::vector<int64_t> squeezed(const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  for (int64_t d : shape)
    if (d != 1) out.push_back(d);
  return out;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

std::vector<uint8_t> input_from_array(const NpyArray& a, const std::string& label, size_t index,
                                      const TensorInfo& info, const Result<QuantParams>& quant) {
  std::string what = "input " + std::to_string(index) + " (" + label + ")";
  bool quantize = a.dtype == ScalarType::Float && info.dtype == ScalarType::Char && quant.ok();
  if (a.dtype != info.dtype && !quantize)
    throw std::runtime_error(what + " has dtype " + scalar_type_name(a.dtype) +
                             ", the program expects " + scalar_type_name(info.dtype) +
                             (info.dtype == ScalarType::Char && !quant.ok()
                                  ? " (no int8 I/O quantization recorded to quantize floats)"
                                  : ""));
  // Shapes, not just bytes: [1, 49, 40] for a [1, 40, 49] input has the same byte count but
  // another layout. Dims of size 1 may be left out or added ([40, 49] is fine).
  std::vector<int64_t> want(info.sizes.begin(), info.sizes.end());
  if (squeezed(a.shape) != squeezed(want)) {
    int64_t have_n = 1, want_n = 1;
    for (int64_t d : a.shape) have_n *= d;
    for (int64_t d : want) want_n *= d;
    throw std::runtime_error(
        what + " has shape " + shape_text(a.shape) + ", the program expects " + shape_text(want) +
        " (" + scalar_type_name(info.dtype) + ")" +
        (have_n == want_n
             ? ": the same number of elements in another layout (transpose the array to the "
               "expected axis order, e.g. a.transpose(...), rather than reshape it)"
             : ""));
  }
  std::vector<uint8_t> data = quantize ? quantize_floats(a.data, quant.get()) : a.data;
  if (data.size() != info.nbytes)
    throw std::runtime_error(what + " has " + std::to_string(data.size()) +
                             " bytes of data, the program expects " + std::to_string(info.nbytes));
  return to_dim_order(data, info);
}

std::vector<uint8_t> logical_bytes(const Tensor& t) {
  std::vector<uint8_t> logical(t.nbytes);
  size_t e = t.element_size();
  if (t.is_contiguous()) {
    if (t.nbytes) std::memcpy(logical.data(), t.data, t.nbytes);
    return logical;
  }
  int64_t strides[kTensorMaxDim];
  t.strides(strides);
  for (size_t k = 0, n = t.numel(); k < n; ++k) {
    size_t rem = k, off = 0;
    for (int d = t.dim - 1; d >= 0; --d) {
      off += (rem % t.sizes[d]) * strides[d];
      rem /= t.sizes[d];
    }
    std::memcpy(logical.data() + k * e, static_cast<const uint8_t*>(t.data) + off * e, e);
  }
  return logical;
}

}  // namespace etmcu::host
