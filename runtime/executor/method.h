// Method: one loaded ExecutionPlan, ready to run. The program in flash stays the description of
// every value and instruction (verified once, at load); RAM holds only what changes at run time:
// slots for values that are set, moved, freed or written as scalars, one kernel per operator, the
// delegates, and a call buffer where each call's arguments are built just before it runs. All of
// it lives in the caller's method allocator (docs/runtime.md, "Method state").
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
class Program;

// Upstream's cap on instructions executed by one execute() call (guards against endless jumps).
// A build may set it lower: the fuzz targets' (CMakeLists.txt, ETMCU_FUZZ).
#ifndef ETMCU_MAX_INSTRUCTIONS_PER_EXECUTE
#define ETMCU_MAX_INSTRUCTIONS_PER_EXECUTE 10000000
#endif
constexpr uint32_t kMaxInstructionsPerExecute = ETMCU_MAX_INSTRUCTIONS_PER_EXECUTE;

// The persistent state of one value whose state changes at run time.
struct ValueSlot {
  EValue value;
  Tensor tensor;          // the value's tensor when it is one
  void* freed = nullptr;  // the data pointer a FreeCall cleared, restored by the next execute()
};

// 32 values of the slot map: which have a slot, and how many slots the values before them have
// (a value's slot is slots_[before + the set bits below its own]: O(1), no sorted list).
struct SlotWord {
  uint32_t bits;
  uint32_t before;
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
  fb::Vector values_fb_;  // the plan's values, in the verified program
  uint32_t num_values_ = 0;
  const SlotWord* slot_map_ = nullptr;  // one word per 32 values
  ValueSlot* slots_ = nullptr;          // in value order
  uint32_t num_slots_ = 0;
  const int32_t* inputs_ = nullptr;  // value indices (in the .pte)
  const int32_t* outputs_ = nullptr;
  uint32_t num_inputs_ = 0;
  uint32_t num_outputs_ = 0;
  uint8_t* input_set_ = nullptr;
  const KernelEntry** kernels_ = nullptr;  // one per operator, looked up at load
  uint32_t temp_needed_ = 0;               // the largest temp declaration of the method's calls
  uint32_t num_instructions_ = 0;
  uint32_t* chain_starts_ = nullptr;  // num_chains_ + 1 entries
  uint32_t num_chains_ = 0;
  LoadedDelegate* delegates_ = nullptr;
  uint32_t num_delegates_ = 0;
  // The call buffer: the arguments of the call being run, sized by the largest call at load.
  EValue** call_ptrs_ = nullptr;
  EValue* call_values_ = nullptr;
  Tensor* call_tensors_ = nullptr;
  uint32_t* call_tensor_ids_ = nullptr;  // the value each call tensor was built from
  int64_t* call_ints_ = nullptr;
  Tensor** call_items_ = nullptr;
  uint32_t max_call_args_ = 0;
  uint32_t max_call_tensors_ = 0;
  uint32_t max_call_ints_ = 0;
  uint32_t max_call_items_ = 0;
  uint32_t num_call_args_ = 0;
  // The constant segment (when the program keeps its constants there): base and offsets.
  const uint8_t* const_base_ = nullptr;
  fb::Vector const_offsets_;
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
  size_t num_instructions() const { return num_instructions_; }
  // Instruction i's kind (schema::kInstr*), 0 when i is out of range.
  uint8_t instruction_kind(size_t i) const;
  // The value indices a Kernel/DelegateCall passes (empty for other instructions).
  Span<const int32_t> call_arg_indices(size_t i) const;
  // The kernel of KernelCall i, nullptr for other instructions.
  OpFunction kernel(size_t i) const;
  // Builds the arguments of Kernel/DelegateCall i into the call buffer, as execute() does just
  // before the call; they stay valid until the next bind_call() or execute().
  Result<Span<EValue*>> bind_call(size_t i);
  // The arguments last built: inside an observer's callbacks, those of the running instruction.
  Span<EValue*> current_args() const { return Span<EValue*>(call_ptrs_, num_call_args_); }
  // Operator name of instruction i ("aten::add.out") for KernelCalls, else nullptr. Writes into
  // buf.
  const char* instruction_name(size_t i, char* buf, size_t size) const;
  // Bytes of the temp pool the largest of this method's kernel calls declared it takes (their
  // KernelEntry::temp_bytes, at load); the memory manager's temp allocator holds at least this.
  size_t temp_bytes_needed() const { return temp_needed_; }
  // Why the last load/execute step failed (kernel text, instruction index, ...).
  const Diagnostic& diagnostic() const { return diag_; }
  // Both return NotSupported in builds without instruction hooks.
  Error set_observer(const InstructionObserver& observer);
  Error set_profiler(Profiler* profiler);

 private:
  friend class Program;
  friend class MethodLoader;
  template <typename T>
  friend class Result;  // Program::load_method builds the Method in place
  Method() = default;
  fb::Table instruction_table(size_t i) const;
  ValueSlot* slot(uint32_t v) const;
  // (always inline: a call to it costs more than the test in the per-call argument building)
  __attribute__((always_inline)) bool has_slot(uint32_t v) const {
    return (slot_map_[v >> 5].bits >> (v & 31)) & 1;
  }
  EValue& slot_value(uint32_t v) const { return slot(v)->value; }  // v has a slot
  // Builds value v (from its slot, or from the program) into *out; `call` counts what it used of
  // the call buffer. build_tensor with `loading` also does load-time work (initial and external
  // data).
  struct CallUse {
    uint32_t tensors = 0, ints = 0, items = 0;
  };
  Error build_value(uint32_t v, EValue* out, CallUse& call, Diagnostic* diag);
  Result<Tensor*> tensor_of(uint32_t v, CallUse& call, Diagnostic* diag);
  // tensor_of for a value without a slot whose value table `val` the caller has read: nullptr
  // (diag set) when the call needs more tensors than planned.
  Tensor* call_tensor(uint32_t v, fb::Table val, CallUse& call, Diagnostic* diag);
  Error build_tensor(fb::Table t, uint32_t v, Tensor* out, const Program* loading,
                     Diagnostic* diag);
  // The run-time build of a tensor the load verified (or, under Verification::Minimal, the host):
  // no checks but the bounds that keep reads inside the method's own tables.
  void build_tensor_fast(fb::Table t, Tensor* out) const;
  Error bind_args(fb::Vector args, Diagnostic* diag);
};

}  // namespace etmcu
