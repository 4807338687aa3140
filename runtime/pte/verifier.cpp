// The schema-driven flatbuffer verifier (see verifier.h). The schemas are data (field kinds per
// table), so one small walker verifies .pte, .ptd and .bpte files.
#include "runtime/pte/verifier.h"

#include "runtime/pte/flatbuffer.h"

namespace etmcu {
namespace {

using schema::Kind;
using schema::TableType;

struct Field {
  Kind kind;
  uint8_t ref;  // table type (kTable/kVecTable) or union id (kUnionValue)
};

struct TableDesc {
  const char* name;
  const Field* fields;
  uint8_t count;
};

#define F(k) Field{Kind::k, 0}
#define T(k, r) Field{Kind::k, schema::r}

constexpr Field kProgramF[] = {F(kU32), T(kVecTable, kExecutionPlan), T(kVecTable, kBuffer),
                               T(kVecTable, kBackendDelegateInlineData), T(kVecTable, kDataSegment),
                               T(kTable, kSubsegmentOffsets), T(kVecTable, kSubsegmentOffsets),
                               T(kVecTable, kNamedData)};
constexpr Field kPlanF[] = {F(kString), T(kTable, kContainerMetadata), T(kVecTable, kEValue),
                            F(kVecU32), F(kVecU32), T(kVecTable, kChain), T(kVecTable, kOperator),
                            T(kVecTable, kBackendDelegate), F(kVecU64),
                            T(kVecTable, kNonConstBufferDevice)};
constexpr Field kContainerMetaF[] = {F(kString), F(kString)};
constexpr Field kEValueF[] = {F(kUnionType), T(kUnionValue, kKernelTypes)};
constexpr Field kU64F[] = {F(kU64)};
constexpr Field kU8F[] = {F(kU8)};
constexpr Field kStringF[] = {F(kString)};
constexpr Field kVecU64F[] = {F(kVecU64)};
constexpr Field kVecU8F[] = {F(kVecU8)};
constexpr Field kVecU32F[] = {F(kVecU32)};
constexpr Field kTensorF[] = {F(kU8), F(kU32), F(kVecU32), F(kVecU8), F(kU8), F(kU32),
                              T(kTable, kAllocationDetails), F(kU8), F(kU8),
                              T(kTable, kExtraTensorInfo)};
constexpr Field kAllocF[] = {F(kU32), F(kU32), F(kU32)};
constexpr Field kExtraF[] = {F(kU64), F(kString), F(kU8), F(kU8), F(kU8)};
constexpr Field kTwoStringsF[] = {F(kString), F(kString)};
constexpr Field kInstructionF[] = {F(kUnionType), T(kUnionValue, kInstructionArguments)};
constexpr Field kCallF[] = {F(kU32), F(kVecU32)};
constexpr Field kTwoU32F[] = {F(kU32), F(kU32)};
constexpr Field kU32F[] = {F(kU32)};
constexpr Field kChainF[] = {F(kVecU32), F(kVecU32), T(kVecTable, kInstruction),
                             T(kVecTable, kFrameList)};
constexpr Field kFrameListF[] = {T(kVecTable, kFrame)};
constexpr Field kFrameF[] = {F(kString), F(kU32), F(kString), F(kString)};
constexpr Field kDelegateF[] = {F(kString), T(kTable, kBackendDelegateDataReference),
                                T(kVecTable, kCompileSpec)};
constexpr Field kDataRefF[] = {F(kU8), F(kU32)};
constexpr Field kCompileSpecF[] = {F(kString), F(kVecU8)};
constexpr Field kSegmentF[] = {F(kU64), F(kU64)};
constexpr Field kSubsegF[] = {F(kU32), F(kVecU64)};
constexpr Field kNamedDataF[] = {F(kString), F(kU32)};
constexpr Field kDeviceF[] = {F(kU32), F(kU8), F(kU8)};
constexpr Field kFlatTensorF[] = {F(kU32), T(kVecTable, kDataSegment), T(kVecTable, kFlatNamedData)};
constexpr Field kFlatNamedF[] = {F(kString), F(kU32), T(kTable, kTensorLayout)};
constexpr Field kLayoutF[] = {F(kU8), F(kVecU32), F(kVecU8)};
constexpr Field kBundledF[] = {F(kU32), T(kVecTable, kBundledMethodTestSuite), F(kVecU8)};
constexpr Field kSuiteF[] = {F(kString), T(kVecTable, kBundledMethodTestCase)};
constexpr Field kCaseF[] = {T(kVecTable, kBundledValue), T(kVecTable, kBundledValue)};
constexpr Field kBValueF[] = {F(kUnionType), T(kUnionValue, kBundledValueUnion)};
constexpr Field kBTensorF[] = {F(kU8), F(kVecU32), F(kVecU8), F(kVecU8)};

#undef F
#undef T
#define D(name, f) TableDesc{ET_TEXT(name), f, sizeof(f) / sizeof(Field)}

// Indexed by TableType.
constexpr TableDesc kTables[] = {
    D("Program", kProgramF), D("ExecutionPlan", kPlanF), D("ContainerMetadata", kContainerMetaF),
    D("EValue", kEValueF), TableDesc{ET_TEXT("Null"), nullptr, 0}, D("Int", kU64F),
    D("Bool", kU8F), D("Double", kU64F), D("Tensor", kTensorF), D("String", kStringF),
    D("IntList", kVecU64F), D("DoubleList", kVecU64F), D("BoolList", kVecU8F),
    D("TensorList", kVecU32F), D("OptionalTensorList", kVecU32F), D("AllocationDetails", kAllocF),
    D("ExtraTensorInfo", kExtraF), D("Operator", kTwoStringsF), D("Instruction", kInstructionF),
    D("KernelCall", kCallF), D("DelegateCall", kCallF), D("MoveCall", kTwoU32F),
    D("JumpFalseCall", kTwoU32F), D("FreeCall", kU32F), D("Chain", kChainF),
    D("FrameList", kFrameListF), D("Frame", kFrameF), D("BackendDelegate", kDelegateF),
    D("BackendDelegateDataReference", kDataRefF), D("CompileSpec", kCompileSpecF),
    D("BackendDelegateInlineData", kVecU8F), D("Buffer", kVecU8F), D("DataSegment", kSegmentF),
    D("SubsegmentOffsets", kSubsegF), D("NamedData", kNamedDataF),
    D("NonConstBufferDevice", kDeviceF), D("FlatTensor", kFlatTensorF),
    D("NamedData", kFlatNamedF), D("TensorLayout", kLayoutF), D("BundledProgram", kBundledF),
    D("BundledMethodTestSuite", kSuiteF), D("BundledMethodTestCase", kCaseF),
    D("Value", kBValueF), D("Tensor", kBTensorF),
};
#undef D
static_assert(sizeof(kTables) / sizeof(kTables[0]) == schema::kTableTypeCount, "one per type");

constexpr uint8_t kKernelTypesMembers[] = {schema::kNull, schema::kInt, schema::kBool,
                                           schema::kDouble, schema::kTensor, schema::kStringValue,
                                           schema::kIntList, schema::kDoubleList, schema::kBoolList,
                                           schema::kTensorList, schema::kOptionalTensorList};
constexpr uint8_t kInstructionMembers[] = {schema::kKernelCall, schema::kDelegateCall,
                                           schema::kMoveCall, schema::kJumpFalseCall,
                                           schema::kFreeCall};
constexpr uint8_t kBundledValueMembers[] = {schema::kBundledTensor, schema::kInt, schema::kBool,
                                            schema::kDouble};
struct UnionDesc {
  const uint8_t* members;
  uint8_t count;
};
constexpr UnionDesc kUnions[] = {{kKernelTypesMembers, sizeof(kKernelTypesMembers)},
                                 {kInstructionMembers, sizeof(kInstructionMembers)},
                                 {kBundledValueMembers, sizeof(kBundledValueMembers)}};

class Verifier {
 public:
  Verifier(const uint8_t* buf, size_t size, Diagnostic* diag) : buf_(buf), size_(size), diag_(diag) {}

  bool table(uint64_t pos, TableType type, int depth) {
    const TableDesc& desc = kTables[type];
    if (depth > kVerifierMaxDepth) return fail(ET_TEXT("tables nested too deeply"), desc.name, pos);
    if (++tables_ > kVerifierMaxTables)
      return fail(ET_TEXT("too many tables (file is malformed or adversarial)"), desc.name, pos);
    if (pos % 4 != 0 || pos + 4 > size_) return fail(ET_TEXT("table outside the buffer or misaligned"), desc.name, pos);
    int64_t vt = static_cast<int64_t>(pos) - fb::read<int32_t>(buf_ + pos);
    if (vt < 0 || vt % 2 != 0 || static_cast<uint64_t>(vt) + 4 > size_)
      return fail(ET_TEXT("vtable outside the buffer"), desc.name, pos);
    uint16_t vt_size = fb::read<uint16_t>(buf_ + vt);
    uint16_t inline_size = fb::read<uint16_t>(buf_ + vt + 2);
    if (vt_size < 4 || vt_size % 2 != 0 || static_cast<uint64_t>(vt) + vt_size > size_)
      return fail(ET_TEXT("vtable size invalid"), desc.name, pos);
    if (inline_size < 4 || pos + inline_size > size_)
      return fail(ET_TEXT("table size runs past the end of the buffer"), desc.name, pos);
    uint8_t union_tag = 0;
    bool union_tag_present = false;
    for (uint8_t id = 0; id < desc.count; ++id) {
      uint32_t entry = 4 + 2u * id;
      uint16_t off = entry + 2 <= vt_size ? fb::read<uint16_t>(buf_ + vt + entry) : 0;
      const Field& f = desc.fields[id];
      if (off == 0) {
        if (f.kind == Kind::kUnionValue && union_tag_present && union_tag != 0)
          return fail(ET_TEXT("union tag set but its value is missing"), desc.name, pos);
        continue;
      }
      uint32_t width = field_width(f.kind);
      // Bounded by the buffer, not by the table's inline size: real writers place 8-byte scalars
      // past the size they record (the flatbuffers verifier checks the same way).
      if (pos + off + width > size_)
        return fail(ET_TEXT("field runs past the end of the buffer"), desc.name, pos);
      uint64_t loc = pos + off;
      switch (f.kind) {
        case Kind::kNone: case Kind::kU8: case Kind::kU16: case Kind::kU32: case Kind::kU64:
          break;
        case Kind::kUnionType:
          union_tag = buf_[loc];
          union_tag_present = true;
          break;
        case Kind::kString:
          if (!string(target(loc), desc.name)) return false;
          break;
        case Kind::kTable:
          if (!table(target(loc), static_cast<TableType>(f.ref), depth + 1)) return false;
          break;
        case Kind::kVecU8:
          if (!vector(target(loc), 1, desc.name)) return false;
          break;
        case Kind::kVecU32:
          if (!vector(target(loc), 4, desc.name)) return false;
          break;
        case Kind::kVecU64:
          if (!vector(target(loc), 8, desc.name)) return false;
          break;
        case Kind::kVecTable: {
          uint64_t v = target(loc);
          if (!vector(v, 4, desc.name)) return false;
          uint32_t n = fb::read<uint32_t>(buf_ + v);
          for (uint32_t i = 0; i < n; ++i) {
            uint64_t slot = v + 4 + 4ull * i;
            if (!table(target(slot), static_cast<TableType>(f.ref), depth + 1)) return false;
          }
          break;
        }
        case Kind::kUnionValue: {
          const UnionDesc& u = kUnions[f.ref];
          if (!union_tag_present || union_tag == 0)
            return fail(ET_TEXT("union value present without a type tag"), desc.name, pos);
          if (union_tag > u.count)
            return fail_number(ET_TEXT("unknown union type tag (expected: the largest known tag)"),
                               desc.name, pos, union_tag, u.count);
          if (!table(target(loc), static_cast<TableType>(u.members[union_tag - 1]), depth + 1))
            return false;
          break;
        }
      }
    }
    if (union_tag_present && union_tag != 0) {
      // The tag was present: the loop above already required the value when its id is in the vtable.
      uint8_t value_id = 0;
      for (uint8_t id = 0; id < desc.count; ++id)
        if (desc.fields[id].kind == Kind::kUnionValue) value_id = id;
      uint32_t entry = 4 + 2u * value_id;
      if (entry + 2 > vt_size || fb::read<uint16_t>(buf_ + vt + entry) == 0)
        return fail(ET_TEXT("union tag set but its value is missing"), desc.name, pos);
    }
    return true;
  }

 private:
  static uint32_t field_width(Kind k) {
    switch (k) {
      case Kind::kU8: case Kind::kUnionType: return 1;
      case Kind::kU16: return 2;
      case Kind::kU64: return 8;
      case Kind::kNone: return 0;
      default: return 4;
    }
  }
  // Absolute position a uoffset at `loc` points to (may be out of range: checked by the callee).
  uint64_t target(uint64_t loc) const { return loc + fb::read<uint32_t>(buf_ + loc); }

  bool vector(uint64_t pos, uint32_t elem, const char* table_name) {
    if (pos + 4 > size_) return fail(ET_TEXT("vector outside the buffer"), table_name, pos);
    uint64_t n = fb::read<uint32_t>(buf_ + pos);
    if (pos + 4 + n * elem > size_)
      return fail(ET_TEXT("vector runs past the end of the buffer"), table_name, pos);
    if (reinterpret_cast<uintptr_t>(buf_ + pos + 4) % elem != 0)
      return fail(ET_TEXT("vector misaligned for its element type"), table_name, pos);
    return true;
  }
  bool string(uint64_t pos, const char* table_name) {
    if (pos + 4 > size_) return fail(ET_TEXT("string outside the buffer"), table_name, pos);
    uint64_t n = fb::read<uint32_t>(buf_ + pos);
    if (pos + 4 + n + 1 > size_)
      return fail(ET_TEXT("string runs past the end of the buffer"), table_name, pos);
    if (buf_[pos + 4 + n] != 0) return fail(ET_TEXT("string not NUL-terminated"), table_name, pos);
    return true;
  }
  bool fail(const char* what, const char* table_name, uint64_t pos) {
    if (diag_->error == Error::Ok) {
      diag_->fail(Error::InvalidProgram, what, table_name);
      diag_->offset = static_cast<int64_t>(pos);
    }
    return false;
  }
  bool fail_number(const char* what, const char* table_name, uint64_t pos, int64_t got,
                   int64_t expected) {
    if (diag_->error == Error::Ok) {
      diag_->fail_numbers(Error::InvalidProgram, what, got, expected, table_name);
      diag_->offset = static_cast<int64_t>(pos);
    }
    return false;
  }

  const uint8_t* buf_;
  uint64_t size_;
  Diagnostic* diag_;
  uint32_t tables_ = 0;
};

}  // namespace

const char* table_type_name(schema::TableType t) {
  return t < schema::kTableTypeCount ? kTables[t].name : "?";
}

Error verify_buffer(const uint8_t* buf, size_t size, schema::TableType root, Diagnostic* diag) {
  if (size < 8) return diag->fail(Error::InvalidProgram, ET_TEXT("buffer shorter than 8 bytes"));
  Verifier v(buf, size, diag);
  uint64_t root_pos = fb::read<uint32_t>(buf);
  return v.table(root_pos, root, 0) ? Error::Ok : Error::InvalidProgram;
}

}  // namespace etmcu
