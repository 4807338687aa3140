// Shared pieces of the libFuzzer targets: a 16-byte-aligned copy of the input (the reader requires
// it), pools carved from one buffer, and the structure-aware custom mutator (fb_mutator.h) with
// byte-level mutation as the fallback.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/executor/program.h"
#include "tests/fuzz/fb_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace etmcu::fuzz {

// The input copied to 16-byte-aligned storage that stays allocated across runs.
inline Span<const uint8_t> aligned_copy(const uint8_t* data, size_t size) {
  static std::vector<uint8_t> storage;
  if (storage.size() < size + 16) storage.resize(size + 16);
  uint8_t* a = storage.data() + ((16 - (reinterpret_cast<uintptr_t>(storage.data()) & 15)) & 15);
  if (size) std::memcpy(a, data, size);
  return Span<const uint8_t>(a, size);
}

// Pools for one method, all capped: returns false (skip the input) when the program asks for
// more than the caps, so slow inputs never reach execute().
struct Pools {
  std::vector<uint8_t> method, temp;
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> spans;
  HierarchicalAllocator hier;
  MemoryAllocator method_alloc, temp_alloc;

  bool size_for(const MethodMeta& meta, size_t method_cap, size_t planned_cap, size_t temp_bytes) {
    size_t m = meta.method_allocator_bytes() + 64;
    if (m > method_cap) return false;
    method.assign(m, 0);
    size_t total = 0;
    for (size_t j = 0; j < meta.num_memory_planned_buffers(); ++j) {
      Result<int64_t> n = meta.memory_planned_buffer_size(j);
      if (!n.ok() || n.get() < 0 || static_cast<uint64_t>(n.get()) > planned_cap - total)
        return false;
      total += static_cast<size_t>(n.get());
      planned.emplace_back(static_cast<size_t>(n.get()) + 16);
    }
    for (auto& p : planned) {
      uint8_t* a = p.data() + ((16 - (reinterpret_cast<uintptr_t>(p.data()) & 15)) & 15);
      spans.emplace_back(a, p.size() - 16);
    }
    temp.assign(temp_bytes, 0);
    hier = HierarchicalAllocator(Span<Span<uint8_t>>(spans.data(), spans.size()));
    method_alloc = MemoryAllocator(method.data(), method.size());
    temp_alloc = MemoryAllocator(temp.data(), temp.size());
    return true;
  }
};

inline size_t custom_mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed,
                            schema::TableType root, Scope scope = Scope::kAll) {
  // Kernel-argument scope: field edits only (byte edits would mostly break the structure).
  if (scope == Scope::kKernelArguments)
    return mutate_structure(data, size, seed, root, scope) ? size
                                                           : LLVMFuzzerMutate(data, size, max_size);
  // One input in four gets byte-level mutation only; the rest get field edits, and a byte-level
  // pass half of the time on top (so both kinds combine).
  if (seed % 4 != 0 && mutate_structure(data, size, seed, root)) {
    if (seed % 8 < 4) return size;
    return LLVMFuzzerMutate(data, size, max_size);
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

}  // namespace etmcu::fuzz

#define ETMCU_FUZZ_MUTATOR(root)                                                         \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, \
                                            unsigned int seed) {                         \
    return etmcu::fuzz::custom_mutate(data, size, max_size, seed, root);                 \
  }
#define ETMCU_FUZZ_MUTATOR_SCOPED(root, scope)                                           \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, \
                                            unsigned int seed) {                         \
    return etmcu::fuzz::custom_mutate(data, size, max_size, seed, root, scope);          \
  }
