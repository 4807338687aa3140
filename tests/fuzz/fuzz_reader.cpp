// libFuzzer target: the reader alone. Program::load (full verification) and every MethodMeta
// accessor of every method (names, I/O tags and tensor metadata, planned buffer sizes, the
// method-allocator size), and every constant lookup. No method load: thousands of inputs/s.
#include "tests/fuzz/harness.h"

ETMCU_FUZZ_MUTATOR(etmcu::schema::kProgram)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etmcu;
  Span<const uint8_t> bytes = fuzz::aligned_copy(data, size);
  Diagnostic diag;
  Result<Program> program = Program::load(bytes, &diag);
  char text[256];
  format_diagnostic(diag, text, sizeof(text));
  if (!program.ok()) return 0;
  const PteFile& file = program->file();
  for (uint32_t k = 0; k < file.num_constants() && k < 256; ++k) (void)file.constant(k, 1, &diag);
  (void)file.constant_bytes();
  for (size_t m = 0; m < program->num_methods() && m < 64; ++m) {
    Result<const char*> name = program->get_method_name(m);
    if (!name.ok()) continue;
    Result<MethodMeta> meta = program->method_meta(name.get());
    if (!meta.ok()) continue;
    (void)meta->name();
    (void)meta->num_operators();
    (void)meta->num_backends();
    (void)meta->num_instructions();
    (void)meta->method_allocator_bytes();
    for (size_t j = 0; j < meta->num_memory_planned_buffers() && j < 64; ++j)
      (void)meta->memory_planned_buffer_size(j);
    for (size_t i = 0; i < meta->num_inputs() && i < 64; ++i) {
      (void)meta->input_tag(i);
      (void)meta->input_tensor_meta(i);
    }
    for (size_t i = 0; i < meta->num_outputs() && i < 64; ++i) {
      (void)meta->output_tag(i);
      (void)meta->output_tensor_meta(i);
    }
  }
  return 0;
}
