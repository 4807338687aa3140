// Method: load (verification of every value and instruction, slots, memory-plan binding, kernel
// lookup, delegate init), the call buffer that builds each call's arguments, and the instruction
// loop.
#include "runtime/executor/method.h"

#include <string.h>

#include "kernels/api/alias_contract.h"
#include "runtime/core/features.h"
#include "runtime/executor/method_layout.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"
#include "runtime/pte/pte_named_data.h"
#include "runtime/pte/schema.h"

namespace etmcu {

namespace sp = schema::plan;
namespace st = schema::tensor;

namespace {
constexpr size_t kMaxOperatorName = 160;

// Bits set in x (no popcount instruction on rv32imc or v6-M, and libgcc's uses a 256-byte table).
__attribute__((always_inline)) inline uint32_t popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

// Hands out the blocks of one allocation whose size is their sum (MethodLayout::bytes, checked
// against the pool: size_t arithmetic cannot wrap), each rounded to 16 bytes; nullptr for an
// empty one.
struct Blocks {
  uint8_t* next;
  __attribute__((noinline)) void* take(uint32_t count, size_t size) {
    if (count == 0) return nullptr;
    void* p = next;
    next += (count * size + 15) & ~static_cast<size_t>(15);
    return p;
  }
};

// Builds "name.overload" (or "name") into buf; returns its length, 0 if it does not fit.
size_t operator_full_name(fb::Table table, char* buf, size_t size) {
  fb::Fields op(table);
  const uint8_t* name_ref = op.ref(schema::op::kName);
  const uint8_t* overload_ref = op.ref(schema::op::kOverload);
  fb::String name = name_ref != nullptr ? fb::string_at(name_ref) : fb::String{};
  fb::String overload = overload_ref != nullptr ? fb::string_at(overload_ref) : fb::String{};
  size_t n = name.size + (overload.size ? 1 + overload.size : 0);
  if (n + 1 > size) return 0;
  if (name.size) memcpy(buf, name.data, name.size);
  if (overload.size) {
    buf[name.size] = '.';
    memcpy(buf + name.size + 1, overload.data, overload.size);
  }
  buf[n] = '\0';
  return n;
}
}  // namespace

namespace {
Error fail_value(Diagnostic* diag, Error e, const char* what, uint32_t i) {
  return diag->fail(e, what, ET_TEXT("values"), i);
}

Result<NamedBlob> find_external(const Program& program, const PteFile* file, fb::String fqn) {
  if (program.external_data() != nullptr) {
    Result<NamedBlob> b = program.external_data()->get(fqn.data, fqn.size);
    if (b.ok()) return b;
  }
  PteNamedData own(file);
  return own.get(fqn.data, fqn.size);
}
}  // namespace

// Does the work of Program::load_method; a friend of Method. Load verifies every value and
// instruction execute() will read from the program, so execution never trusts unverified bytes;
// it keeps in RAM only the slots (see MethodLayout), one kernel per operator and the call buffer.
class MethodLoader {
 public:
  MethodLoader(const Program& program, fb::Table plan, MemoryManager* memory, Method& m,
               Diagnostic* diag)
      : program_(program),
        file_(&program.file()),
        plan_(plan),
        memory_(memory),
        m_(m),
        diag_(diag) {}

  Error load() {
    ET_CHECK_OR_RETURN(check_plan() == Error::Ok, diag_->error);
    layout_ = compute_method_layout(plan_, file_->flatbuffer_size());
    const MethodLayout& layout = layout_;
    if (ETMCU_BAD_PROGRAM(layout.refused != nullptr))
      return diag_->fail_numbers(Error::InvalidProgram, layout.refused, 0, kMaxCallArgs,
                                 ET_TEXT("method"));
    MemoryAllocator* alloc = memory_->method_allocator();
    if (alloc == nullptr)
      return diag_->fail(Error::InvalidArgument, ET_TEXT("MemoryManager has no method allocator"));
    const uint32_t bytes = layout.bytes();  // saturated at UINT32_MAX: more than any pool
    const size_t free_bytes = alloc->size() - alloc->used();
    const size_t pad =
        (16 - (reinterpret_cast<uintptr_t>(alloc->base() + alloc->used()) & 15)) & 15;
    if (bytes > free_bytes || pad > free_bytes - bytes)
      return diag_->fail_numbers(Error::MemoryAllocationFailed,
                                 ET_TEXT("method allocator too small (bytes)"),
                                 static_cast<int64_t>(free_bytes), int64_t{bytes} + int64_t(pad),
                                 ET_TEXT("method allocator"));
    // One allocation for every block (its size was checked above against the pool).
    void* base = alloc->allocate(static_cast<size_t>(bytes), 16);
    if (base == nullptr)
      return diag_->fail(Error::MemoryAllocationFailed,
                         ET_TEXT("method allocator failed a block its size check allowed"),
                         ET_TEXT("method allocator"));
    // Carved in MethodLayout::bytes' order (each block's bytes are part of that sum).
    Blocks blk{static_cast<uint8_t*>(base)};
    // (Counts near 2^32 need far more bytes than any pool, so none wraps here.)
    slot_map_ = static_cast<SlotWord*>(blk.take((layout.values + 31) / 32, sizeof(SlotWord)));
    m_.slots_ = static_cast<ValueSlot*>(blk.take(layout.slots, sizeof(ValueSlot)));
    m_.kernels_ =
        static_cast<const KernelEntry**>(blk.take(layout.operators, sizeof(const KernelEntry*)));
    m_.chain_starts_ = static_cast<uint32_t*>(blk.take(layout.chains + 1, sizeof(uint32_t)));
    m_.delegates_ =
        static_cast<LoadedDelegate*>(blk.take(layout.delegates, sizeof(LoadedDelegate)));
    m_.input_set_ = static_cast<uint8_t*>(blk.take(layout.inputs, 1));
    m_.call_ptrs_ = static_cast<EValue**>(blk.take(layout.call_args, sizeof(EValue*)));
    m_.call_values_ = static_cast<EValue*>(blk.take(layout.call_args, sizeof(EValue)));
    m_.call_tensors_ = static_cast<Tensor*>(blk.take(layout.call_tensors, sizeof(Tensor)));
    m_.call_tensor_ids_ = static_cast<uint32_t*>(blk.take(layout.call_tensors, sizeof(uint32_t)));
    m_.call_ints_ = static_cast<int64_t*>(blk.take(layout.call_ints, sizeof(int64_t)));
    m_.call_items_ = static_cast<Tensor**>(blk.take(layout.call_items, sizeof(Tensor*)));
    m_.values_fb_ = plan_.vector(sp::kValues);
    m_.num_values_ = layout.values;
    m_.max_call_args_ = layout.call_args;
    m_.max_call_tensors_ = layout.call_tensors;
    m_.max_call_ints_ = layout.call_ints;
    m_.max_call_items_ = layout.call_items;
    if (m_.input_set_ != nullptr) memset(m_.input_set_, 0, layout.inputs);
    // Constants in the constant segment (PteFile::parse checked its index and offsets).
    fb::Table cs = file_->program().table(schema::program::kConstantSegment);
    m_.const_offsets_ = cs.vector(schema::subseg::kOffsets);
    if (m_.const_offsets_.size > 0)
      m_.const_base_ = file_->segment(cs.scalar<uint32_t>(schema::subseg::kSegmentIndex)).data();
    for (uint32_t k = 0; k < layout.operators; ++k) m_.kernels_[k] = nullptr;

    ET_CHECK_OR_RETURN(check_planned_buffers() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(parse_io() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(collect_slots() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(verify_values() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(init_delegates() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(resolve_instructions() == Error::Ok, diag_->error);
    return Error::Ok;
  }

 private:
  Error check_plan() {
    const fb::Table& plan = plan_;
    const char* missing = nullptr;
    if (!plan.has(sp::kName))
      missing = ET_TEXT("ExecutionPlan.name missing");
    else if (!plan.has(sp::kValues))
      missing = ET_TEXT("ExecutionPlan.values missing");
    else if (!plan.has(sp::kInputs))
      missing = ET_TEXT("ExecutionPlan.inputs missing");
    else if (!plan.has(sp::kOutputs))
      missing = ET_TEXT("ExecutionPlan.outputs missing");
    else if (!plan.has(sp::kNonConstBufferSizes))
      missing = ET_TEXT("ExecutionPlan.non_const_buffer_sizes missing");
    else if (plan.vector(sp::kChains).size == 0)
      missing = ET_TEXT("ExecutionPlan has no chains");
    if (ETMCU_BAD_PROGRAM(missing != nullptr))
      return diag_->fail(Error::InvalidProgram, missing, ET_TEXT("method"));
    return Error::Ok;
  }

  Error check_planned_buffers() {
    fb::Vector sizes = plan_.vector(sp::kNonConstBufferSizes);
    HierarchicalAllocator* planned = memory_->planned_memory();
    size_t provided = planned != nullptr ? planned->num_buffers() : 0;
    for (uint32_t id = 1; id < sizes.size; ++id) {
      int64_t need = sizes.scalar<int64_t>(id);
      if (ETMCU_BAD_PROGRAM(need < 0))
        return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("negative planned buffer size"),
                                   need, 0, ET_TEXT("non_const_buffer_sizes"), id);
      if (need == 0) continue;
      if (id > provided)
        return diag_->fail_numbers(
            Error::MemoryAllocationFailed,
            ET_TEXT("planned buffer not provided; it must have this many bytes"), 0, need,
            ET_TEXT("planned buffer"), id - 1);
      size_t have = planned->buffer(id - 1).size();
      if (static_cast<uint64_t>(need) > have)
        return diag_->fail_numbers(
            Error::MemoryAllocationFailed, ET_TEXT("planned buffer too small (bytes)"),
            static_cast<int64_t>(have), need, ET_TEXT("planned buffer"), id - 1);
    }
    return Error::Ok;
  }

  Error fail_value(Error e, const char* what, uint32_t i) {
    return diag_->fail(e, what, ET_TEXT("values"), i);
  }

  void add_slot(int64_t v) {
    if (v >= 0 && v < layout_.values) slot_map_[v >> 5].bits |= 1u << (v & 31);
  }

  // The values with persistent state (the same candidates compute_method_layout counted; indices
  // out of range are left out here and reported by the passes that follow), as the slot map.
  Error collect_slots() {
    const uint32_t words = (layout_.values + 31) / 32;
    if (words) memset(slot_map_, 0, words * sizeof(SlotWord));
    m_.slot_map_ = slot_map_;
    for (uint32_t k = 0; k < m_.num_inputs_; ++k) add_slot(m_.inputs_[k]);
    for (uint32_t k = 0; k < m_.num_outputs_; ++k) add_slot(m_.outputs_[k]);
    fb::Vector values = m_.values_fb_;
    for (uint32_t i = 0; kFeatureExternalData && layout_.external_slots && i < values.size; ++i) {
      fb::Table v(values.ref(i));
      if (v.scalar<uint8_t>(schema::evalue::kValType) != schema::kTagTensor) continue;
      fb::Table extra = v.table(schema::evalue::kVal).table(st::kExtraTensorInfo);
      if (extra.valid() && extra.scalar<int8_t>(schema::extra::kLocation) == 1) add_slot(i);
    }
    fb::Vector chains = plan_.vector(sp::kChains);
    for (uint32_t c = 0; layout_.instruction_slots && c < chains.size; ++c) {
      fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
      for (uint32_t k = 0; k < instrs.size; ++k) {
        fb::Table in(instrs.ref(k));  // not the hot path: compact code
        uint8_t kind = in.scalar<uint8_t>(schema::instr::kArgsType);
        fb::Table args = in.table(schema::instr::kArgs);
        if (!kFeatureControlFlow &&
            (kind == schema::kInstrMoveCall || kind == schema::kInstrJumpFalseCall ||
             kind == schema::kInstrFreeCall)) {
          continue;  // refused by resolve_instructions
        } else if (kind == schema::kInstrMoveCall) {
          add_slot(args.scalar<int32_t>(schema::move::kFrom));
          add_slot(args.scalar<int32_t>(schema::move::kTo));
        } else if (kind == schema::kInstrJumpFalseCall || kind == schema::kInstrFreeCall) {
          add_slot(args.scalar<int32_t>(0));
        } else if (kind == schema::kInstrKernelCall || kind == schema::kInstrDelegateCall) {
          fb::Vector a = args.vector(schema::call::kArgs);
          for (uint32_t j = 0; j < a.size; ++j) {
            if (kind == schema::kInstrKernelCall && j + 1 != a.size) continue;
            int32_t v = a.scalar<int32_t>(j);
            if (v < 0 || static_cast<uint32_t>(v) >= values.size) continue;
            uint8_t t = fb::Table(values.ref(v)).scalar<uint8_t>(schema::evalue::kValType);
            if (t == schema::kTagInt || t == schema::kTagDouble || t == schema::kTagBool)
              add_slot(v);
          }
        }
      }
    }
    uint32_t n = 0;
    for (uint32_t w = 0; w < words; ++w) {
      slot_map_[w].before = n;
      n += popcount32(slot_map_[w].bits);
    }
    if (ETMCU_BAD_PROGRAM(n > layout_.slots))
      return diag_->fail_numbers(Error::InvalidProgram,
                                 ET_TEXT("slots differ from the method layout"), n, layout_.slots,
                                 ET_TEXT("method"));
    for (uint32_t i = 0; i < n; ++i) new (&m_.slots_[i]) ValueSlot();
    m_.num_slots_ = n;
    return Error::Ok;
  }

  // Checks every value execute() may build (the same build_tensor runs then) and fills the slots.
  // Pass 1: scalars and tensors. Pass 2: lists (they refer to other values by index).
  Error verify_values() {
    fb::Vector values = m_.values_fb_;
    // Under Verification::Minimal the host checked every value when it embedded the program:
    // only the slots are built here (and every tensor when one may carry initial data to copy).
    bool full = program_.verification() == Program::Verification::InternalConsistency ||
                kFeatureMutableData;
    if (!kFeatureLoadValueChecks &&
        program_.verification() == Program::Verification::InternalConsistency)
      return diag_->fail(Error::NotSupported,
                         ET_TEXT("runtime built with ETMCU_FEATURE_LOAD_VALUE_CHECKS=0 checks no "
                                 "value at load: load the program with Verification::Minimal"),
                         ET_TEXT("method"));
    uint32_t next_slot = 0;  // slots are in value order
    for (uint32_t i = 0; i < values.size; ++i) {
      if (!full) {  // the slots only: a word's remaining values without one are skipped at once
        const uint32_t rest = m_.slot_map_[i >> 5].bits >> (i & 31);
        if (rest == 0) i |= 31;
        if ((rest & 1) == 0) continue;
      }
      ValueSlot* s = m_.has_slot(i) ? &m_.slots_[next_slot++] : nullptr;
      fb::Table v(values.ref(i));
      uint8_t type = v.scalar<uint8_t>(schema::evalue::kValType);
      fb::Table val = v.table(schema::evalue::kVal);
      EValue e = EValue::from_span(Tag::None, nullptr, 0);  // every payload byte set
      switch (type) {
        case schema::kTagNull:
          break;
        case schema::kTagInt:
          e = EValue::from_int(val.scalar<int64_t>(0));
          break;
        case schema::kTagBool: {
          uint8_t b = val.scalar<uint8_t>(0);
          if (ETMCU_BAD_PROGRAM(b > 1))
            return fail_value(Error::InvalidProgram, ET_TEXT("Bool value is neither 0 nor 1"), i);
          e = EValue::from_bool(b != 0);
          break;
        }
        case schema::kTagDouble:
          e = EValue::from_double(val.scalar<double>(0));
          break;
        case schema::kTagString: {
          if (!kFeatureStrings)
            return fail_value(Error::NotSupported,
                              ET_TEXT("String value; runtime built with ETMCU_FEATURE_STRINGS=0"),
                              i);
          fb::String str = val.string(0);
          e = EValue::from_span(Tag::String, str.data != nullptr ? str.data : "", str.size);
          break;
        }
        case schema::kTagTensor: {
          if (ETMCU_BAD_PROGRAM(!val.valid()))
            return fail_value(Error::InvalidProgram, ET_TEXT("Tensor value without its table"), i);
          Tensor scratch;  // a tensor without a slot is rebuilt before each call reading it
          Tensor* t = s != nullptr ? &s->tensor : &scratch;
          if (!kFeatureLoadValueChecks && !kFeatureExternalData && !kFeatureMutableData)
            m_.build_tensor_fast(val, t);  // checked before (Minimal), nothing to copy
          else
            ET_CHECK_OR_RETURN(m_.build_tensor(val, i, t, &program_, diag_) == Error::Ok,
                               diag_->error);
          e = EValue::from_tensor(t);
          break;
        }
        case schema::kTagIntList:
        case schema::kTagDoubleList:
        case schema::kTagBoolList:
        case schema::kTagTensorList:
        case schema::kTagOptionalTensorList:
          if (!kFeatureLists)
            return fail_value(Error::NotSupported,
                              ET_TEXT("list value; runtime built with ETMCU_FEATURE_LISTS=0"), i);
          if (!kFeatureTensorLists && type >= schema::kTagTensorList)
            return fail_value(
                Error::NotSupported,
                ET_TEXT("tensor list value; runtime built with ETMCU_FEATURE_TENSOR_LISTS=0"), i);
          // A slot would keep pointers into the call buffer.
          if (s != nullptr)
            return fail_value(Error::NotSupported,
                              ET_TEXT("list value as a method input/output or Move/JumpFalse/Free "
                                      "operand is not supported"),
                              i);
          break;  // pass 2
        default:
          return fail_value(Error::InvalidProgram, ET_TEXT("EValue without a known type"), i);
      }
      if (s != nullptr) s->value = e;
    }
    if (!kFeatureLists || !full || !kFeatureLoadValueChecks) return Error::Ok;
    // Unshared, every list item takes at least 4 bytes of the flatbuffer: more means tables shared
    // many times over, which would make this pass slow (2^32 reads for 2^16 x 2^16 items).
    uint64_t total = 0;
    for (uint32_t i = 0; i < values.size; ++i) {
      fb::Table v(values.ref(i));
      uint8_t type = v.scalar<uint8_t>(schema::evalue::kValType);
      if (type >= schema::kTagIntList && type <= schema::kTagOptionalTensorList)
        total += v.table(schema::evalue::kVal).vector(0).size;
    }
    if (total > file_->flatbuffer_size() / 4)
      return diag_->fail(
          Error::InvalidProgram,
          ET_TEXT("list items repeated through shared tables beyond the program's size"),
          ET_TEXT("values"));
    for (uint32_t i = 0; i < values.size; ++i) {
      fb::Table v(values.ref(i));
      uint8_t type = v.scalar<uint8_t>(schema::evalue::kValType);
      bool is_list = type >= schema::kTagIntList && type <= schema::kTagOptionalTensorList;
      if (!is_list) continue;
      fb::Vector items = v.table(schema::evalue::kVal).vector(0);
      for (uint32_t k = 0; k < items.size; ++k) {
        if (type == schema::kTagIntList) {
          int64_t ref = items.scalar<int64_t>(k);
          if (ref < 0 || ref >= values.size ||
              type_of(static_cast<uint32_t>(ref)) != schema::kTagInt)
            return fail_value(Error::InvalidProgram,
                              ET_TEXT("IntList item does not refer to an Int value"), i);
        } else if (type == schema::kTagBoolList) {
          if (items.scalar<uint8_t>(k) > 1)
            return fail_value(Error::InvalidProgram, ET_TEXT("BoolList item is neither 0 nor 1"),
                              i);
        } else if (type >= schema::kTagTensorList) {
          int32_t ref = items.scalar<int32_t>(k);
          if (type == schema::kTagOptionalTensorList && ref == -1) continue;
          if (ref < 0 || static_cast<uint32_t>(ref) >= values.size ||
              type_of(static_cast<uint32_t>(ref)) != schema::kTagTensor)
            return fail_value(Error::InvalidProgram,
                              ET_TEXT("TensorList item does not refer to a Tensor value"), i);
        }
      }
    }
    return Error::Ok;
  }

  uint8_t type_of(uint32_t v) const {
    return fb::Table(m_.values_fb_.ref(v)).scalar<uint8_t>(schema::evalue::kValType);
  }

  Error parse_io() {
    fb::Vector in = plan_.vector(sp::kInputs);
    fb::Vector out = plan_.vector(sp::kOutputs);
    for (uint32_t k = 0; k < in.size; ++k)
      if (ETMCU_BAD_PROGRAM(in.scalar<int32_t>(k) < 0 ||
                            static_cast<uint32_t>(in.scalar<int32_t>(k)) >= layout_.values))
        return diag_->fail(Error::InvalidProgram, ET_TEXT("input value index out of range"),
                           ET_TEXT("inputs"), k);
    for (uint32_t k = 0; k < out.size; ++k)
      if (ETMCU_BAD_PROGRAM(out.scalar<int32_t>(k) < 0 ||
                            static_cast<uint32_t>(out.scalar<int32_t>(k)) >= layout_.values))
        return diag_->fail(Error::InvalidProgram, ET_TEXT("output value index out of range"),
                           ET_TEXT("outputs"), k);
    m_.inputs_ = in.data<int32_t>();
    m_.num_inputs_ = in.size;
    m_.outputs_ = out.data<int32_t>();
    m_.num_outputs_ = out.size;
    return Error::Ok;
  }

  Error init_delegates() {
    fb::Vector delegates = plan_.vector(sp::kDelegates);
    if (!kFeatureDelegates) {
      if (delegates.size == 0) return Error::Ok;
      return diag_->fail(
          Error::NotSupported,
          ET_TEXT("program has delegates; runtime built with ETMCU_FEATURE_DELEGATES=0"),
          ET_TEXT("delegates"), 0);
    }
    PteNamedData named(file_);
    for (uint32_t d = 0; d < delegates.size; ++d) {
      fb::Table del(delegates.ref(d));
      fb::String id = del.string(schema::delegate::kId);
      fb::Table ref = del.table(schema::delegate::kProcessed);
      if (!ref.valid())
        return diag_->fail(Error::InvalidProgram,
                           ET_TEXT("delegate has no processed data reference"),
                           ET_TEXT("delegates"), d);
      uint32_t index = ref.scalar<uint32_t>(schema::dataref::kIndex);
      Span<const uint8_t> payload;
      if (ref.scalar<int8_t>(schema::dataref::kLocation) == 0) {
        fb::Vector inline_data = file_->program().vector(schema::program::kBackendDelegateData);
        if (index >= inline_data.size)
          return diag_->fail_numbers(Error::InvalidProgram,
                                     ET_TEXT("inline delegate data index out of range"), index,
                                     inline_data.size, ET_TEXT("delegates"), d);
        fb::Vector bytes = fb::Table(inline_data.ref(index)).vector(0);
        payload = Span<const uint8_t>(bytes.base, bytes.size);
      } else {
        if (index >= file_->num_segments())
          return diag_->fail_numbers(Error::InvalidProgram,
                                     ET_TEXT("delegate segment index out of range"), index,
                                     file_->num_segments(), ET_TEXT("delegates"), d);
        payload = file_->segment(index);
      }
      const BackendInterface* backend = find_backend(id.data, id.size);
      if (backend == nullptr) {
        diag_->fail(Error::NotFound, ET_TEXT("backend not linked into this runtime"),
                    ET_TEXT("delegates"), d);
        diag_->set_name(id.data, id.size);
        return Error::NotFound;
      }
      if (!backend->is_available()) {
        diag_->fail(Error::NotSupported, ET_TEXT("backend not available on this device"),
                    ET_TEXT("delegates"), d);
        diag_->set_name(id.data, id.size);
        return Error::NotSupported;
      }
      BackendInitContext ctx{memory_->method_allocator(), &named, m_.meta_.name()};
      Result<DelegateHandle*> handle =
          backend->init(ctx, payload, CompileSpecs(del.vector(schema::delegate::kCompileSpecs)));
      if (!handle.ok()) {
        diag_->fail(handle.error(), ET_TEXT("backend init failed"), ET_TEXT("delegates"), d);
        diag_->set_name(id.data, id.size);
        return handle.error();
      }
      m_.delegates_[d] = LoadedDelegate{backend, handle.get()};
      m_.num_delegates_ = d + 1;
    }
    return Error::Ok;
  }

  Error check_index(int32_t v, uint32_t instr) {
    if (ETMCU_BAD_PROGRAM(v < 0 || static_cast<uint32_t>(v) >= m_.num_values_))
      return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("value index out of range"), v,
                                 static_cast<int64_t>(m_.num_values_) - 1, ET_TEXT("instruction"),
                                 instr);
    return Error::Ok;
  }

  Error resolve_control_flow(uint8_t kind, int32_t a, int32_t b, uint32_t n, uint32_t chain_size) {
    ET_CHECK_OR_RETURN(check_index(a, n) == Error::Ok, diag_->error);
    const EValue& v = m_.slot_value(static_cast<uint32_t>(a));  // collect_slots gave it one
    switch (kind) {
      case schema::kInstrMoveCall:
        ET_CHECK_OR_RETURN(check_index(b, n) == Error::Ok, diag_->error);
        return Error::Ok;
      case schema::kInstrJumpFalseCall:
        if (b < 0 || static_cast<uint32_t>(b) > chain_size)
          return diag_->fail_numbers(Error::InvalidProgram,
                                     ET_TEXT("jump destination out of range"), b, chain_size,
                                     ET_TEXT("instruction"), n);
        if (!v.is_bool() && !v.is_tensor())
          return diag_->fail(Error::InvalidProgram,
                             ET_TEXT("jump condition is neither Bool nor a tensor"),
                             ET_TEXT("instruction"), n);
        return Error::Ok;
      default:  // FreeCall
        if (!v.is_tensor())
          return diag_->fail(Error::InvalidProgram,
                             ET_TEXT("FreeCall on a value that is not a tensor"),
                             ET_TEXT("instruction"), n);
        return Error::Ok;
    }
  }

  // Refuses a memory plan in which a kernel call's out overlaps one of its input tensors except
  // as the op's alias contract allows (kernels/api/alias_contract.h: exactly the same bytes,
  // shape, dtype and dim order, or the out starting at least the op's offset-overlap distance
  // before the input): the kernel would overwrite input bytes it has yet to read.
  // The out is the returned value (the last argument): a tensor, or a list of tensors.
  // Builds for programs without any such overlap leave it out (ETMCU_FEATURE_ALIAS_CHECK=0,
  // from `inspect --features`): the host checked the embedded program when it was built.
  __attribute__((noinline)) Error check_overlaps(Span<EValue*> args, const char* name, size_t len,
                                                 uint32_t n) {
    if (args.size() < 2) return Error::Ok;
    const EValue* ret = args[args.size() - 1];
    Tensor* single = nullptr;
    Span<Tensor* const> outs;
    if (ret->is_tensor()) {
      single = &ret->to_tensor();
      outs = Span<Tensor* const>(&single, 1);
    } else if (ret->is_tensor_list()) {
      outs = ret->to_tensor_list();
    }
    uint32_t allowed = inplace_args_of(name, len);
    for (size_t o = 0; o < outs.size(); ++o) {
      const Tensor* out = outs[o];
      if (out == nullptr || out->data == nullptr || out->nbytes == 0) continue;
      const uintptr_t ob = reinterpret_cast<uintptr_t>(out->data);
      for (uint32_t j = 0; j + 1 < args.size(); ++j) {
        const EValue* a = args[j];
        if (!a->is_tensor() || a == ret) continue;
        const Tensor& in = a->to_tensor();
        if (&in == out || in.data == nullptr || in.nbytes == 0) continue;
        bool is_out = false;  // the out tensor(s) again, before the returned value
        for (size_t k = 0; k < outs.size(); ++k) is_out |= outs[k] == &in;
        if (is_out) continue;
        const uintptr_t ib = reinterpret_cast<uintptr_t>(in.data);
        if (ib + in.nbytes <= ob || ob + out->nbytes <= ib) continue;
        bool exact = ib == ob && in.nbytes == out->nbytes && in.dtype == out->dtype &&
                     in.same_shape(*out) && in.same_dim_order(*out);
        if (j < 32 && (allowed >> j & 1u) && exact) continue;
        // Offset-overlap contract: the out may start at least d bytes before this input (or
        // after it, for kernels that then run their loops last to first).
        const bool after = ob > ib;
        const int64_t d = overlap_min_distance(name, len, args, j, *out, after);
        if (d >= 0 && static_cast<int64_t>(after ? ob - ib : ib - ob) >= d) continue;
        diag_->fail_numbers(Error::InvalidProgram,
                            exact ? ET_TEXT("memory plan puts an op's out on an input its kernel "
                                            "does not declare in-place (argument, byte distance "
                                            "out - input)")
                                  : ET_TEXT("memory plan overlaps an op's out with an input "
                                            "(argument, byte distance out - input)"),
                            j, static_cast<int64_t>(ob) - static_cast<int64_t>(ib),
                            ET_TEXT("instruction"), n);
        diag_->set_name(name, len);
        return Error::InvalidProgram;
      }
    }
    return Error::Ok;
  }

  Error resolve_instructions() {
    fb::Vector chains = plan_.vector(sp::kChains);
    fb::Vector ops = plan_.vector(sp::kOperators);
    uint32_t n = 0;
    if (ETMCU_BAD_PROGRAM(chains.size != layout_.chains))
      return diag_->fail(Error::InvalidProgram, ET_TEXT("chains differ from the method layout"),
                         ET_TEXT("instruction"));
    for (uint32_t c = 0; c < chains.size; ++c) {
      m_.chain_starts_[c] = n;
      fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
      if (ETMCU_BAD_PROGRAM(instrs.size > layout_.instructions - n))
        return diag_->fail(Error::InvalidProgram,
                           ET_TEXT("instructions differ from the method layout"),
                           ET_TEXT("instruction"), n);
      for (uint32_t k = 0; k < instrs.size; ++k, ++n) {
        fb::Fields in(fb::Table(instrs.ref(k)));
        uint8_t kind = in.scalar<uint8_t>(schema::instr::kArgsType);
        fb::Fields args(in.table(schema::instr::kArgs));
        int32_t a = args.scalar<int32_t>(0), b = args.scalar<int32_t>(1);
        switch (kind) {
          case schema::kInstrKernelCall:
          case schema::kInstrDelegateCall: {
            fb::Vector av = args.vector(schema::call::kArgs);
            if (ETMCU_BAD_PROGRAM(av.size > layout_.call_args))
              return diag_->fail(Error::InvalidProgram,
                                 ET_TEXT("call arguments differ from the method layout"),
                                 ET_TEXT("instruction"), n);
            if (ETMCU_BAD_PROGRAM(n == layout_.bad_argument))  // an index out of range here
              for (uint32_t j = 0; j < av.size; ++j)
                ET_CHECK_OR_RETURN(check_index(av.scalar<int32_t>(j), n) == Error::Ok,
                                   diag_->error);
            if (kind == schema::kInstrDelegateCall) {
              if (a < 0 || static_cast<uint32_t>(a) >= m_.num_delegates_)
                return diag_->fail_numbers(Error::InvalidProgram,
                                           ET_TEXT("delegate_index out of range"), a,
                                           m_.num_delegates_, ET_TEXT("instruction"), n);
              break;
            }
            if (ETMCU_BAD_PROGRAM(a < 0 || static_cast<uint32_t>(a) >= ops.size))
              return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("op_index out of range"), a,
                                         ops.size, ET_TEXT("instruction"), n);
            const KernelEntry*& kernel = m_.kernels_[a];
            bool need_name = (kFeatureKernelNames && kernel == nullptr) || kFeatureAliasCheck;
            char name[kMaxOperatorName];
            size_t len = 0;
            if (need_name) {
              len = operator_full_name(fb::Table(ops.ref(static_cast<uint32_t>(a))), name,
                                       sizeof(name));
              if (len == 0)
                return diag_->fail(Error::InvalidProgram,
                                   ET_TEXT("operator name empty or too long"),
                                   ET_TEXT("instruction"), n);
            }
            if (kernel == nullptr) {  // once per operator
              if constexpr (kFeatureKernelNames) {
                kernel = find_kernel_entry(name, len);
              } else {  // the table is the operator list (features.h)
                const Span<const KernelEntry> table = kernel_table();
                if (static_cast<uint32_t>(a) < table.size()) kernel = &table[a];
              }
              if (kernel != nullptr && kernel->fn == nullptr) kernel = nullptr;  // an empty row
            }
            const bool temp =
                kFeatureKernelTemp && kernel != nullptr && kernel->temp_bytes != nullptr;
            if (kFeatureAliasCheck || temp)
              ET_CHECK_OR_RETURN(m_.bind_args(av, diag_) == Error::Ok, diag_->error);
            if (kFeatureAliasCheck)
              ET_CHECK_OR_RETURN(check_overlaps(m_.current_args(), name, len, n) == Error::Ok,
                                 diag_->error);
            if (temp) {
              const uint32_t t = kernel->temp_bytes(m_.current_args());
              if (t > m_.temp_needed_) {
                m_.temp_needed_ = t;
                temp_at_ = n;
              }
            }
            if (kernel == nullptr && missing_ == 0) {
              // Reported after every instruction was checked: structural errors come first.
              if (kFeatureKernelNames) memcpy(missing_name_, name, len + 1);
              first_missing_ = n;
            }
            missing_ += kernel == nullptr ? 1 : 0;
            break;
          }
          case schema::kInstrMoveCall:
          case schema::kInstrJumpFalseCall:
          case schema::kInstrFreeCall:
            if (!kFeatureControlFlow)
              return diag_->fail(
                  Error::NotSupported,
                  ET_TEXT(
                      "Move/JumpFalse/FreeCall; runtime built with ETMCU_FEATURE_CONTROL_FLOW=0"),
                  ET_TEXT("instruction"), n);
            ET_CHECK_OR_RETURN(resolve_control_flow(kind, a, b, n, instrs.size) == Error::Ok,
                               diag_->error);
            break;
          default:
            if (!kFeatureLoadValueChecks) break;  // (the kinds were checked before)
            return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("unknown instruction type"),
                                       kind, 5, ET_TEXT("instruction"), n);
        }
      }
    }
    m_.chain_starts_[chains.size] = n;
    m_.num_chains_ = chains.size;
    m_.num_instructions_ = n;
    m_.num_call_args_ = 0;
    if (missing_ > 0) {
      diag_->fail_numbers(
          Error::OperatorMissing,
          ET_TEXT("no kernel linked for operator (the numbers count calls without a kernel)"),
          missing_, 0, ET_TEXT("instruction"), first_missing_);
      if (kFeatureKernelNames) diag_->set_name(missing_name_, strlen(missing_name_));
      return Error::OperatorMissing;
    }
    if (kFeatureKernelTemp) {
      const MemoryAllocator* temp = memory_->temp_allocator();
      const size_t have = temp != nullptr ? temp->size() : 0;
      if (m_.temp_needed_ > have)
        return diag_->fail_numbers(
            Error::MemoryAllocationFailed,
            ET_TEXT(
                "temp pool too small for a kernel's buffer (bytes; the instruction needing most)"),
            static_cast<int64_t>(have), m_.temp_needed_, ET_TEXT("instruction"), temp_at_);
    }
    return Error::Ok;
  }
  MethodLayout layout_;
  uint32_t missing_ = 0;
  uint32_t first_missing_ = 0;
  uint32_t temp_at_ = 0;                 // the call with the largest temp declaration
  char missing_name_[kMaxOperatorName];  // written before it is read (missing_ > 0)

  const Program& program_;
  const PteFile* file_;
  fb::Table plan_;
  MemoryManager* memory_;
  Method& m_;
  Diagnostic* diag_;
  SlotWord* slot_map_ = nullptr;
};

Error Method::build_tensor(fb::Table t, uint32_t i, Tensor* out, const Program* loading,
                           Diagnostic* diag) {
  int8_t dtype = t.scalar<int8_t>(st::kScalarType);
  if (!is_valid_scalar_type(dtype))
    return diag->fail_numbers(Error::InvalidProgram, ET_TEXT("Tensor.scalar_type unknown"), dtype,
                              6, ET_TEXT("values"), i);
  fb::Vector sizes = t.vector(st::kSizes);
  fb::Vector order = t.vector(st::kDimOrder);
  if (sizes.size > static_cast<uint32_t>(kTensorMaxDim))
    return diag->fail_numbers(Error::InvalidProgram, ET_TEXT("Tensor has too many dims"),
                              sizes.size, kTensorMaxDim, ET_TEXT("values"), i);
  if (order.size != sizes.size)
    return diag->fail_numbers(Error::InvalidProgram,
                              ET_TEXT("Tensor.dim_order length differs from sizes length"),
                              order.size, sizes.size, ET_TEXT("values"), i);
  uint32_t seen = 0;
  for (uint32_t d = 0; d < order.size; ++d) {
    uint8_t o = order.scalar<uint8_t>(d);
    if (o >= order.size || (seen & (1u << o)))
      return fail_value(diag, Error::InvalidProgram,
                        ET_TEXT("Tensor.dim_order is not a permutation"), i);
    seen |= 1u << o;
  }
  if (t.scalar<int32_t>(st::kStorageOffset) != 0)
    return fail_value(diag, Error::NotSupported, ET_TEXT("Tensor.storage_offset must be 0"), i);
  if (t.scalar<int8_t>(st::kShapeDynamism) == 2)
    return fail_value(diag, Error::NotSupported,
                      ET_TEXT("dynamic unbound tensor shapes are not supported"), i);
  size_t esize = element_size(static_cast<ScalarType>(dtype));
  uint64_t nbytes = esize;
  for (uint32_t d = 0; d < sizes.size; ++d) {
    int32_t s = sizes.scalar<int32_t>(d);
    if (s < 0)
      return diag->fail_numbers(Error::InvalidProgram, ET_TEXT("Tensor.sizes has a negative size"),
                                s, 0, ET_TEXT("values"), i);
    nbytes *= static_cast<uint64_t>(s);
    if (nbytes > (static_cast<uint64_t>(1) << 31))
      return fail_value(diag, Error::InvalidProgram, ET_TEXT("Tensor larger than 2 GiB"), i);
  }
  out->dtype = static_cast<ScalarType>(dtype);
  out->dim = static_cast<uint8_t>(sizes.size);
  out->sizes = sizes.data<int32_t>();
  out->dim_order = order.data<uint8_t>();
  out->nbytes = static_cast<size_t>(nbytes);
  out->data = nullptr;

  fb::Table alloc = t.table(st::kAllocationInfo);
  uint8_t* planned = nullptr;
  if (alloc.valid()) {
    uint32_t id = alloc.scalar<uint32_t>(schema::alloc::kMemoryId);
    uint64_t offset =
        (static_cast<uint64_t>(alloc.scalar<uint32_t>(schema::alloc::kOffsetHigh)) << 32) |
        alloc.scalar<uint32_t>(schema::alloc::kOffsetLow);
    fb::Vector buf_sizes = meta_.plan().vector(sp::kNonConstBufferSizes);
    if (id == 0 || id >= buf_sizes.size)
      return diag->fail_numbers(Error::InvalidProgram,
                                ET_TEXT("AllocationDetails.memory_id out of range"), id,
                                static_cast<int64_t>(buf_sizes.size) - 1, ET_TEXT("values"), i);
    uint64_t arena = static_cast<uint64_t>(buf_sizes.scalar<int64_t>(id));
    if (offset > arena || nbytes > arena - offset)
      return diag->fail_numbers(
          Error::InvalidProgram,
          ET_TEXT("planned tensor runs past the end of its buffer (end offset vs buffer size)"),
          // The end offset, saturated: offset + nbytes may not fit 64 bits.
          offset > INT64_MAX - nbytes ? INT64_MAX : static_cast<int64_t>(offset + nbytes),
          static_cast<int64_t>(arena), ET_TEXT("values"), i);
    planned = memory_->planned_memory()->address(id, offset, static_cast<size_t>(nbytes));
    if (planned == nullptr && nbytes != 0)
      return fail_value(diag, Error::MemoryAllocationFailed,
                        ET_TEXT("planned tensor outside the provided buffer"), i);
    if (planned == nullptr)
      planned =
          memory_->planned_memory() != nullptr && memory_->planned_memory()->num_buffers() >= id
              ? memory_->planned_memory()->buffer(id - 1).data()
              : nullptr;
  }

  fb::Table extra = t.table(st::kExtraTensorInfo);
  uint32_t buffer_idx = t.scalar<uint32_t>(st::kDataBufferIdx);
  if (extra.valid() && extra.scalar<int8_t>(schema::extra::kLocation) == 1) {
    if (!kFeatureExternalData)
      return fail_value(
          diag, Error::NotSupported,
          ET_TEXT("external tensor; runtime built with ETMCU_FEATURE_EXTERNAL_DATA=0"), i);
    // EXTERNAL: bytes from a .ptd (or the .pte's named_data), looked up by fully qualified name.
    fb::String fqn = extra.string(schema::extra::kFullyQualifiedName);
    if (loading == nullptr)  // external tensors have slots: bound once, at load
      return fail_value(diag, Error::InvalidState, ET_TEXT("external tensor outside load"), i);
    Result<NamedBlob> blob = find_external(*loading, file_, fqn);
    if (!blob.ok()) {
      diag->fail(Error::InvalidExternalData,
                 ET_TEXT("external tensor not found in the external data (pass the .ptd)"),
                 ET_TEXT("values"), i);
      diag->set_name(fqn.data, fqn.size);
      return Error::InvalidExternalData;
    }
    const NamedBlob& b = blob.get();
    if (b.layout.present) {
      bool same = b.layout.dtype == out->dtype && b.layout.dim == out->dim;
      for (uint32_t d = 0; same && d < out->dim; ++d)
        same = b.layout.sizes[d] == out->sizes[d] && b.layout.dim_order[d] == out->dim_order[d];
      if (!same) {
        diag->fail(
            Error::InvalidExternalData,
            ET_TEXT("external tensor layout (dtype/sizes/dim_order) differs from the program's"),
            ET_TEXT("values"), i);
        diag->set_name(fqn.data, fqn.size);
        return Error::InvalidExternalData;
      }
    }
    if (b.bytes.size() < nbytes) {
      diag->fail_numbers(Error::InvalidExternalData, ET_TEXT("external tensor data too small"),
                         static_cast<int64_t>(b.bytes.size()), static_cast<int64_t>(nbytes),
                         ET_TEXT("values"), i);
      diag->set_name(fqn.data, fqn.size);
      return Error::InvalidExternalData;
    }
    if (planned != nullptr) {
      if (nbytes) memcpy(planned, b.bytes.data(), static_cast<size_t>(nbytes));
      out->data = planned;
    } else {
      out->data = const_cast<uint8_t*>(b.bytes.data());
    }
  } else if (buffer_idx > 0 && planned == nullptr) {
    ET_TRY(const uint8_t* data, file_->constant(buffer_idx, static_cast<size_t>(nbytes), diag));
    out->data = const_cast<uint8_t*>(data);  // constants are never written by kernels
  } else if (buffer_idx > 0) {
    // Planned with initial contents from mutable_data_segments[0].
    if (!kFeatureMutableData)
      return fail_value(
          diag, Error::NotSupported,
          ET_TEXT("tensor with initial data; runtime built with ETMCU_FEATURE_MUTABLE_DATA=0"), i);
    fb::Vector mds = file_->program().vector(schema::program::kMutableDataSegments);
    if (mds.size == 0)
      return fail_value(
          diag, Error::InvalidProgram,
          ET_TEXT("tensor has initial data but the program has no mutable_data_segments"), i);
    fb::Table sub(mds.ref(0));
    fb::Vector offs = sub.vector(schema::subseg::kOffsets);
    uint32_t seg = sub.scalar<uint32_t>(schema::subseg::kSegmentIndex);
    if (buffer_idx >= offs.size || seg >= file_->num_segments())
      return fail_value(diag, Error::InvalidProgram, ET_TEXT("mutable data index out of range"), i);
    Span<const uint8_t> bytes = file_->segment(seg);
    uint64_t off = offs.scalar<uint64_t>(buffer_idx);
    if (off > bytes.size() || nbytes > bytes.size() - off)
      return fail_value(diag, Error::InvalidProgram,
                        ET_TEXT("mutable data runs past the end of its segment"), i);
    if (nbytes && loading != nullptr)  // the initial contents, copied once at load
      memcpy(planned, bytes.data() + off, static_cast<size_t>(nbytes));
    out->data = planned;
  } else {
    out->data = planned;  // planned, or nullptr until set_input / set_output_data_ptr
  }
  size_t align = esize > 8 ? 8 : esize;
  if (out->data != nullptr && nbytes != 0 && reinterpret_cast<uintptr_t>(out->data) % align != 0)
    return fail_value(diag, Error::InvalidProgram,
                      ET_TEXT("tensor data misaligned for its element type"), i);
  return Error::Ok;
}

void Method::build_tensor_fast(fb::Table table, Tensor* out) const {
  fb::Fields t(table);
  fb::Vector sizes = t.vector(st::kSizes);
  out->dtype = static_cast<ScalarType>(t.scalar<int8_t>(st::kScalarType));
  out->dim = static_cast<uint8_t>(sizes.size);
  out->sizes = sizes.data<int32_t>();
  out->dim_order = t.vector(st::kDimOrder).data<uint8_t>();
  size_t nbytes = element_size(out->dtype);
  // (a pointer walk tested at its end: about half the cycles a dim of the indexed loop)
  if (sizes.size != 0) {
    const int32_t *d = sizes.data<int32_t>(), *end = d + sizes.size;
    do nbytes *= static_cast<uint32_t>(*d++);
    while (d != end);
  }
  out->nbytes = nbytes;
  out->data = nullptr;
  fb::Table alloc = t.table(st::kAllocationInfo);
  if (alloc.valid()) {
    fb::Fields a(alloc);
    uint32_t id = a.scalar<uint32_t>(schema::alloc::kMemoryId);
    uint64_t offset =
        (static_cast<uint64_t>(a.scalar<uint32_t>(schema::alloc::kOffsetHigh)) << 32) |
        a.scalar<uint32_t>(schema::alloc::kOffsetLow);
    HierarchicalAllocator* planned = memory_->planned_memory();
    if (planned == nullptr) return;
    out->data = planned->address(id, offset, nbytes);
    if (out->data == nullptr && id > 0 && planned->num_buffers() >= id)
      out->data = planned->buffer(id - 1).data();  // an empty tensor, as load binds it
    return;
  }
  uint32_t k = t.scalar<uint32_t>(st::kDataBufferIdx);
  if (k == 0) return;  // unplanned, never set: only inputs/outputs (slots) get data
  if (const_base_ != nullptr) {
    if (k < const_offsets_.size)
      out->data = const_cast<uint8_t*>(const_base_ + const_offsets_.scalar<uint64_t>(k));
    return;
  }
  if (!kFeatureConstantBuffer) return;  // no constant segment: the program has no constants
  Diagnostic ignored;                   // checked at load
  Result<const uint8_t*> data = file_->constant(k, nbytes, &ignored);
  if (data.ok()) out->data = const_cast<uint8_t*>(data.get());
}

ValueSlot* Method::slot(uint32_t v) const {
  if (v >= num_values_) return nullptr;
  const SlotWord& w = slot_map_[v >> 5];
  const uint32_t bit = 1u << (v & 31);
  if ((w.bits & bit) == 0) return nullptr;
  return &slots_[w.before + popcount32(w.bits & (bit - 1))];
}

Result<Tensor*> Method::tensor_of(uint32_t v, CallUse& call, Diagnostic* diag) {
  if (v >= num_values_)
    return fail_value(diag, Error::InvalidProgram, ET_TEXT("value index out of range"), v);
  if (has_slot(v)) return &slot(v)->tensor;  // the bit test inline: most values have none
  Tensor* t = call_tensor(v, fb::Table(values_fb_.ref(v)).table(schema::evalue::kVal), call, diag);
  if (t == nullptr) return diag->error;
  return t;
}

Tensor* Method::call_tensor(uint32_t v, fb::Table val, CallUse& call, Diagnostic* diag) {
  // One Tensor per value in a call: kernels and the alias check compare tensors by address.
  // (A pointer walk: the indexed loop cost about 10 cycles a comparison on the CV32E40P.)
  for (const uint32_t *id = call_tensor_ids_, *end = id + call.tensors; id != end; ++id)
    if (*id == v) return &call_tensors_[id - call_tensor_ids_];
  if (call.tensors >= max_call_tensors_) {
    fail_value(diag, Error::InvalidProgram, ET_TEXT("call uses more tensors than planned"), v);
    return nullptr;
  }
  Tensor* t = &call_tensors_[call.tensors];
  build_tensor_fast(val, t);
  call_tensor_ids_[call.tensors++] = v;
  return t;
}

// A span value's fields stored one by one into a call's EValue (assigned whole, the EValue was
// stored byte by byte in the size-optimized firmware).
namespace {
inline void set_span(EValue* out, Tag tag, const void* data, uint32_t size) {
  out->payload.as_span.data = data;
  out->payload.as_span.size = size;
  out->tag = tag;
}
}  // namespace

// Builds value v from the verified program; v has no slot.
Error Method::build_value(uint32_t v, EValue* out, CallUse& call, Diagnostic* diag) {
  const uint8_t* ref = values_fb_.base + 4 * v;  // (Vector::ref inline: once per argument)
  fb::Fields e(fb::Table(ref + fb::read<uint32_t>(ref)));
  fb::Table val = e.table(schema::evalue::kVal);
  uint8_t type = e.scalar<uint8_t>(schema::evalue::kValType);
  // The two kinds nearly every call passes first, each field stored on its own: an EValue
  // assigned whole became a memcpy call (tensors) or byte stores (ints) in the size-optimized
  // firmware, about a fifth of a call's argument building.
  if (type == schema::kTagTensor) {
    Tensor* t = call_tensor(v, val, call, diag);  // (v has no slot: its table is at hand)
    if (t == nullptr) return diag->error;
    out->payload.as_int = 0;  // (every payload byte set, as from_tensor does)
    out->payload.as_tensor = t;
    out->tag = Tag::Tensor;
    return Error::Ok;
  }
  if (type == schema::kTagInt) {
    out->payload.as_int = fb::Fields(val).scalar<int64_t>(0);  // (inline: no calls)
    out->tag = Tag::Int;
    return Error::Ok;
  }
  // Runtimes built without lists or strings (for programs that have none) carry no code for them.
  if ((!kFeatureLists && type >= schema::kTagIntList && type <= schema::kTagOptionalTensorList) ||
      (!kFeatureTensorLists &&
       (type == schema::kTagTensorList || type == schema::kTagOptionalTensorList)) ||
      (!kFeatureStrings && type == schema::kTagString))
    return fail_value(diag, Error::NotSupported,
                      ET_TEXT("list or string value; runtime built without"), v);
  switch (type) {
    case schema::kTagBool:
      *out = EValue::from_bool(val.scalar<uint8_t>(0) != 0);  // 0 or 1: verified at load
      return Error::Ok;
    case schema::kTagDouble:
      *out = EValue::from_double(val.scalar<double>(0));
      return Error::Ok;
    case schema::kTagString: {
      fb::String s = val.string(0);
      *out = EValue::from_span(Tag::String, s.data != nullptr ? s.data : "", s.size);
      return Error::Ok;
    }
    case schema::kTagIntList: {
      fb::Vector items = val.vector(0);
      if (items.size > max_call_ints_ - call.ints)
        return fail_value(diag, Error::InvalidProgram, ET_TEXT("IntList larger than planned"), v);
      int64_t* ints = call_ints_ + call.ints;
      call.ints += items.size;
      for (uint32_t k = 0; k < items.size; ++k) {
        uint32_t ref = static_cast<uint32_t>(items.scalar<int64_t>(k));  // an Int: verified
        ValueSlot* s = ref < num_values_ && has_slot(ref) ? slot(ref) : nullptr;  // (bit inline)
        if (s != nullptr) {
          ints[k] = s->value.to_int();
          continue;
        }
        fb::Fields item(fb::Table(values_fb_.ref(ref)));
        ints[k] = fb::Fields(item.table(schema::evalue::kVal)).scalar<int64_t>(0);
      }
      set_span(out, Tag::ListInt, items.size ? ints : nullptr, items.size);
      return Error::Ok;
    }
    case schema::kTagDoubleList: {
      fb::Vector items = val.vector(0);
      set_span(out, Tag::ListDouble, items.base, items.size);
      return Error::Ok;
    }
    case schema::kTagBoolList: {
      fb::Vector items = val.vector(0);
      set_span(out, Tag::ListBool, items.base, items.size);
      return Error::Ok;
    }
    case schema::kTagTensorList:
    case schema::kTagOptionalTensorList: {
      bool optional = e.scalar<uint8_t>(schema::evalue::kValType) == schema::kTagOptionalTensorList;
      fb::Vector items = val.vector(0);
      if (items.size > max_call_items_ - call.items)
        return fail_value(diag, Error::InvalidProgram, ET_TEXT("TensorList larger than planned"),
                          v);
      Tensor** list = call_items_ + call.items;
      call.items += items.size;
      for (uint32_t k = 0; k < items.size; ++k) {
        int32_t ref = items.scalar<int32_t>(k);
        if (optional && ref == -1) {
          list[k] = nullptr;
          continue;
        }
        ET_TRY(list[k], tensor_of(static_cast<uint32_t>(ref), call, diag));
      }
      set_span(out, optional ? Tag::ListOptionalTensor : Tag::ListTensor,
               items.size ? list : nullptr, items.size);
      return Error::Ok;
    }
    default:  // Null (Int and Tensor: above)
      *out = EValue();
      return Error::Ok;
  }
}

Error Method::bind_args(fb::Vector args, Diagnostic* diag) {
  if (args.size > max_call_args_)
    return diag->fail(Error::InvalidProgram, ET_TEXT("call has more arguments than planned"));
  CallUse call;
  const int32_t* ids = args.data<int32_t>();
  num_call_args_ = 0;
  for (uint32_t j = 0; j < args.size; ++j) {
    uint32_t v = static_cast<uint32_t>(ids[j]);  // in range: verified at load
    // A tensor passed twice is one Tensor (tensor_of), which is what in-place kernels and the
    // alias check compare; other values may be built twice.
    ValueSlot* s = v < num_values_ && has_slot(v) ? slot(v) : nullptr;  // inline bit test first
    EValue* p = s != nullptr ? &s->value : &call_values_[j];
    if (s == nullptr) ET_CHECK_OR_RETURN(build_value(v, p, call, diag) == Error::Ok, diag->error);
    call_ptrs_[j] = p;
  }
  num_call_args_ = args.size;
  return Error::Ok;
}

fb::Table Method::instruction_table(size_t i) const {
  if (i >= num_instructions_) return fb::Table();
  uint32_t c = 0;
  while (chain_starts_[c + 1] <= i) ++c;
  fb::Vector chains = meta_.plan().vector(sp::kChains);
  fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
  return fb::Table(instrs.ref(static_cast<uint32_t>(i - chain_starts_[c])));
}

uint8_t Method::instruction_kind(size_t i) const {
  return instruction_table(i).scalar<uint8_t>(schema::instr::kArgsType);
}

Span<const int32_t> Method::call_arg_indices(size_t i) const {
  fb::Table in = instruction_table(i);
  uint8_t kind = in.scalar<uint8_t>(schema::instr::kArgsType);
  if (kind != schema::kInstrKernelCall && kind != schema::kInstrDelegateCall) return {};
  fb::Vector a = in.table(schema::instr::kArgs).vector(schema::call::kArgs);
  return Span<const int32_t>(a.data<int32_t>(), a.size);
}

OpFunction Method::kernel(size_t i) const {
  fb::Table in = instruction_table(i);
  if (in.scalar<uint8_t>(schema::instr::kArgsType) != schema::kInstrKernelCall) return nullptr;
  const KernelEntry* e =
      kernels_[in.table(schema::instr::kArgs).scalar<int32_t>(schema::call::kIndex)];
  return e != nullptr ? e->fn : nullptr;
}

Result<Span<EValue*>> Method::bind_call(size_t i) {
  fb::Table in = instruction_table(i);
  uint8_t kind = in.scalar<uint8_t>(schema::instr::kArgsType);
  if (kind != schema::kInstrKernelCall && kind != schema::kInstrDelegateCall)
    return diag_.fail(Error::InvalidArgument,
                      ET_TEXT("bind_call: instruction is not a kernel or delegate call"),
                      ET_TEXT("instruction"), static_cast<int64_t>(i));
  ET_CHECK_OR_RETURN(
      bind_args(in.table(schema::instr::kArgs).vector(schema::call::kArgs), &diag_) == Error::Ok,
      diag_.error);
  return current_args();
}

// The Method is built where the caller's Result keeps it (one return of one object: no copy of
// the method state).
Result<Method> Program::load_method(const char* name, MemoryManager* memory,
                                    Diagnostic* diag) const {
  Result<Method> result(InPlace{});
  Diagnostic local;
  Error e = load_method_into(result.get(), name, memory, diag != nullptr ? diag : &local);
  if (e != Error::Ok) result.set_error(e);  // ~Method destroys any delegate already initialised
  return result;
}

Error Program::load_method_into(Method& m, const char* name, MemoryManager* memory,
                                Diagnostic* d) const {
  ET_TRY(fb::Table plan, find_plan(name, d));
  if (memory == nullptr) return d->fail(Error::InvalidArgument, ET_TEXT("no MemoryManager"));
  m.meta_ = MethodMeta(&file_, plan);
  m.file_ = &file_;
  m.memory_ = memory;
  MethodLoader loader(*this, plan, memory, m, d);
  return loader.load();
}

Method::Method(Method&& o) : MethodState(o) {
  o.num_delegates_ = 0;  // the moved-from method no longer owns the delegate handles
}

Method::~Method() {
  for (uint32_t d = 0; kFeatureDelegates && d < num_delegates_; ++d)
    delegates_[d].backend->destroy(delegates_[d].handle);
}

const EValue& Method::get_input(size_t index) const {
  ET_CHECK(index < num_inputs_);
  return slot_value(static_cast<uint32_t>(inputs_[index]));
}

const EValue& Method::get_output(size_t index) const {
  ET_CHECK(index < num_outputs_);
  return slot_value(static_cast<uint32_t>(outputs_[index]));
}

Error Method::set_input(const EValue& input, size_t index) {
  if (index >= num_inputs_)
    return diag_.fail_numbers(Error::InvalidArgument, ET_TEXT("input index out of range"),
                              static_cast<int64_t>(index), num_inputs_);
  EValue& slot = slot_value(inputs_[index]);
  if (slot.is_tensor()) {
    if (!input.is_tensor())
      return diag_.fail(Error::InvalidArgument, ET_TEXT("input must be a tensor"),
                        ET_TEXT("inputs"), static_cast<int64_t>(index));
    Tensor& dst = slot.to_tensor();
    const Tensor& src = input.to_tensor();
    if (src.dtype != dst.dtype)
      return diag_.fail_numbers(Error::InvalidArgument,
                                ET_TEXT("input dtype differs from the program's (ScalarType)"),
                                static_cast<int64_t>(src.dtype), static_cast<int64_t>(dst.dtype),
                                ET_TEXT("inputs"), static_cast<int64_t>(index));
    if (!src.same_shape(dst))
      return diag_.fail(Error::InvalidArgument, ET_TEXT("input shape differs from the program's"),
                        ET_TEXT("inputs"), static_cast<int64_t>(index));
    if (dst.data != nullptr && src.data != dst.data) {
      if (src.data == nullptr && dst.nbytes != 0)
        return diag_.fail(Error::InvalidArgument, ET_TEXT("input tensor has no data"));
      if (dst.nbytes) memcpy(dst.data, src.data, dst.nbytes);
    } else if (dst.data == nullptr) {
      dst.data = src.data;  // unplanned input: share the caller's memory
    }
  } else if (slot.tag == input.tag) {
    // Compared through the member the tag names: a Bool's other payload bytes are unspecified;
    // Doubles on their bits (no soft-float call on targets): -0.0 equals 0.0, a NaN a NaN.
    bool same = false;
    if (slot.is_int()) {
      same = slot.to_int() == input.to_int();
    } else if (slot.is_bool()) {
      same = slot.to_bool() == input.to_bool();
    } else if (slot.is_double()) {
      uint64_t x, y;
      memcpy(&x, &slot.payload.as_double, 8);
      memcpy(&y, &input.payload.as_double, 8);
      const uint64_t kInf = 0x7ff0000000000000ull << 1;  // the sign bit shifted out
      same = x == y || ((x | y) << 1) == 0 || ((x << 1) > kInf && (y << 1) > kInf);
    }
    if (!same)
      return diag_.fail(
          Error::InvalidArgument,
          ET_TEXT("non-tensor input must equal the value the program was exported with"),
          ET_TEXT("inputs"), static_cast<int64_t>(index));
  } else {
    return diag_.fail(Error::InvalidArgument, ET_TEXT("input kind differs from the program's"),
                      ET_TEXT("inputs"), static_cast<int64_t>(index));
  }
  input_set_[index] = 1;
  return Error::Ok;
}

// The same rules as set_input for a tensor of the program's own dtype and shape (those checks
// cannot fail here), without building that tensor.
Error Method::set_input_data(size_t index, const void* data, size_t nbytes) {
  ValueSlot* s = index < num_inputs_ ? slot(static_cast<uint32_t>(inputs_[index])) : nullptr;
  if (s == nullptr || !s->value.is_tensor())
    return diag_.fail(Error::InvalidArgument, ET_TEXT("input index out of range or not a tensor"));
  Tensor& dst = s->value.to_tensor();
  if (nbytes != dst.nbytes)
    return diag_.fail_numbers(Error::InvalidArgument,
                              ET_TEXT("input byte size differs from the program's"),
                              static_cast<int64_t>(nbytes), static_cast<int64_t>(dst.nbytes),
                              ET_TEXT("inputs"), static_cast<int64_t>(index));
  if (dst.data == nullptr) {
    dst.data = const_cast<void*>(data);  // unplanned input: share the caller's memory
  } else if (data != dst.data) {
    if (data == nullptr && nbytes != 0)
      return diag_.fail(Error::InvalidArgument, ET_TEXT("input tensor has no data"));
    if (nbytes) memcpy(dst.data, data, nbytes);
  }
  input_set_[index] = 1;
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* data, size_t nbytes, size_t index) {
  if (index >= num_outputs_ || !get_output(index).is_tensor())
    return diag_.fail(Error::InvalidArgument, ET_TEXT("output index out of range or not a tensor"));
  Tensor& t = get_output(index).to_tensor();
  if (meta_.output_tensor_meta(index)->is_memory_planned)
    return diag_.fail(Error::InvalidState,
                      ET_TEXT("output is memory-planned; its buffer cannot be replaced"));
  if (nbytes < t.nbytes)
    return diag_.fail_numbers(Error::InvalidArgument, ET_TEXT("output buffer too small"),
                              static_cast<int64_t>(nbytes), static_cast<int64_t>(t.nbytes));
  t.data = data;
  return Error::Ok;
}

const char* Method::instruction_name(size_t i, char* buf, size_t size) const {
  fb::Table in = instruction_table(i);
  if (in.scalar<uint8_t>(schema::instr::kArgsType) != schema::kInstrKernelCall) return nullptr;
  fb::Vector ops = meta_.plan().vector(sp::kOperators);
  uint32_t op = static_cast<uint32_t>(in.table(schema::instr::kArgs).scalar<int32_t>(0));
  return operator_full_name(fb::Table(ops.ref(op)), buf, size) ? buf : nullptr;
}

Error Method::set_observer(const InstructionObserver& observer) {
  if (!kInstructionHooks) return Error::NotSupported;
  observer_ = observer;
  return Error::Ok;
}

Error Method::set_profiler(Profiler* profiler) {
  if (!kInstructionHooks) return Error::NotSupported;
  profiler_ = profiler;
  return Error::Ok;
}

Error Method::execute() {
  for (uint32_t k = 0; k < num_inputs_; ++k)
    if (!input_set_[k])
      return diag_.fail(Error::InvalidState, ET_TEXT("input not set before execute"),
                        ET_TEXT("inputs"), k);
  if (kFeatureControlFlow && freed_) {  // undo the last run's FreeCalls
    for (uint32_t s = 0; s < num_slots_; ++s) {
      if (slots_[s].freed == nullptr) continue;
      slots_[s].value.to_tensor().data = slots_[s].freed;
      slots_[s].freed = nullptr;
    }
    freed_ = false;
  }
  MemoryAllocator* temp = memory_->temp_allocator();
  MemoryAllocator no_temp;
  if (temp == nullptr) temp = &no_temp;
  KernelContext kctx;
  kctx.temp = temp;
  uint32_t steps = 0;
  fb::Vector chains = meta_.plan().vector(sp::kChains);
  for (uint32_t c = 0; c < num_chains_; ++c) {
    fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
    uint32_t base = chain_starts_[c];
    uint32_t k = 0;
    while (k < instrs.size) {
      uint32_t pc = base + k;
      if (++steps > kMaxInstructionsPerExecute)
        return diag_.fail(Error::InvalidState, ET_TEXT("instruction limit reached (endless loop?)"),
                          ET_TEXT("instruction"), pc);
      // Every field read here was verified by load_method.
      fb::Fields in(fb::Table(instrs.ref(k)));
      uint8_t kind = in.scalar<uint8_t>(schema::instr::kArgsType);
      fb::Fields args(in.table(schema::instr::kArgs));
      int32_t a = args.scalar<int32_t>(0);
      Error e = Error::Ok;
      if (kind == schema::kInstrKernelCall || kind == schema::kInstrDelegateCall) {
        e = bind_args(args.vector(schema::call::kArgs), &diag_);
        if (e != Error::Ok) return e;
      }
      et_timestamp_t start = 0;
      if (kInstructionHooks) {
        if (observer_.before != nullptr) observer_.before(observer_.ctx, pc);
        if (profiler_ != nullptr) start = et_pal_current_ticks();
      }
      uint32_t next = k + 1;
      switch (kind) {
        case schema::kInstrKernelCall:
          kctx.failure = nullptr;
          e = kernels_[a]->fn(kctx, current_args());
          if (e != Error::Ok) {
            diag_.clear();
            diag_.fail(e, kctx.failure != nullptr ? kctx.failure : ET_TEXT("kernel failed"),
                       ET_TEXT("instruction"), pc);
          }
          break;
        case schema::kInstrDelegateCall: {
          if (!kFeatureDelegates) break;  // rejected at load
          BackendExecutionContext bctx{temp, meta_.name()};
          const LoadedDelegate& d = delegates_[a];
          e = d.backend->execute(bctx, d.handle, current_args());
          if (e != Error::Ok) {
            diag_.clear();
            diag_.fail(e, ET_TEXT("delegate execute failed"), ET_TEXT("instruction"), pc);
          }
          break;
        }
        case schema::kInstrMoveCall:
          if (kFeatureControlFlow)
            slot(static_cast<uint32_t>(args.scalar<int32_t>(schema::move::kTo)))->value =
                slot_value(static_cast<uint32_t>(a));
          break;
        case schema::kInstrJumpFalseCall: {
          if (!kFeatureControlFlow) break;
          const EValue& cond = slot_value(static_cast<uint32_t>(a));
          bool truth = true;
          if (cond.is_bool()) {
            truth = cond.to_bool();
          } else {
            const Tensor& t = cond.to_tensor();
            if (t.dtype != ScalarType::Bool) {
              diag_.clear();
              e = diag_.fail(Error::InvalidType, ET_TEXT("jump condition tensor is not bool"),
                             ET_TEXT("instruction"), pc);
              break;
            }
            const uint8_t* p = t.const_data_ptr<uint8_t>();
            for (size_t q = 0, n = t.numel(); q < n; ++q) truth = truth && p[q] != 0;
          }
          if (!truth)
            next = static_cast<uint32_t>(args.scalar<int32_t>(schema::jump::kDestination));
          break;
        }
        case schema::kInstrFreeCall:
          if (kFeatureControlFlow) {
            ValueSlot* s = slot(static_cast<uint32_t>(a));
            Tensor& t = s->value.to_tensor();
            if (t.data != nullptr) {
              s->freed = t.data;
              freed_ = true;
            }
            t.data = nullptr;
          }
          break;
        default:
          break;
      }
      temp->reset();
      if (kInstructionHooks) {
        if (profiler_ != nullptr) profiler_->record(pc, kind, start, et_pal_current_ticks());
        if (observer_.after != nullptr) observer_.after(observer_.ctx, pc);
      }
      if (e != Error::Ok) return e;
      k = next;
    }
  }
  return Error::Ok;
}

}  // namespace etmcu
