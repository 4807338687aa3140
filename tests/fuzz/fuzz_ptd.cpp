// libFuzzer target: PtdFile::parse and a lookup of every key (and of a key that is absent); when
// ETMCU_FUZZ_PTD_PROGRAM names a .pte with EXTERNAL tensors, its first method is also loaded with
// the fuzzed file as external data (the binding checks: sizes, dtype, layout).
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "runtime/pte/ptd_file.h"
#include "tests/fuzz/harness.h"

ETMCU_FUZZ_MUTATOR(etmcu::schema::kFlatTensor)

namespace {
etmcu::Span<const uint8_t> program_bytes;  // 16-byte aligned, empty without the variable
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("ETMCU_FUZZ_PTD_PROGRAM");
  if (path == nullptr) return 0;
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  static std::vector<uint8_t> storage;
  storage.assign(file.size() + 16, 0);
  uint8_t* a = storage.data() + ((16 - (reinterpret_cast<uintptr_t>(storage.data()) & 15)) & 15);
  if (!file.empty()) std::memcpy(a, file.data(), file.size());
  program_bytes = etmcu::Span<const uint8_t>(a, file.size());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etmcu;
  Span<const uint8_t> bytes = fuzz::aligned_copy(data, size);
  Diagnostic diag;
  Result<PtdFile> ptd = PtdFile::parse(bytes, &diag);
  char text[256];
  format_diagnostic(diag, text, sizeof(text));
  if (!ptd.ok()) return 0;
  for (uint32_t k = 0; k < ptd->num_keys(); ++k) {
    const char* key = ptd->key(k);
    (void)ptd->get(key, std::strlen(key));
  }
  (void)ptd->get("no such key", 11);
  if (program_bytes.size() == 0) return 0;
  Result<Program> program = Program::load(program_bytes, &diag, &ptd.get());
  if (!program.ok() || program->num_methods() == 0) return 0;
  Result<const char*> name = program->get_method_name(0);
  if (!name.ok()) return 0;
  Result<MethodMeta> meta = program->method_meta(name.get());
  if (!meta.ok()) return 0;
  fuzz::Pools pools;
  if (!pools.size_for(meta.get(), 64 << 10, 64 << 10, 1024)) return 0;
  MemoryManager mm(&pools.method_alloc, &pools.hier, &pools.temp_alloc);
  (void)program->load_method(name.get(), &mm, &diag);
  return 0;
}
