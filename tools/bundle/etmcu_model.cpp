// The bundle's C API (etmcu_model.h) over the etmcu runtime: one program, one method, pools sized
// for the target by ./etmcu bundle (etmcu_model_config.h). No heap and no static constructors:
// the runtime objects are built into static storage by etmcu_model_init().
#include "etmcu_model.h"

#include <stdint.h>

#include "etmcu_model_config.h"
#include "runtime/core/traits.h"
#include "runtime/executor/program.h"

extern "C" const uint8_t etmcu_model_pte[];
extern "C" const size_t etmcu_model_pte_size;

namespace {

using etmcu::Diagnostic;
using etmcu::Error;
using etmcu::HierarchicalAllocator;
using etmcu::MemoryAllocator;
using etmcu::MemoryManager;
using etmcu::Method;
using etmcu::Program;
using etmcu::Result;
using etmcu::Span;

constexpr size_t kNumPlanned = ETMCU_MODEL_NUM_PLANNED;
constexpr uint32_t kPlannedSizes[kNumPlanned + 1] = {ETMCU_MODEL_PLANNED_SIZES 0};
constexpr uint32_t kPlannedOffsets[kNumPlanned + 1] = {ETMCU_MODEL_PLANNED_OFFSETS 0};

// The pools (at least one byte each, so that an empty pool is still an array).
alignas(16) uint8_t g_method_pool[ETMCU_MODEL_METHOD_POOL_BYTES + 1];
alignas(16) uint8_t g_temp_pool[ETMCU_MODEL_TEMP_POOL_BYTES + 1];
alignas(16) uint8_t g_planned_pool[ETMCU_MODEL_PLANNED_BYTES + 1];

struct State {
  Diagnostic diag;
  Span<uint8_t> arenas[kNumPlanned + 1];
  HierarchicalAllocator planned;
  MemoryAllocator method_alloc;
  MemoryAllocator temp_alloc;
  MemoryManager memory;
  Result<Program> program;
  Result<Method> method;

  State()
      : planned(Span<Span<uint8_t> >(arenas, kNumPlanned)),
        method_alloc(g_method_pool, ETMCU_MODEL_METHOD_POOL_BYTES),
        temp_alloc(g_temp_pool, ETMCU_MODEL_TEMP_POOL_BYTES),
        memory(&method_alloc, &planned, &temp_alloc),
        program(Error::InvalidState),
        method(Error::InvalidState) {
    for (size_t j = 0; j < kNumPlanned; ++j)
      arenas[j] = Span<uint8_t>(g_planned_pool + kPlannedOffsets[j], kPlannedSizes[j]);
  }
};

alignas(State) unsigned char g_storage[sizeof(State)];
State* g_state = nullptr;

int code(Error e) { return static_cast<int>(e); }

}  // namespace

extern "C" int etmcu_model_init(void) {
  if (g_state != nullptr) {
    g_state->~State();
    g_state = nullptr;
  }
  State* s = new (g_storage) State();
  s->program.~Result<Program>();
  new (&s->program) Result<Program>(Program::load(
      Span<const uint8_t>(etmcu_model_pte, etmcu_model_pte_size), &s->diag, nullptr,
      Program::Verification::InternalConsistency));
  if (!s->program.ok()) return code(s->program.error());
  s->method.~Result<Method>();
  new (&s->method) Result<Method>(s->program->load_method(ETMCU_MODEL_METHOD_NAME, &s->memory,
                                                          &s->diag));
  if (!s->method.ok()) return code(s->method.error());
  g_state = s;
  return 0;
}

extern "C" int etmcu_model_set_input(size_t index, const void* data, size_t bytes) {
  if (g_state == nullptr) return code(Error::InvalidState);
  return code(g_state->method->set_input_data(index, data, bytes));
}

extern "C" int etmcu_model_run(void) {
  if (g_state == nullptr) return code(Error::InvalidState);
  return code(g_state->method->execute());
}

extern "C" const void* etmcu_model_output(size_t index, size_t* bytes) {
  if (g_state == nullptr || index >= g_state->method->outputs_size()) return nullptr;
  const etmcu::EValue& v = g_state->method->get_output(index);
  if (!v.is_tensor()) return nullptr;
  const etmcu::Tensor& t = v.to_tensor();
  if (bytes != nullptr) *bytes = t.nbytes;
  return t.data;
}

extern "C" const char* etmcu_model_error_text(int error) {
  return etmcu::error_name(static_cast<Error>(error));
}
