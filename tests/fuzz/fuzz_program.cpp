// libFuzzer target: PtdFile::parse with a lookup of every key, then Program::load + Method load
// ("forward", or the first method) + one execute over pools sized from the program (capped), on
// arbitrary bytes. Seeded with the .pte corpus and tests/fuzz/regressions (which has a .ptd).
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/executor/program.h"
#include "runtime/pte/ptd_file.h"

namespace {
constexpr size_t kMaxPool = 1 << 20;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etmcu;
  std::vector<uint8_t> storage(size + 16);
  uint8_t* aligned =
      storage.data() + ((16 - (reinterpret_cast<uintptr_t>(storage.data()) & 15)) & 15);
  if (size) std::memcpy(aligned, data, size);
  Diagnostic diag;
  auto ptd = PtdFile::parse(Span<const uint8_t>(aligned, size), &diag);
  if (ptd.ok()) {
    for (uint32_t k = 0; k < ptd->num_keys(); ++k) {
      const char* key = ptd->key(k);
      (void)ptd->get(key, std::strlen(key));
    }
    return 0;
  }
  auto program = Program::load(Span<const uint8_t>(aligned, size), &diag);
  if (!program.ok() || program->num_methods() == 0) return 0;
  auto name = program->get_method_name(0);
  if (!name.ok()) return 0;
  auto meta = program->method_meta(name.get());
  if (!meta.ok()) return 0;
  size_t method_bytes = meta->method_allocator_bytes() + 64;
  if (method_bytes > kMaxPool) return 0;
  std::vector<uint8_t> method_pool(method_bytes), temp_pool(64 * 1024);
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> spans;
  for (size_t j = 0; j < meta->num_memory_planned_buffers(); ++j) {
    int64_t n = meta->memory_planned_buffer_size(j).get();
    if (n < 0 || n > static_cast<int64_t>(kMaxPool)) return 0;
    planned.emplace_back(static_cast<size_t>(n) + 16);
  }
  for (auto& p : planned) {
    uint8_t* a = p.data() + ((16 - (reinterpret_cast<uintptr_t>(p.data()) & 15)) & 15);
    spans.emplace_back(a, p.size() - 16);
  }
  HierarchicalAllocator hier(Span<Span<uint8_t>>(spans.data(), spans.size()));
  MemoryAllocator method_alloc(method_pool.data(), method_pool.size());
  MemoryAllocator temp(temp_pool.data(), temp_pool.size());
  MemoryManager mm(&method_alloc, &hier, &temp);
  auto method = program->load_method(name.get(), &mm, &diag);
  if (!method.ok()) return 0;
  std::vector<std::vector<uint8_t>> inputs(method->inputs_size());
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    const EValue& in = method->get_input(i);
    if (in.is_tensor()) {
      if (in.to_tensor().nbytes > kMaxPool) return 0;
      inputs[i].assign(in.to_tensor().nbytes, 0);
      (void)method->set_input_data(i, inputs[i].data(), inputs[i].size());
    } else {
      (void)method->set_input(in, i);
    }
  }
  (void)method->execute();
  return 0;
}
