// libFuzzer target: Program::load + load_method of the first method over pools sized from the
// program (capped at 256 KiB each), no execute: value parsing, memory-plan binding, instruction
// resolution, delegate lookup.
#include "tests/fuzz/harness.h"

ETMCU_FUZZ_MUTATOR(etmcu::schema::kProgram)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etmcu;
  Span<const uint8_t> bytes = fuzz::aligned_copy(data, size);
  Diagnostic diag;
  Result<Program> program = Program::load(bytes, &diag);
  if (!program.ok() || program->num_methods() == 0) return 0;
  Result<const char*> name = program->get_method_name(0);
  if (!name.ok()) return 0;
  Result<MethodMeta> meta = program->method_meta(name.get());
  if (!meta.ok()) return 0;
  fuzz::Pools pools;
  if (!pools.size_for(meta.get(), 256 << 10, 256 << 10, 1024)) return 0;
  MemoryManager mm(&pools.method_alloc, &pools.hier, &pools.temp_alloc);
  Result<Method> method = program->load_method(name.get(), &mm, &diag);
  char text[256];
  format_diagnostic(diag, text, sizeof(text));
  return 0;
}
