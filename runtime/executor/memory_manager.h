// MemoryManager: every byte a method uses, provided by the caller. The method allocator holds the
// method's persistent state (values, tensors, instruction argument lists, delegate handles);
// planned buffers hold the tensors the memory plan placed (index j = the .pte's memory_id j+1); the
// temp allocator is scratch for one kernel or delegate call and is reset after every instruction.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace etmcu {

// The planned arenas, named as upstream names them.
class HierarchicalAllocator {
 public:
  HierarchicalAllocator() = default;
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}
  size_t num_buffers() const { return buffers_.size(); }
  Span<uint8_t> buffer(size_t i) const { return buffers_[i]; }
  // Address of [offset, offset+size) in buffer `memory_id` (1-based as in the .pte), or nullptr
  // when out of range.
  uint8_t* address(uint32_t memory_id, uint64_t offset, size_t size) const {
    if (memory_id == 0 || memory_id > buffers_.size()) return nullptr;
    Span<uint8_t> b = buffers_[memory_id - 1];
    if (offset > b.size() || size > b.size() - offset) return nullptr;
    return b.data() + offset;
  }

 private:
  Span<Span<uint8_t>> buffers_;
};

class MemoryManager {
 public:
  MemoryManager(MemoryAllocator* method_allocator, HierarchicalAllocator* planned_memory = nullptr,
                MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator),
        planned_memory_(planned_memory),
        temp_allocator_(temp_allocator) {}
  MemoryAllocator* method_allocator() const { return method_allocator_; }
  HierarchicalAllocator* planned_memory() const { return planned_memory_; }
  MemoryAllocator* temp_allocator() const { return temp_allocator_; }

 private:
  MemoryAllocator* method_allocator_;
  HierarchicalAllocator* planned_memory_;
  MemoryAllocator* temp_allocator_;
};

}  // namespace etmcu
