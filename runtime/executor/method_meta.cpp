// MethodMeta accessors and the method layout computation.
#include "runtime/executor/method_meta.h"

#include <string.h>

#include "kernels/api/kernel.h"
#include "runtime/core/features.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_layout.h"
#include "runtime/pte/pte_file.h"
#include "runtime/pte/pte_named_data.h"
#include "runtime/pte/schema.h"

namespace etmcu {

namespace sp = schema::plan;

namespace {
// a + b, saturating at UINT32_MAX (a runtime without load-time checks loads only programs
// checked before, whose counts are far from it: features.h ETMCU_BAD_PROGRAM).
uint32_t add_sat(uint32_t a, uint32_t b) {
  if (!kFeatureLoadValueChecks) return a + b;
  return b > 0xffffffffu - a ? 0xffffffffu : a + b;
}
}  // namespace

namespace {
// count objects of size bytes, rounded up to 16, saturating at UINT32_MAX (no method allocator
// of 4 GiB exists: a saturated size is refused like any other too large one). 32-bit arithmetic:
// on the 32-bit targets 64-bit products and sums cost several times the code. Out of line.
// (A 32 x 32 -> 64-bit product: mul + mulhu, where a division by the size would cost ~35 cycles.)
__attribute__((noinline)) uint32_t block(uint32_t count, uint32_t size, uint32_t sum) {
  if (!kFeatureLoadValueChecks) return sum + ((count * size + 15u) & ~15u);
  const uint64_t b = uint64_t{count} * size + 15u;
  if (b >> 32) return 0xffffffffu;
  return add_sat(sum, static_cast<uint32_t>(b) & ~15u);
}
}  // namespace

uint32_t MethodLayout::bytes() const {
  uint32_t n = block(values / 32 + (values % 32 != 0), sizeof(SlotWord), 0);
  n = block(slots, sizeof(ValueSlot), n);
  n = block(operators, sizeof(const KernelEntry*), n);
  n = block(add_sat(chains, 1), sizeof(uint32_t), n);
  n = block(delegates, sizeof(LoadedDelegate), n);
  n = block(inputs, 1, n);
  n = block(call_args, sizeof(EValue*), n);
  n = block(call_args, sizeof(EValue), n);
  n = block(call_tensors, sizeof(Tensor), n);
  n = block(call_tensors, sizeof(uint32_t), n);
  n = block(call_ints, sizeof(int64_t), n);
  return block(call_items, sizeof(Tensor*), n);
}

namespace {
// Type tag of value v, or kTagNull when v is out of range (load reports the bad index).
// The value's own table is returned in `e` (its payload read only when needed).
constexpr uint8_t kOutOfRange = 0xff;  // no schema tag
// Inline: it runs once per call argument at every method load.
__attribute__((always_inline)) inline uint8_t value_type(fb::Vector values, int32_t index,
                                                         fb::Table* e) {
  uint32_t v = static_cast<uint32_t>(index);  // negative: out of range too
  if (v >= values.size) return kOutOfRange;
  const uint8_t* slot = values.base + 4 * v;
  *e = fb::Table(slot + fb::read<uint32_t>(slot));
  return fb::Fields(*e).scalar<uint8_t>(schema::evalue::kValType);
}
// Items of the list value whose EValue table is `e`.
__attribute__((always_inline)) inline uint32_t list_size(fb::Table e) {
  return fb::Fields(fb::Fields(e).table(schema::evalue::kVal)).vector(0).size;
}
bool is_scalar_tag(uint8_t t) {
  return t == schema::kTagInt || t == schema::kTagDouble || t == schema::kTagBool;
}
}  // namespace

MethodLayout compute_method_layout(fb::Table plan, uint64_t flatbuffer_bytes) {
  MethodLayout l;
  fb::Vector values = plan.vector(sp::kValues);
  l.values = values.size;
  fb::Vector chains = plan.vector(sp::kChains);
  // Unshared, every argument index takes 4 bytes of the flatbuffer: a running count of them,
  // checked before each call's arguments are read, refuses a plan that shares one call 2^16
  // times before it costs 2^32 reads. (List items: the same bound, where load reads them all:
  // MethodLoader::verify_values.)
  uint64_t args = 0;
  l.inputs = plan.vector(sp::kInputs).size;
  l.slots = add_sat(l.inputs, plan.vector(sp::kOutputs).size);
  for (uint32_t i = 0; kFeatureExternalData && i < values.size; ++i) {
    fb::Table e;
    if (value_type(values, i, &e) != schema::kTagTensor) continue;
    fb::Table extra = e.table(schema::evalue::kVal).table(schema::tensor::kExtraTensorInfo);
    if (extra.valid() && extra.scalar<int8_t>(schema::extra::kLocation) == 1) {
      l.slots = add_sat(l.slots, 1);  // external data: found by name once, at load
      l.external_slots = add_sat(l.external_slots, 1);
    }
  }
  l.operators = plan.vector(sp::kOperators).size;
  l.chains = chains.size;
  for (uint32_t c = 0; c < chains.size; ++c) {
    fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
    l.instructions = add_sat(l.instructions, instrs.size);
    for (uint32_t i = 0; i < instrs.size; ++i) {
      fb::Fields in(fb::Table(instrs.ref(i)));
      uint8_t type = in.scalar<uint8_t>(schema::instr::kArgsType);
      if (type == schema::kInstrMoveCall) {
        l.slots = add_sat(l.slots, 2);
        l.instruction_slots = add_sat(l.instruction_slots, 2);
      } else if (type == schema::kInstrJumpFalseCall || type == schema::kInstrFreeCall) {
        l.slots = add_sat(l.slots, 1);
        l.instruction_slots = add_sat(l.instruction_slots, 1);
      } else if (type == schema::kInstrKernelCall || type == schema::kInstrDelegateCall) {
        fb::Vector a = fb::Fields(in.table(schema::instr::kArgs)).vector(schema::call::kArgs);
        args += a.size;
        if (ETMCU_BAD_PROGRAM(args > flatbuffer_bytes / 4)) {
          l.refused =
              ET_TEXT("call arguments repeated through shared tables beyond the program's size");
          return l;
        }
        uint32_t tensors = 0, ints = 0, items = 0;
        bool delegate = type == schema::kInstrDelegateCall;
        // The tightest loop of method load: one type byte per argument (tensor counts cannot
        // wrap: at most one per argument, and arguments are fewer than the flatbuffer's bytes).
        for (uint32_t j = 0; j < a.size; ++j) {
          fb::Table e;
          uint8_t t = value_type(values, a.scalar<int32_t>(j), &e);
          if (t == schema::kTagTensor) {
            ++tensors;
            continue;
          }
          if (t == kOutOfRange) {
            if (l.bad_argument == 0xffffffffu)
              l.bad_argument = add_sat(l.instructions - instrs.size, i);
          } else if (delegate && is_scalar_tag(t)) {
            // A scalar a delegate may write keeps its value between calls (counted before the
            // lists' test: a build without lists still gives these their slots).
            l.slots = add_sat(l.slots, 1);
            l.instruction_slots = add_sat(l.instruction_slots, 1);
          } else if (!kFeatureLists) {
            // such programs fail at method load; nothing to size
          } else if (t == schema::kTagIntList) {
            ints = add_sat(ints, list_size(e));
          } else if (kFeatureTensorLists &&
                     (t == schema::kTagTensorList || t == schema::kTagOptionalTensorList)) {
            items = add_sat(items, list_size(e));
            tensors = add_sat(tensors, list_size(e));
          }
        }
        if (!delegate && a.size > 0) {  // a scalar a kernel returns: the same
          fb::Table e;
          if (is_scalar_tag(value_type(values, a.scalar<int32_t>(a.size - 1), &e))) {
            l.slots = add_sat(l.slots, 1);
            l.instruction_slots = add_sat(l.instruction_slots, 1);
          }
        }
        if (ETMCU_BAD_PROGRAM(a.size > kMaxCallArgs || tensors > kMaxCallArgs))
          l.refused = ET_TEXT("a call passes more arguments or tensors than the runtime supports");
        if (a.size > l.call_args) l.call_args = a.size;
        if (tensors > l.call_tensors) l.call_tensors = tensors;
        if (ints > l.call_ints) l.call_ints = ints;
        if (items > l.call_items) l.call_items = items;
      }
    }
  }
  l.delegates = plan.vector(sp::kDelegates).size;
  return l;
}

Tag tag_from_kernel_type(uint8_t type) {
  switch (type) {
    case schema::kTagInt:
      return Tag::Int;
    case schema::kTagBool:
      return Tag::Bool;
    case schema::kTagDouble:
      return Tag::Double;
    case schema::kTagTensor:
      return Tag::Tensor;
    case schema::kTagString:
      return Tag::String;
    case schema::kTagIntList:
      return Tag::ListInt;
    case schema::kTagDoubleList:
      return Tag::ListDouble;
    case schema::kTagBoolList:
      return Tag::ListBool;
    case schema::kTagTensorList:
      return Tag::ListTensor;
    case schema::kTagOptionalTensorList:
      return Tag::ListOptionalTensor;
    default:
      return Tag::None;
  }
}

const char* MethodMeta::name() const { return plan_.string(sp::kName).data; }
size_t MethodMeta::num_inputs() const { return plan_.vector(sp::kInputs).size; }
size_t MethodMeta::num_outputs() const { return plan_.vector(sp::kOutputs).size; }
size_t MethodMeta::num_operators() const { return plan_.vector(sp::kOperators).size; }
size_t MethodMeta::num_backends() const { return plan_.vector(sp::kDelegates).size; }

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  fb::Vector chains = plan_.vector(sp::kChains);
  for (uint32_t c = 0; c < chains.size; ++c)
    n += fb::Table(chains.ref(c)).vector(schema::chain::kInstructions).size;
  return n;
}

size_t MethodMeta::num_memory_planned_buffers() const {
  uint32_t n = plan_.vector(sp::kNonConstBufferSizes).size;
  return n == 0 ? 0 : n - 1;
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t j) const {
  if (j >= num_memory_planned_buffers()) return Error::InvalidArgument;
  return plan_.vector(sp::kNonConstBufferSizes).scalar<int64_t>(static_cast<uint32_t>(j + 1));
}

size_t MethodMeta::method_allocator_bytes() const {
  MethodLayout l = compute_method_layout(plan_, file_->flatbuffer_size());
  if (l.refused != nullptr) return static_cast<size_t>(-1);  // load_method says why
  uint32_t n = l.bytes();
  return n == 0xffffffffu ? static_cast<size_t>(-1) : n;  // saturated: more than any pool
}

Result<Tag> MethodMeta::tag_of(int32_t index) const {
  fb::Vector values = plan_.vector(sp::kValues);
  if (index < 0 || static_cast<uint32_t>(index) >= values.size) return Error::InvalidProgram;
  fb::Table v(values.ref(static_cast<uint32_t>(index)));
  uint8_t type = v.scalar<uint8_t>(schema::evalue::kValType);
  return type == schema::kTagNull ? Tag::None : tag_from_kernel_type(type);
}

Result<TensorInfo> MethodMeta::tensor_meta(int32_t index) const {
  fb::Vector values = plan_.vector(sp::kValues);
  if (index < 0 || static_cast<uint32_t>(index) >= values.size) return Error::InvalidProgram;
  fb::Table v(values.ref(static_cast<uint32_t>(index)));
  if (v.scalar<uint8_t>(schema::evalue::kValType) != schema::kTagTensor) return Error::InvalidType;
  fb::Table t = v.table(schema::evalue::kVal);
  TensorInfo info;
  int8_t dtype = t.scalar<int8_t>(schema::tensor::kScalarType);
  if (!is_valid_scalar_type(dtype)) return Error::InvalidProgram;
  info.dtype = static_cast<ScalarType>(dtype);
  fb::Vector sizes = t.vector(schema::tensor::kSizes);
  fb::Vector order = t.vector(schema::tensor::kDimOrder);
  info.sizes = Span<const int32_t>(sizes.data<int32_t>(), sizes.size);
  info.dim_order = Span<const uint8_t>(order.data<uint8_t>(), order.size);
  uint64_t n = element_size(info.dtype);
  for (uint32_t i = 0; i < sizes.size; ++i) {
    int32_t s = sizes.scalar<int32_t>(i);
    if (s < 0 || (s != 0 && n > (static_cast<uint64_t>(1) << 40) / static_cast<uint64_t>(s)))
      return Error::InvalidProgram;
    n *= static_cast<uint64_t>(s);
  }
  info.nbytes = static_cast<size_t>(n);
  info.is_memory_planned = t.has(schema::tensor::kAllocationInfo);
  return info;
}

Result<Tag> MethodMeta::input_tag(size_t i) const {
  fb::Vector in = plan_.vector(sp::kInputs);
  if (i >= in.size) return Error::InvalidArgument;
  return tag_of(in.scalar<int32_t>(static_cast<uint32_t>(i)));
}
Result<Tag> MethodMeta::output_tag(size_t i) const {
  fb::Vector out = plan_.vector(sp::kOutputs);
  if (i >= out.size) return Error::InvalidArgument;
  return tag_of(out.scalar<int32_t>(static_cast<uint32_t>(i)));
}
Result<QuantParams> MethodMeta::input_quant(size_t i) const { return io_quant(false, i); }
Result<QuantParams> MethodMeta::output_quant(size_t i) const { return io_quant(true, i); }

// Record layout (python/etmcu/serialize/pte.py io_quant_blob): "IOQ1", u16 inputs, u16 outputs,
// then {f32 scale, i32 zero_point} per input, then per output, little-endian.
Result<QuantParams> MethodMeta::io_quant(bool output, size_t i) const {
  if (i >= (output ? num_outputs() : num_inputs())) return Error::InvalidArgument;
  static constexpr char kPrefix[] = "etmcu.io_quant.";
  char key[96];
  size_t len = sizeof(kPrefix) - 1;
  memcpy(key, kPrefix, len);
  fb::String name = plan_.string(sp::kName);
  if (name.size > sizeof(key) - len) return Error::NotFound;  // no key this long is written
  memcpy(key + len, name.data, name.size);
  len += name.size;
  PteNamedData named(file_);
  Result<NamedBlob> blob = named.get(key, len);
  if (!blob.ok()) return blob.error();
  const uint8_t* b = blob.get().bytes.data();
  size_t n = blob.get().bytes.size();
  if (n < 8 || memcmp(b, "IOQ1", 4) != 0) return Error::InvalidProgram;
  uint16_t ni, no;
  memcpy(&ni, b + 4, 2);
  memcpy(&no, b + 6, 2);
  if (ni != num_inputs() || no != num_outputs() || n < 8 + 8 * (size_t(ni) + no))
    return Error::InvalidProgram;
  const uint8_t* e = b + 8 + 8 * (output ? ni + i : i);
  QuantParams q;
  memcpy(&q.scale, e, 4);
  memcpy(&q.zero_point, e + 4, 4);
  if (!(q.scale > 0.0f)) return Error::InvalidProgram;
  return q;
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t i) const {
  fb::Vector in = plan_.vector(sp::kInputs);
  if (i >= in.size) return Error::InvalidArgument;
  return tensor_meta(in.scalar<int32_t>(static_cast<uint32_t>(i)));
}
Result<TensorInfo> MethodMeta::output_tensor_meta(size_t i) const {
  fb::Vector out = plan_.vector(sp::kOutputs);
  if (i >= out.size) return Error::InvalidArgument;
  return tensor_meta(out.scalar<int32_t>(static_cast<uint32_t>(i)));
}

}  // namespace etmcu
