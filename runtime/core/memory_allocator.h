// MemoryAllocator: a bump allocator over a caller-provided buffer. Never frees individually;
// reset() returns everything at once. Records the high-water mark so callers can size pools.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace etmcu {

class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = 16;

  MemoryAllocator() = default;
  MemoryAllocator(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}

  // Returns `size` bytes aligned to `alignment` (a power of two; anything else fails), or nullptr
  // when the pool is exhausted; in that case `needed()` still grows (saturating) so the caller can
  // report the full requirement. No sum can wrap: a size near SIZE_MAX fails.
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) {
    const size_t kMax = ~static_cast<size_t>(0);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return fail(size);
    uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
    uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t)(alignment - 1);
    size_t pad = static_cast<size_t>(aligned - start);
    if (pad > size_ - used_ || size > size_ - used_ - pad)
      return fail(pad > kMax - size ? kMax : pad + size);
    used_ += pad + size;
    needed_ = used_ > needed_ ? used_ : needed_;
    if (used_ > peak_) peak_ = used_;
    return reinterpret_cast<void*>(aligned);
  }
  template <typename T>
  T* allocate_array(size_t count) {
    if (count != 0 && sizeof(T) > (~static_cast<size_t>(0)) / count) return nullptr;
    return static_cast<T*>(allocate(sizeof(T) * count, alignof(T) < 4 ? 4 : alignof(T)));
  }

  void reset() {
    used_ = 0;
    needed_ = 0;
    failed_ = false;
  }
  size_t size() const { return size_; }
  size_t used() const { return used_; }
  size_t peak() const { return peak_; }
  // Bytes this pool would have needed for every request since reset() to succeed
  // (an upper bound: alignment padding is counted as if from the failing position).
  size_t needed() const { return needed_; }
  bool failed() const { return failed_; }
  uint8_t* base() const { return base_; }

 private:
  void* fail(size_t request) {
    const size_t kMax = ~static_cast<size_t>(0);
    needed_ = request > kMax - needed_ ? kMax : needed_ + request;
    failed_ = true;
    return nullptr;
  }

  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
  size_t peak_ = 0;
  size_t needed_ = 0;
  bool failed_ = false;
};

}  // namespace etmcu
