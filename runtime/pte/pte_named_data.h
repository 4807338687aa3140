// The named_data of a .pte (Program.named_data: key -> whole segment) as a NamedDataMap.
#pragma once
#include "runtime/pte/named_data_map.h"
#include "runtime/pte/pte_file.h"

namespace etmcu {

class PteNamedData final : public NamedDataMap {
 public:
  PteNamedData() = default;
  explicit PteNamedData(const PteFile* file) : file_(file) {}
  Result<NamedBlob> get(const char* key, size_t len) const override {
    if (file_ == nullptr) return Error::NotFound;
    fb::Vector named = file_->program().vector(schema::program::kNamedData);
    for (uint32_t i = 0; i < named.size; ++i) {
      fb::Table n(named.ref(i));
      if (!n.string(schema::named::kKey).equals(key, len)) continue;
      uint32_t seg = n.scalar<uint32_t>(schema::named::kSegmentIndex);
      if (seg >= file_->num_segments()) return Error::InvalidProgram;
      NamedBlob blob;
      blob.bytes = file_->segment(seg);
      return blob;
    }
    return Error::NotFound;
  }
  uint32_t num_keys() const override {
    return file_ == nullptr ? 0 : file_->program().vector(schema::program::kNamedData).size;
  }

 private:
  const PteFile* file_ = nullptr;
};

}  // namespace etmcu
