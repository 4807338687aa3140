// Method: load (value table, memory-plan binding, instruction resolution, delegate init) and the
// instruction loop.
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

// One block of `count` objects of `size` bytes (rounded to 16), or nullptr when count is 0. `ok`
// turns false when a non-empty block cannot be had. Called after the 64-bit total of every block
// (MethodLayout::bytes) was found to fit the pool, so size_t arithmetic cannot wrap here. Out of
// line: one copy for the nine blocks.
__attribute__((noinline)) void* allocate_block(MemoryAllocator* a, uint32_t count, size_t size,
                                               bool& ok) {
  if (count == 0) return nullptr;
  void* p = a->allocate((count * size + 15) & ~static_cast<size_t>(15), 16);
  ok = ok && p != nullptr;
  return p;
}

// Builds "name.overload" (or "name") into buf; returns its length, 0 if it does not fit.
size_t operator_full_name(fb::Table op, char* buf, size_t size) {
  fb::String name = op.string(schema::op::kName);
  fb::String overload = op.string(schema::op::kOverload);
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

// Does the work of Program::load_method; a friend of Method.
class MethodLoader {
 public:
  MethodLoader(const Program& program, fb::Table plan, MemoryManager* memory, Method& m,
               Diagnostic* diag)
      : program_(program),
        file_(program.file()),
        plan_(plan),
        memory_(memory),
        m_(m),
        diag_(diag) {}

  Error load() {
    ET_CHECK_OR_RETURN(check_plan() == Error::Ok, diag_->error);
    layout_ = compute_method_layout(plan_);
    const MethodLayout& layout = layout_;
    MemoryAllocator* alloc = memory_->method_allocator();
    if (alloc == nullptr)
      return diag_->fail(Error::InvalidArgument, ET_TEXT("MemoryManager has no method allocator"));
    uint64_t need = layout.bytes();
    size_t free_bytes = alloc->size() - alloc->used();
    uintptr_t misalign = reinterpret_cast<uintptr_t>(alloc->base() + alloc->used()) & 15;
    if (misalign) need += 16 - misalign;
    if (need > free_bytes)
      return diag_->fail_numbers(
          Error::MemoryAllocationFailed, ET_TEXT("method allocator too small (bytes)"),
          static_cast<int64_t>(free_bytes),
          need > INT64_MAX ? INT64_MAX : static_cast<int64_t>(need), ET_TEXT("method allocator"));
    bool ok = true;
    m_.values_ = static_cast<EValue*>(allocate_block(alloc, layout.values, sizeof(EValue), ok));
    tensors_ = static_cast<Tensor*>(allocate_block(alloc, layout.tensors, sizeof(Tensor), ok));
    list_ints_ =
        static_cast<int64_t*>(allocate_block(alloc, layout.list_ints, sizeof(int64_t), ok));
    list_tensors_ =
        static_cast<Tensor**>(allocate_block(alloc, layout.list_tensors, sizeof(Tensor*), ok));
    m_.instructions_ = static_cast<LoadedInstruction*>(
        allocate_block(alloc, layout.instructions, sizeof(LoadedInstruction), ok));
    // chains + 1 <= UINT32_MAX: the plan's chains vector fits a < 2 GiB buffer.
    m_.chain_starts_ =
        static_cast<uint32_t*>(allocate_block(alloc, layout.chains + 1, sizeof(uint32_t), ok));
    call_args_ =
        static_cast<EValue**>(allocate_block(alloc, layout.call_args, sizeof(EValue*), ok));
    m_.delegates_ = static_cast<LoadedDelegate*>(
        allocate_block(alloc, layout.delegates, sizeof(LoadedDelegate), ok));
    m_.input_set_ =
        static_cast<uint8_t*>(allocate_block(alloc, layout.inputs, sizeof(uint8_t), ok));
    if (!ok)
      return diag_->fail(Error::MemoryAllocationFailed,
                         ET_TEXT("method allocator failed a block its size check allowed"),
                         ET_TEXT("method allocator"));
    m_.num_values_ = layout.values;
    for (uint32_t i = 0; i < layout.values; ++i) new (&m_.values_[i]) EValue();
    if (m_.input_set_ != nullptr) memset(m_.input_set_, 0, layout.inputs);

    ET_CHECK_OR_RETURN(check_planned_buffers() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(parse_values() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(parse_io() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(init_delegates() == Error::Ok, diag_->error);
    ET_CHECK_OR_RETURN(resolve_instructions() == Error::Ok, diag_->error);
    return Error::Ok;
  }

 private:
  Error check_plan() {
    const char* missing = nullptr;
    if (!plan_.has(sp::kName))
      missing = ET_TEXT("ExecutionPlan.name missing");
    else if (!plan_.has(sp::kValues))
      missing = ET_TEXT("ExecutionPlan.values missing");
    else if (!plan_.has(sp::kInputs))
      missing = ET_TEXT("ExecutionPlan.inputs missing");
    else if (!plan_.has(sp::kOutputs))
      missing = ET_TEXT("ExecutionPlan.outputs missing");
    else if (!plan_.has(sp::kNonConstBufferSizes))
      missing = ET_TEXT("ExecutionPlan.non_const_buffer_sizes missing");
    else if (plan_.vector(sp::kChains).size == 0)
      missing = ET_TEXT("ExecutionPlan has no chains");
    if (missing != nullptr) return diag_->fail(Error::InvalidProgram, missing, ET_TEXT("method"));
    return Error::Ok;
  }

  Error check_planned_buffers() {
    fb::Vector sizes = plan_.vector(sp::kNonConstBufferSizes);
    HierarchicalAllocator* planned = memory_->planned_memory();
    size_t provided = planned != nullptr ? planned->num_buffers() : 0;
    for (uint32_t id = 1; id < sizes.size; ++id) {
      int64_t need = sizes.scalar<int64_t>(id);
      if (need < 0)
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

  Error parse_tensor(fb::Table t, uint32_t i, Tensor* out) {
    int8_t dtype = t.scalar<int8_t>(st::kScalarType);
    if (!is_valid_scalar_type(dtype))
      return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("Tensor.scalar_type unknown"),
                                 dtype, 6, ET_TEXT("values"), i);
    fb::Vector sizes = t.vector(st::kSizes);
    fb::Vector order = t.vector(st::kDimOrder);
    if (sizes.size > static_cast<uint32_t>(kTensorMaxDim))
      return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("Tensor has too many dims"),
                                 sizes.size, kTensorMaxDim, ET_TEXT("values"), i);
    if (order.size != sizes.size)
      return diag_->fail_numbers(Error::InvalidProgram,
                                 ET_TEXT("Tensor.dim_order length differs from sizes length"),
                                 order.size, sizes.size, ET_TEXT("values"), i);
    uint32_t seen = 0;
    for (uint32_t d = 0; d < order.size; ++d) {
      uint8_t o = order.scalar<uint8_t>(d);
      if (o >= order.size || (seen & (1u << o)))
        return fail_value(Error::InvalidProgram, ET_TEXT("Tensor.dim_order is not a permutation"),
                          i);
      seen |= 1u << o;
    }
    if (t.scalar<int32_t>(st::kStorageOffset) != 0)
      return fail_value(Error::NotSupported, ET_TEXT("Tensor.storage_offset must be 0"), i);
    if (t.scalar<int8_t>(st::kShapeDynamism) == 2)
      return fail_value(Error::NotSupported,
                        ET_TEXT("dynamic unbound tensor shapes are not supported"), i);
    size_t esize = element_size(static_cast<ScalarType>(dtype));
    uint64_t nbytes = esize;
    for (uint32_t d = 0; d < sizes.size; ++d) {
      int32_t s = sizes.scalar<int32_t>(d);
      if (s < 0)
        return diag_->fail_numbers(Error::InvalidProgram,
                                   ET_TEXT("Tensor.sizes has a negative size"), s, 0,
                                   ET_TEXT("values"), i);
      nbytes *= static_cast<uint64_t>(s);
      if (nbytes > (static_cast<uint64_t>(1) << 31))
        return fail_value(Error::InvalidProgram, ET_TEXT("Tensor larger than 2 GiB"), i);
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
      fb::Vector buf_sizes = plan_.vector(sp::kNonConstBufferSizes);
      if (id == 0 || id >= buf_sizes.size)
        return diag_->fail_numbers(Error::InvalidProgram,
                                   ET_TEXT("AllocationDetails.memory_id out of range"), id,
                                   static_cast<int64_t>(buf_sizes.size) - 1, ET_TEXT("values"), i);
      uint64_t arena = static_cast<uint64_t>(buf_sizes.scalar<int64_t>(id));
      if (offset > arena || nbytes > arena - offset)
        return diag_->fail_numbers(
            Error::InvalidProgram,
            ET_TEXT("planned tensor runs past the end of its buffer (end offset vs buffer size)"),
            // The end offset, saturated: offset + nbytes may not fit 64 bits.
            offset > INT64_MAX - nbytes ? INT64_MAX : static_cast<int64_t>(offset + nbytes),
            static_cast<int64_t>(arena), ET_TEXT("values"), i);
      planned = memory_->planned_memory()->address(id, offset, static_cast<size_t>(nbytes));
      if (planned == nullptr && nbytes != 0)
        return fail_value(Error::MemoryAllocationFailed,
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
            Error::NotSupported,
            ET_TEXT("external tensor; runtime built with ETMCU_FEATURE_EXTERNAL_DATA=0"), i);
      // EXTERNAL: bytes from a .ptd (or the .pte's named_data), looked up by fully qualified name.
      fb::String fqn = extra.string(schema::extra::kFullyQualifiedName);
      Result<NamedBlob> blob = find_external(fqn);
      if (!blob.ok()) {
        diag_->fail(Error::InvalidExternalData,
                    ET_TEXT("external tensor not found in the external data (pass the .ptd)"),
                    ET_TEXT("values"), i);
        diag_->set_name(fqn.data, fqn.size);
        return Error::InvalidExternalData;
      }
      const NamedBlob& b = blob.get();
      if (b.layout.present) {
        bool same = b.layout.dtype == out->dtype && b.layout.dim == out->dim;
        for (uint32_t d = 0; same && d < out->dim; ++d)
          same = b.layout.sizes[d] == out->sizes[d] && b.layout.dim_order[d] == out->dim_order[d];
        if (!same) {
          diag_->fail(
              Error::InvalidExternalData,
              ET_TEXT("external tensor layout (dtype/sizes/dim_order) differs from the program's"),
              ET_TEXT("values"), i);
          diag_->set_name(fqn.data, fqn.size);
          return Error::InvalidExternalData;
        }
      }
      if (b.bytes.size() < nbytes) {
        diag_->fail_numbers(Error::InvalidExternalData, ET_TEXT("external tensor data too small"),
                            static_cast<int64_t>(b.bytes.size()), static_cast<int64_t>(nbytes),
                            ET_TEXT("values"), i);
        diag_->set_name(fqn.data, fqn.size);
        return Error::InvalidExternalData;
      }
      if (planned != nullptr) {
        if (nbytes) memcpy(planned, b.bytes.data(), static_cast<size_t>(nbytes));
        out->data = planned;
      } else {
        out->data = const_cast<uint8_t*>(b.bytes.data());
      }
    } else if (buffer_idx > 0 && planned == nullptr) {
      ET_TRY(const uint8_t* data, file_.constant(buffer_idx, static_cast<size_t>(nbytes), diag_));
      out->data = const_cast<uint8_t*>(data);  // constants are never written by kernels
    } else if (buffer_idx > 0) {
      // Planned with initial contents from mutable_data_segments[0].
      if (!kFeatureMutableData)
        return fail_value(
            Error::NotSupported,
            ET_TEXT("tensor with initial data; runtime built with ETMCU_FEATURE_MUTABLE_DATA=0"),
            i);
      fb::Vector mds = file_.program().vector(schema::program::kMutableDataSegments);
      if (mds.size == 0)
        return fail_value(
            Error::InvalidProgram,
            ET_TEXT("tensor has initial data but the program has no mutable_data_segments"), i);
      fb::Table sub(mds.ref(0));
      fb::Vector offs = sub.vector(schema::subseg::kOffsets);
      uint32_t seg = sub.scalar<uint32_t>(schema::subseg::kSegmentIndex);
      if (buffer_idx >= offs.size || seg >= file_.num_segments())
        return fail_value(Error::InvalidProgram, ET_TEXT("mutable data index out of range"), i);
      Span<const uint8_t> bytes = file_.segment(seg);
      uint64_t off = offs.scalar<uint64_t>(buffer_idx);
      if (off > bytes.size() || nbytes > bytes.size() - off)
        return fail_value(Error::InvalidProgram,
                          ET_TEXT("mutable data runs past the end of its segment"), i);
      if (nbytes) memcpy(planned, bytes.data() + off, static_cast<size_t>(nbytes));
      out->data = planned;
    } else {
      out->data = planned;  // planned, or nullptr until set_input / set_output_data_ptr
    }
    size_t align = esize > 8 ? 8 : esize;
    if (out->data != nullptr && nbytes != 0 && reinterpret_cast<uintptr_t>(out->data) % align != 0)
      return fail_value(Error::InvalidProgram,
                        ET_TEXT("tensor data misaligned for its element type"), i);
    return Error::Ok;
  }

  Result<NamedBlob> find_external(fb::String fqn) {
    if (program_.external_data() != nullptr) {
      Result<NamedBlob> b = program_.external_data()->get(fqn.data, fqn.size);
      if (b.ok()) return b;
    }
    PteNamedData own(&file_);
    return own.get(fqn.data, fqn.size);
  }

  Error parse_values() {
    fb::Vector values = plan_.vector(sp::kValues);
    uint32_t next_tensor = 0;
    // Pass 1: scalars and tensors. Pass 2: lists (they refer to other values by index).
    for (uint32_t i = 0; i < values.size; ++i) {
      fb::Table v(values.ref(i));
      uint8_t type = v.scalar<uint8_t>(schema::evalue::kValType);
      fb::Table val = v.table(schema::evalue::kVal);
      EValue& e = m_.values_[i];
      switch (type) {
        case schema::kTagNull:
          e = EValue();
          break;
        case schema::kTagInt:
          e = EValue::from_int(val.scalar<int64_t>(0));
          break;
        case schema::kTagBool: {
          uint8_t b = val.scalar<uint8_t>(0);
          if (b > 1)
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
          fb::String s = val.string(0);
          e = EValue::from_span(Tag::String, s.data != nullptr ? s.data : "", s.size);
          break;
        }
        case schema::kTagTensor: {
          // The layout counted tensors whose table is present; only bytes that skipped
          // verification can differ (a tag without its value).
          if (!val.valid() || next_tensor >= layout_.tensors)
            return fail_value(Error::InvalidProgram, ET_TEXT("Tensor value without its table"), i);
          Tensor* t = &tensors_[next_tensor++];
          new (t) Tensor();
          ET_CHECK_OR_RETURN(parse_tensor(val, i, t) == Error::Ok, diag_->error);
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
          break;  // pass 2
        default:
          return fail_value(Error::InvalidProgram, ET_TEXT("EValue without a known type"), i);
      }
    }
    if (!kFeatureLists) return Error::Ok;
    uint32_t next_int = 0, next_tensor_item = 0;
    for (uint32_t i = 0; i < values.size; ++i) {
      fb::Table v(values.ref(i));
      uint8_t type = v.scalar<uint8_t>(schema::evalue::kValType);
      bool is_list = type >= schema::kTagIntList && type <= schema::kTagOptionalTensorList;
      if (!is_list) continue;
      fb::Vector items = v.table(schema::evalue::kVal).vector(0);
      EValue& e = m_.values_[i];
      // Writes stay inside the blocks the layout sized (a mismatch means unverified bytes).
      if ((type == schema::kTagIntList && items.size > layout_.list_ints - next_int) ||
          (type >= schema::kTagTensorList && items.size > layout_.list_tensors - next_tensor_item))
        return fail_value(Error::InvalidProgram, ET_TEXT("list larger than the method layout"), i);
      switch (type) {
        case schema::kTagIntList: {
          int64_t* out = list_ints_ + next_int;
          for (uint32_t k = 0; k < items.size; ++k) {
            int64_t ref = items.scalar<int64_t>(k);
            if (ref < 0 || ref >= values.size || !m_.values_[ref].is_int())
              return fail_value(Error::InvalidProgram,
                                ET_TEXT("IntList item does not refer to an Int value"), i);
            out[k] = m_.values_[ref].to_int();
          }
          next_int += items.size;
          e = EValue::from_span(Tag::ListInt, items.size ? out : nullptr, items.size);
          break;
        }
        case schema::kTagDoubleList:
          e = EValue::from_span(Tag::ListDouble, items.base, items.size);
          break;
        case schema::kTagBoolList:
          for (uint32_t k = 0; k < items.size; ++k)
            if (items.scalar<uint8_t>(k) > 1)
              return fail_value(Error::InvalidProgram, ET_TEXT("BoolList item is neither 0 nor 1"),
                                i);
          e = EValue::from_span(Tag::ListBool, items.base, items.size);
          break;
        case schema::kTagTensorList:
        case schema::kTagOptionalTensorList: {
          bool optional = type == schema::kTagOptionalTensorList;
          Tensor** out = list_tensors_ + next_tensor_item;
          for (uint32_t k = 0; k < items.size; ++k) {
            int32_t ref = items.scalar<int32_t>(k);
            if (optional && ref == -1) {
              out[k] = nullptr;
              continue;
            }
            if (ref < 0 || static_cast<uint32_t>(ref) >= values.size ||
                !m_.values_[ref].is_tensor())
              return fail_value(Error::InvalidProgram,
                                ET_TEXT("TensorList item does not refer to a Tensor value"), i);
            out[k] = &m_.values_[ref].to_tensor();
          }
          next_tensor_item += items.size;
          e = EValue::from_span(optional ? Tag::ListOptionalTensor : Tag::ListTensor,
                                items.size ? out : nullptr, items.size);
          break;
        }
        default:
          break;
      }
    }
    return Error::Ok;
  }

  Error parse_io() {
    fb::Vector in = plan_.vector(sp::kInputs);
    fb::Vector out = plan_.vector(sp::kOutputs);
    for (uint32_t k = 0; k < in.size; ++k)
      if (in.scalar<int32_t>(k) < 0 ||
          static_cast<uint32_t>(in.scalar<int32_t>(k)) >= m_.num_values_)
        return diag_->fail(Error::InvalidProgram, ET_TEXT("input value index out of range"),
                           ET_TEXT("inputs"), k);
    for (uint32_t k = 0; k < out.size; ++k)
      if (out.scalar<int32_t>(k) < 0 ||
          static_cast<uint32_t>(out.scalar<int32_t>(k)) >= m_.num_values_)
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
    PteNamedData named(&file_);
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
        fb::Vector inline_data = file_.program().vector(schema::program::kBackendDelegateData);
        if (index >= inline_data.size)
          return diag_->fail_numbers(Error::InvalidProgram,
                                     ET_TEXT("inline delegate data index out of range"), index,
                                     inline_data.size, ET_TEXT("delegates"), d);
        fb::Vector bytes = fb::Table(inline_data.ref(index)).vector(0);
        payload = Span<const uint8_t>(bytes.base, bytes.size);
      } else {
        if (index >= file_.num_segments())
          return diag_->fail_numbers(Error::InvalidProgram,
                                     ET_TEXT("delegate segment index out of range"), index,
                                     file_.num_segments(), ET_TEXT("delegates"), d);
        payload = file_.segment(index);
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
    if (v < 0 || static_cast<uint32_t>(v) >= m_.num_values_)
      return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("value index out of range"), v,
                                 static_cast<int64_t>(m_.num_values_) - 1, ET_TEXT("instruction"),
                                 instr);
    return Error::Ok;
  }

  Error resolve_control_flow(LoadedInstruction& li, uint32_t n, uint32_t chain_size) {
    ET_CHECK_OR_RETURN(check_index(li.a, n) == Error::Ok, diag_->error);
    switch (li.kind) {
      case schema::kInstrMoveCall:
        return check_index(li.b, n);
      case schema::kInstrJumpFalseCall:
        if (li.b < 0 || static_cast<uint32_t>(li.b) > chain_size)
          return diag_->fail_numbers(Error::InvalidProgram,
                                     ET_TEXT("jump destination out of range"), li.b, chain_size,
                                     ET_TEXT("instruction"), n);
        if (!m_.values_[li.a].is_bool() && !m_.values_[li.a].is_tensor())
          return diag_->fail(Error::InvalidProgram,
                             ET_TEXT("jump condition is neither Bool nor a tensor"),
                             ET_TEXT("instruction"), n);
        return Error::Ok;
      default:  // FreeCall
        if (!m_.values_[li.a].is_tensor())
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
  __attribute__((noinline)) Error check_overlaps(const LoadedInstruction& li, const char* name,
                                                 size_t len, uint32_t n) {
    if (li.num_args < 2) return Error::Ok;
    const EValue* ret = li.args[li.num_args - 1];
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
      for (uint32_t j = 0; j + 1 < li.num_args; ++j) {
        const EValue* a = li.args[j];
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
        const int64_t d =
            overlap_min_distance(name, len, Span<EValue*>(li.args, li.num_args), j, *out, after);
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
    uint32_t n = 0, next_arg = 0;
    if (chains.size != layout_.chains)
      return diag_->fail(Error::InvalidProgram, ET_TEXT("chains differ from the method layout"),
                         ET_TEXT("instruction"));
    for (uint32_t c = 0; c < chains.size; ++c) {
      m_.chain_starts_[c] = n;
      fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
      if (instrs.size > layout_.instructions - n)
        return diag_->fail(Error::InvalidProgram,
                           ET_TEXT("instructions differ from the method layout"),
                           ET_TEXT("instruction"), n);
      for (uint32_t k = 0; k < instrs.size; ++k, ++n) {
        fb::Table in(instrs.ref(k));
        uint8_t kind = in.scalar<uint8_t>(schema::instr::kArgsType);
        fb::Table args = in.table(schema::instr::kArgs);
        LoadedInstruction& li = m_.instructions_[n];
        li = LoadedInstruction{
            kind, 0, nullptr, nullptr, args.scalar<int32_t>(0), args.scalar<int32_t>(1)};
        switch (kind) {
          case schema::kInstrKernelCall:
          case schema::kInstrDelegateCall: {
            fb::Vector a = args.vector(schema::call::kArgs);
            if (a.size > layout_.call_args - next_arg)
              return diag_->fail(Error::InvalidProgram,
                                 ET_TEXT("call arguments differ from the method layout"),
                                 ET_TEXT("instruction"), n);
            li.args = call_args_ + next_arg;
            li.num_args = a.size;
            next_arg += a.size;
            for (uint32_t j = 0; j < a.size; ++j) {
              int32_t v = a.scalar<int32_t>(j);
              ET_CHECK_OR_RETURN(check_index(v, n) == Error::Ok, diag_->error);
              li.args[j] = &m_.values_[v];
            }
            if (kind == schema::kInstrDelegateCall) {
              if (li.a < 0 || static_cast<uint32_t>(li.a) >= m_.num_delegates_)
                return diag_->fail_numbers(Error::InvalidProgram,
                                           ET_TEXT("delegate_index out of range"), li.a,
                                           m_.num_delegates_, ET_TEXT("instruction"), n);
              break;
            }
            if (li.a < 0 || static_cast<uint32_t>(li.a) >= ops.size)
              return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("op_index out of range"),
                                         li.a, ops.size, ET_TEXT("instruction"), n);
            char name[kMaxOperatorName];
            fb::Table op(ops.ref(static_cast<uint32_t>(li.a)));
            size_t len = operator_full_name(op, name, sizeof(name));
            if (len == 0)
              return diag_->fail(Error::InvalidProgram, ET_TEXT("operator name empty or too long"),
                                 ET_TEXT("instruction"), n);
            li.kernel = find_kernel(name, len);
            if (kFeatureAliasCheck)
              ET_CHECK_OR_RETURN(check_overlaps(li, name, len, n) == Error::Ok, diag_->error);
            if (li.kernel == nullptr && missing_ == 0) {
              // Reported after every instruction was checked: structural errors come first.
              memcpy(missing_name_, name, len + 1);
              first_missing_ = n;
            }
            missing_ += li.kernel == nullptr ? 1 : 0;
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
            ET_CHECK_OR_RETURN(resolve_control_flow(li, n, instrs.size) == Error::Ok, diag_->error);
            break;
          default:
            return diag_->fail_numbers(Error::InvalidProgram, ET_TEXT("unknown instruction type"),
                                       kind, 5, ET_TEXT("instruction"), n);
        }
      }
    }
    m_.chain_starts_[chains.size] = n;
    m_.num_chains_ = chains.size;
    m_.num_instructions_ = n;
    if (missing_ > 0) {
      diag_->fail_numbers(
          Error::OperatorMissing,
          ET_TEXT("no kernel linked for operator (the numbers count calls without a kernel)"),
          missing_, 0, ET_TEXT("instruction"), first_missing_);
      diag_->set_name(missing_name_, strlen(missing_name_));
      return Error::OperatorMissing;
    }
    return Error::Ok;
  }
  MethodLayout layout_;
  uint32_t missing_ = 0;
  uint32_t first_missing_ = 0;
  char missing_name_[kMaxOperatorName] = {};

  const Program& program_;
  const PteFile& file_;
  fb::Table plan_;
  MemoryManager* memory_;
  Method& m_;
  Diagnostic* diag_;
  Tensor* tensors_ = nullptr;
  int64_t* list_ints_ = nullptr;
  Tensor** list_tensors_ = nullptr;
  EValue** call_args_ = nullptr;
};

Result<Method> Program::load_method(const char* name, MemoryManager* memory,
                                    Diagnostic* diag) const {
  Diagnostic local;
  Diagnostic* d = diag != nullptr ? diag : &local;
  ET_TRY(fb::Table plan, find_plan(name, d));
  if (memory == nullptr) return d->fail(Error::InvalidArgument, ET_TEXT("no MemoryManager"));
  Method m;
  m.meta_ = MethodMeta(&file_, plan);
  m.file_ = &file_;
  m.memory_ = memory;
  MethodLoader loader(*this, plan, memory, m, d);
  Error e = loader.load();
  if (e != Error::Ok) return e;     // ~Method destroys any delegate already initialised
  return static_cast<Method&&>(m);  // one move into the Result
}

Method::Method(Method&& o) : MethodState(o) {
  o.num_delegates_ = 0;  // the moved-from method no longer owns the delegate handles
}

Method::~Method() {
  for (uint32_t d = 0; d < num_delegates_; ++d)
    delegates_[d].backend->destroy(delegates_[d].handle);
}

const EValue& Method::get_input(size_t index) const {
  ET_CHECK(index < num_inputs_);
  return values_[inputs_[index]];
}

const EValue& Method::get_output(size_t index) const {
  ET_CHECK(index < num_outputs_);
  return values_[outputs_[index]];
}

Error Method::set_input(const EValue& input, size_t index) {
  if (index >= num_inputs_)
    return diag_.fail_numbers(Error::InvalidArgument, ET_TEXT("input index out of range"),
                              static_cast<int64_t>(index), num_inputs_);
  EValue& slot = values_[inputs_[index]];
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

Error Method::set_input_data(size_t index, const void* data, size_t nbytes) {
  if (index >= num_inputs_ || !values_[inputs_[index]].is_tensor())
    return diag_.fail(Error::InvalidArgument, ET_TEXT("input index out of range or not a tensor"));
  Tensor t = values_[inputs_[index]].to_tensor();
  if (nbytes != t.nbytes)
    return diag_.fail_numbers(Error::InvalidArgument,
                              ET_TEXT("input byte size differs from the program's"),
                              static_cast<int64_t>(nbytes), static_cast<int64_t>(t.nbytes),
                              ET_TEXT("inputs"), static_cast<int64_t>(index));
  t.data = const_cast<void*>(data);
  return set_input(EValue::from_tensor(&t), index);
}

Error Method::set_output_data_ptr(void* data, size_t nbytes, size_t index) {
  if (index >= num_outputs_ || !values_[outputs_[index]].is_tensor())
    return diag_.fail(Error::InvalidArgument, ET_TEXT("output index out of range or not a tensor"));
  Tensor& t = values_[outputs_[index]].to_tensor();
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
  if (i >= num_instructions_ || instructions_[i].kind != schema::kInstrKernelCall) return nullptr;
  fb::Vector ops = meta_.plan().vector(sp::kOperators);
  return operator_full_name(fb::Table(ops.ref(static_cast<uint32_t>(instructions_[i].a))), buf,
                            size)
             ? buf
             : nullptr;
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
    for (uint32_t i = 0; i < num_instructions_; ++i) {
      LoadedInstruction& li = instructions_[i];
      if (li.kind != schema::kInstrFreeCall || li.freed == nullptr) continue;
      values_[li.a].to_tensor().data = li.freed;
      li.freed = nullptr;
    }
    freed_ = false;
  }
  MemoryAllocator* temp = memory_->temp_allocator();
  MemoryAllocator no_temp;
  if (temp == nullptr) temp = &no_temp;
  KernelContext kctx;
  kctx.temp = temp;
  uint32_t steps = 0;
  for (uint32_t c = 0; c < num_chains_; ++c) {
    uint32_t start = chain_starts_[c], end = chain_starts_[c + 1];
    uint32_t pc = start;
    while (pc < end) {
      if (++steps > kMaxInstructionsPerExecute)
        return diag_.fail(Error::InvalidState, ET_TEXT("instruction limit reached (endless loop?)"),
                          ET_TEXT("instruction"), pc);
      const LoadedInstruction& in = instructions_[pc];
      et_timestamp_t start = 0;
      if (kInstructionHooks) {
        if (observer_.before != nullptr) observer_.before(observer_.ctx, pc);
        if (profiler_ != nullptr) start = et_pal_current_ticks();
      }
      Error e = Error::Ok;
      uint32_t next = pc + 1;
      switch (in.kind) {
        case schema::kInstrKernelCall:
          kctx.failure = nullptr;
          e = in.kernel(kctx, Span<EValue*>(in.args, in.num_args));
          if (e != Error::Ok) {
            diag_.clear();
            diag_.fail(e, kctx.failure != nullptr ? kctx.failure : ET_TEXT("kernel failed"),
                       ET_TEXT("instruction"), pc);
          }
          break;
        case schema::kInstrDelegateCall: {
          if (!kFeatureDelegates) break;  // rejected at load
          BackendExecutionContext bctx{temp, meta_.name()};
          const LoadedDelegate& d = delegates_[in.a];
          e = d.backend->execute(bctx, d.handle, Span<EValue*>(in.args, in.num_args));
          if (e != Error::Ok) {
            diag_.clear();
            diag_.fail(e, ET_TEXT("delegate execute failed"), ET_TEXT("instruction"), pc);
          }
          break;
        }
        case schema::kInstrMoveCall:
          if (kFeatureControlFlow) values_[in.b] = values_[in.a];
          break;
        case schema::kInstrJumpFalseCall: {
          if (!kFeatureControlFlow) break;
          const EValue& cond = values_[in.a];
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
            for (size_t k = 0, n = t.numel(); k < n; ++k) truth = truth && p[k] != 0;
          }
          if (!truth) next = start + static_cast<uint32_t>(in.b);
          break;
        }
        case schema::kInstrFreeCall:
          if (kFeatureControlFlow) {
            Tensor& t = values_[in.a].to_tensor();
            if (t.data != nullptr) {
              instructions_[pc].freed = t.data;
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
        if (profiler_ != nullptr) profiler_->record(pc, in.kind, start, et_pal_current_ticks());
        if (observer_.after != nullptr) observer_.after(observer_.ctx, pc);
      }
      if (e != Error::Ok) return e;
      pc = next;
    }
  }
  return Error::Ok;
}

}  // namespace etmcu
