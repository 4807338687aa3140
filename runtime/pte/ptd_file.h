// PtdFile: a verified, zero-copy view of an external-data file (.ptd, FlatTensor "FT01" with the
// "FH01" header, layout since 2025-06). The older layout under the same identifier is rejected.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/pte/flatbuffer.h"
#include "runtime/pte/named_data_map.h"

namespace etmcu {

class PtdFile final : public NamedDataMap {
 public:
  static Result<PtdFile> parse(Span<const uint8_t> data, Diagnostic* diag);

  Result<NamedBlob> get(const char* key, size_t len) const override;
  uint32_t num_keys() const override;
  // Key i (NUL-terminated, points into the file).
  const char* key(uint32_t i) const;

 private:
  Span<const uint8_t> file_;
  fb::Table root_;
  uint64_t segment_base_ = 0;
};

}  // namespace etmcu
