// Method: one loaded ExecutionPlan, ready to run. Holds the value table (EValues and tensors bound
// to planned memory or constants), the pre-resolved instruction list (kernels looked up once at
// load), and the initialised delegates. All of it lives in the caller's method allocator.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel.h"
#include "runtime/backend/backend.h"
#include "runtime/core/diagnostic.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/profiler.h"

namespace etmcu {

class PteFile;
class NamedDataMap;

// Upstream's cap on instructions executed by one execute() call (guards against endless jumps).
constexpr uint32_t kMaxInstructionsPerExecute = 10000000;

// One instruction, with everything resolved at load.
struct LoadedInstruction {
  uint8_t kind;       // schema::InstrTag
  uint32_t num_args;  // KernelCall / DelegateCall
  union {
    EValue** args;  // KernelCall / DelegateCall
    void* freed;    // FreeCall: the data pointer it cleared, restored by the next execute()
  };
  OpFunction kernel;  // KernelCall
  int32_t a;          // op index, delegate index, move_from, cond value, free value
  int32_t b;          // move_to, jump destination
};

struct LoadedDelegate {
  const BackendInterface* backend;
  DelegateHandle* handle;
};

// Optional per-instruction observer (debugging, intermediate-tensor checks). Consulted only in
// builds with ETMCU_INSTRUCTION_HOOKS=1 (see runtime/core/features.h).
struct InstructionObserver {
  void (*before)(void* ctx, uint32_t instruction) = nullptr;
  void (*after)(void* ctx, uint32_t instruction) = nullptr;
  void* ctx = nullptr;
};

// Everything a loaded Method holds: plain data, copied as one block when a Method moves.
struct MethodState {
  MethodMeta meta_;
  const PteFile* file_ = nullptr;
  MemoryManager* memory_ = nullptr;
  EValue* values_ = nullptr;
  uint32_t num_values_ = 0;
  const int32_t* inputs_ = nullptr;  // value indices (in the .pte)
  const int32_t* outputs_ = nullptr;
  uint32_t num_inputs_ = 0;
  uint32_t num_outputs_ = 0;
  uint8_t* input_set_ = nullptr;
  LoadedInstruction* instructions_ = nullptr;
  uint32_t num_instructions_ = 0;
  uint32_t* chain_starts_ = nullptr;  // num_chains_ + 1 entries
  uint32_t num_chains_ = 0;
  LoadedDelegate* delegates_ = nullptr;
  uint32_t num_delegates_ = 0;
  bool freed_ = false;  // a FreeCall cleared a tensor's data pointer during the last execute()
  Diagnostic diag_;
  InstructionObserver observer_;
  Profiler* profiler_ = nullptr;
};

class Method : private MethodState {
 public:
  Method(Method&& other);
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  ~Method();

  size_t inputs_size() const { return num_inputs_; }
  size_t outputs_size() const { return num_outputs_; }
  // Copies a tensor input into its planned memory (or, for an unplanned input, shares the caller's
  // pointer, which must stay valid). Dtype and shape must match the program's; scalars must match
  // the program's scalar kind.
  Error set_input(const EValue& input, size_t index);
  // Convenience: the raw bytes of tensor input `index` (exactly nbytes of the planned tensor).
  Error set_input_data(size_t index, const void* data, size_t nbytes);
  const EValue& get_input(size_t index) const;
  const EValue& get_output(size_t index) const;
  // Points an unplanned output tensor at caller memory.
  Error set_output_data_ptr(void* data, size_t nbytes, size_t index);

  // Runs every instruction. All inputs must have been set. Each call starts from the bindings
  // load_method made: a FreeCall clears its tensor's data pointer (as upstream's does) only until
  // the run ends, so a program with FreeCalls can be executed any number of times.
  Error execute();

  MethodMeta method_meta() const { return meta_; }
  size_t num_values() const { return num_values_; }
  const EValue& value(size_t i) const { return values_[i]; }
  size_t num_instructions() const { return num_instructions_; }
  const LoadedInstruction& instruction(size_t i) const { return instructions_[i]; }
  // Operator name of instruction i ("aten::add.out") for KernelCalls, else nullptr. Writes into
  // buf.
  const char* instruction_name(size_t i, char* buf, size_t size) const;
  // Why the last load/execute step failed (kernel text, instruction index, ...).
  const Diagnostic& diagnostic() const { return diag_; }
  // Both return NotSupported in builds without instruction hooks.
  Error set_observer(const InstructionObserver& observer);
  Error set_profiler(Profiler* profiler);

 private:
  friend class Program;
  friend class MethodLoader;
  Method() = default;
};

}  // namespace etmcu
