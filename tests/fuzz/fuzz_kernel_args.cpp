// libFuzzer target: kernels under hostile arguments. The mutator edits only the values kernels
// receive (Int, Double and Bool values and list items — zero points, shifts, multipliers, scratch
// sizes, dims —, tensor dtypes, sizes and dim orders) of corpus and zoo programs, so the structure
// stays valid and each mutant is loaded over pools sized for it (up to 1 MiB) and executed once:
// every kernel must reject what it cannot compute, with no sanitizer report.
#include "tests/fuzz/harness.h"

ETMCU_FUZZ_MUTATOR_SCOPED(etmcu::schema::kProgram, etmcu::fuzz::Scope::kKernelArguments)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etmcu;
  constexpr size_t kCap = 1 << 20;
  Span<const uint8_t> bytes = fuzz::aligned_copy(data, size);
  Diagnostic diag;
  Result<Program> program = Program::load(bytes, &diag);
  if (!program.ok() || program->num_methods() == 0) return 0;
  Result<const char*> name = program->get_method_name(0);
  if (!name.ok()) return 0;
  Result<MethodMeta> meta = program->method_meta(name.get());
  if (!meta.ok()) return 0;
  fuzz::Pools pools;
  if (!pools.size_for(meta.get(), kCap, kCap, 256 << 10)) return 0;
  MemoryManager mm(&pools.method_alloc, &pools.hier, &pools.temp_alloc);
  Result<Method> method = program->load_method(name.get(), &mm, &diag);
  if (!method.ok()) return 0;
  std::vector<std::vector<uint8_t>> inputs(method->inputs_size());
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    const EValue& in = method->get_input(i);
    if (!in.is_tensor()) {
      (void)method->set_input(in, i);
      continue;
    }
    if (in.to_tensor().nbytes > kCap) return 0;
    inputs[i].assign(in.to_tensor().nbytes, 0x5a);
    (void)method->set_input_data(i, inputs[i].data(), inputs[i].size());
  }
  (void)method->execute();
  return 0;
}
