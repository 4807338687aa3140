// Footprint probe: the smallest program that uses the whole runtime core (load a .pte, load a
// method over caller pools, set an input, execute). Linked with an empty kernel table and a trivial
// PAL so the measured bytes are the core's alone.
#include "runtime/executor/program.h"

extern "C" void et_pal_abort(void) {
  for (;;) {
  }
}
// Used only when instruction hooks are on (the profiler reads it around every instruction).
extern "C" et_timestamp_t et_pal_current_ticks(void) {
  uint32_t cycles;
  __asm__ volatile(".insn i 0x73, 2, %0, x0, -1280" : "=r"(cycles));  // csrr %0, mcycle
  return cycles;
}

namespace etmcu {
Span<const KernelEntry> kernel_table() { return Span<const KernelEntry>(); }
}  // namespace etmcu

// Defined in size_model.c (compiled without LTO so the optimiser cannot see the bytes).
extern "C" const unsigned char g_model[];
extern "C" const unsigned g_model_size;
alignas(16) static unsigned char g_method_pool[1024];
alignas(16) static unsigned char g_planned_pool[256];
alignas(16) static float g_input[8];

int main() {
  using namespace etmcu;
  Diagnostic diag;
#ifdef SIZE_MINIMAL_VERIFICATION  // what firmware does with its build-verified program
  auto program = Program::load(Span<const uint8_t>(g_model, g_model_size), &diag, nullptr,
                               Program::Verification::Minimal);
#else
  auto program = Program::load(Span<const uint8_t>(g_model, g_model_size), &diag);
#endif
  if (!program.ok()) return 1;
  MemoryAllocator method_alloc(g_method_pool, sizeof(g_method_pool));
  Span<uint8_t> planned_span(g_planned_pool, sizeof(g_planned_pool));
  HierarchicalAllocator planned(Span<Span<uint8_t>>(&planned_span, 1));
  MemoryManager memory(&method_alloc, &planned);
  auto method = program->load_method("forward", &memory, &diag);
  if (!method.ok()) return 2;
  if (method->set_input_data(0, g_input, sizeof(g_input)) != Error::Ok) return 3;
  return method->execute() == Error::Ok ? 0 : 4;
}
