// MethodMeta: what a method needs and exposes, read straight from the verified program (no
// allocation): inputs/outputs with dtype, shape and dim order, planned buffer sizes, and how many
// bytes of method allocator Method::load will take.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/pte/flatbuffer.h"

namespace etmcu {

class PteFile;

struct TensorInfo {
  ScalarType dtype = ScalarType::Float;
  Span<const int32_t> sizes;
  Span<const uint8_t> dim_order;
  size_t nbytes = 0;
  bool is_memory_planned = false;
};

// Affine int8 quantization of a method input/output of a program exported with int8 I/O:
// real = (q - zero_point) * scale. The caller quantizes inputs and dequantizes outputs itself.
struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

class MethodMeta {
 public:
  MethodMeta() = default;
  MethodMeta(const PteFile* file, fb::Table plan) : file_(file), plan_(plan) {}

  const char* name() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  Result<Tag> input_tag(size_t i) const;
  Result<Tag> output_tag(size_t i) const;
  Result<TensorInfo> input_tensor_meta(size_t i) const;
  Result<TensorInfo> output_tensor_meta(size_t i) const;
  // Quantization of input/output i when the program was exported with int8 I/O (named data
  // "etmcu.io_quant.<method>"); NotFound for float I/O, InvalidArgument for i out of range,
  // InvalidProgram for a malformed record.
  Result<QuantParams> input_quant(size_t i) const;
  Result<QuantParams> output_quant(size_t i) const;
  // Planned buffers as the runtime indexes them (the .pte's slot 0 is hidden): buffer j is
  // memory_id j+1.
  size_t num_memory_planned_buffers() const;
  Result<int64_t> memory_planned_buffer_size(size_t j) const;
  size_t num_instructions() const;
  size_t num_operators() const;
  size_t num_backends() const;
  // Bytes Method::load takes from the method allocator (plus what delegates' init asks for).
  size_t method_allocator_bytes() const;

  fb::Table plan() const { return plan_; }

 private:
  Result<TensorInfo> tensor_meta(int32_t value_index) const;
  Result<Tag> tag_of(int32_t value_index) const;
  Result<QuantParams> io_quant(bool output, size_t i) const;
  const PteFile* file_ = nullptr;
  fb::Table plan_;
};

// Tag of a serialized EValue (schema union tag -> runtime Tag).
Tag tag_from_kernel_type(uint8_t type);

}  // namespace etmcu
