// NamedDataMap: read-only blobs looked up by string key: a .pte's own named_data (backend weights)
// and external .ptd files (EXTERNAL tensors). Blobs are zero-copy views into the loaded file.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/diagnostic.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace etmcu {

// Tensor layout a .ptd records for a blob (absent for a .pte's named_data).
struct TensorLayoutView {
  bool present = false;
  ScalarType dtype = ScalarType::Float;
  const int32_t* sizes = nullptr;
  const uint8_t* dim_order = nullptr;
  uint32_t dim = 0;
};

struct NamedBlob {
  Span<const uint8_t> bytes;
  TensorLayoutView layout;
};

class NamedDataMap {
 public:
  // The blob stored under `key` (not NUL-terminated, `len` bytes); NotFound when absent.
  virtual Result<NamedBlob> get(const char* key, size_t len) const = 0;
  virtual uint32_t num_keys() const = 0;

 protected:
  ~NamedDataMap() = default;  // not deleted through the interface (no heap)
};

}  // namespace etmcu
