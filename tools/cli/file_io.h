// Host file helpers for the CLI and tests: 16-byte aligned file buffers (the runtime needs aligned
// program bytes) and numpy .npy read/write.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace etmcu::host {

// Owns bytes whose data() is 16-byte aligned.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(size_t size) : storage_(size + 16), size_(size) {}
  uint8_t* data() {
    auto p = reinterpret_cast<uintptr_t>(storage_.data());
    return storage_.data() + ((16 - (p & 15)) & 15);
  }
  const uint8_t* data() const { return const_cast<AlignedBytes*>(this)->data(); }
  size_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  size_t size_ = 0;
};

// Reads a whole file; throws std::runtime_error naming the path on failure.
AlignedBytes read_file(const std::string& path);
void write_file(const std::string& path, const void* data, size_t size);

struct NpyArray {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // little-endian, C order
};

// Parses a .npy (versions 1-3, little-endian or byte dtypes, C order); throws with the reason.
NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, ScalarType dtype, const std::vector<int64_t>& shape,
               const void* data, size_t nbytes);
// numpy descr ("<f4") of a scalar type; throws for types numpy cannot hold.
std::string npy_descr(ScalarType t);

}  // namespace etmcu::host
