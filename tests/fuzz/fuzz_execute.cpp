// libFuzzer target: load + load_method + execute twice over small pools (method memory at most
// 32 KiB, planned memory at most 8 KiB, 16 KiB temp), so that each input runs in well under a
// millisecond: programs of the KWS' size (16 KB planned, millions of MACs) are left to
// fuzz_program. Inputs are zeros, then all bytes 0x41 for the second run; outputs are read back.
#include "tests/fuzz/harness.h"

ETMCU_FUZZ_MUTATOR(etmcu::schema::kProgram)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etmcu;
  constexpr size_t kCap = 32 << 10, kPlannedCap = 8 << 10;
  Span<const uint8_t> bytes = fuzz::aligned_copy(data, size);
  Diagnostic diag;
  Result<Program> program = Program::load(bytes, &diag);
  if (!program.ok() || program->num_methods() == 0) return 0;
  Result<const char*> name = program->get_method_name(0);
  if (!name.ok()) return 0;
  Result<MethodMeta> meta = program->method_meta(name.get());
  if (!meta.ok()) return 0;
  fuzz::Pools pools;
  if (!pools.size_for(meta.get(), kCap, kPlannedCap, 16 << 10)) return 0;
  MemoryManager mm(&pools.method_alloc, &pools.hier, &pools.temp_alloc);
  Result<Method> method = program->load_method(name.get(), &mm, &diag);
  if (!method.ok()) return 0;
  std::vector<std::vector<uint8_t>> inputs(method->inputs_size());
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    const EValue& in = method->get_input(i);
    if (in.is_tensor()) {
      if (in.to_tensor().nbytes > kCap) return 0;
      inputs[i].assign(in.to_tensor().nbytes, 0);
      (void)method->set_input_data(i, inputs[i].data(), inputs[i].size());
    } else {
      (void)method->set_input(in, i);
    }
  }
  for (int run = 0; run < 2; ++run) {
    if (method->execute() != Error::Ok) return 0;
    for (size_t o = 0; o < method->outputs_size(); ++o) {
      const EValue& out = method->get_output(o);
      if (!out.is_tensor() || out.to_tensor().data == nullptr) continue;
      const Tensor& t = out.to_tensor();
      volatile uint8_t sink = 0;
      for (size_t b = 0; b < t.nbytes; ++b) sink ^= static_cast<const uint8_t*>(t.data)[b];
    }
    for (auto& in : inputs)
      if (!in.empty()) std::memset(in.data(), 0x41, in.size());
  }
  return 0;
}
