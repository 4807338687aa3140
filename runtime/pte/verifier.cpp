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
  const Field* fields;
  uint8_t count;
};

#define F(k) \
  Field { Kind::k, 0 }
#define T(k, r) \
  Field { Kind::k, schema::r }

constexpr Field kProgramF[] = {F(kU32),
                               T(kVecTable, kExecutionPlan),
                               T(kVecTable, kBuffer),
                               T(kVecTable, kBackendDelegateInlineData),
                               T(kVecTable, kDataSegment),
                               T(kTable, kSubsegmentOffsets),
                               T(kVecTable, kSubsegmentOffsets),
                               T(kVecTable, kNamedData)};
constexpr Field kPlanF[] = {F(kString),
                            T(kTable, kContainerMetadata),
                            T(kVecTable, kEValue),
                            F(kVecU32),
                            F(kVecU32),
                            T(kVecTable, kChain),
                            T(kVecTable, kOperator),
                            T(kVecTable, kBackendDelegate),
                            F(kVecU64),
                            T(kVecTable, kNonConstBufferDevice)};
constexpr Field kContainerMetaF[] = {F(kString), F(kString)};
constexpr Field kEValueF[] = {F(kUnionType), T(kUnionValue, kKernelTypes)};
constexpr Field kU64F[] = {F(kU64)};
constexpr Field kU8F[] = {F(kU8)};
constexpr Field kStringF[] = {F(kString)};
constexpr Field kVecU64F[] = {F(kVecU64)};
constexpr Field kVecU8F[] = {F(kVecU8)};
constexpr Field kVecU32F[] = {F(kVecU32)};
constexpr Field kTensorF[] = {F(kU8),
                              F(kU32),
                              F(kVecU32),
                              F(kVecU8),
                              F(kU8),
                              F(kU32),
                              T(kTable, kAllocationDetails),
                              F(kU8),
                              F(kU8),
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
constexpr Field kFlatTensorF[] = {F(kU32), T(kVecTable, kDataSegment),
                                  T(kVecTable, kFlatNamedData)};
constexpr Field kFlatNamedF[] = {F(kString), F(kU32), T(kTable, kTensorLayout)};
constexpr Field kLayoutF[] = {F(kU8), F(kVecU32), F(kVecU8)};
constexpr Field kBundledF[] = {F(kU32), T(kVecTable, kBundledMethodTestSuite), F(kVecU8)};
constexpr Field kSuiteF[] = {F(kString), T(kVecTable, kBundledMethodTestCase)};
constexpr Field kCaseF[] = {T(kVecTable, kBundledValue), T(kVecTable, kBundledValue)};
constexpr Field kBValueF[] = {F(kUnionType), T(kUnionValue, kBundledValueUnion)};
constexpr Field kBTensorF[] = {F(kU8), F(kVecU32), F(kVecU8), F(kVecU8)};

#undef F
#undef T
#define D(f) \
  TableDesc { f, sizeof(f) / sizeof(Field) }

// Indexed by TableType.
constexpr TableDesc kTables[] = {
    D(kProgramF),   D(kPlanF),       D(kContainerMetaF), D(kEValueF),      TableDesc{nullptr, 0},
    D(kU64F),       D(kU8F),         D(kU64F),           D(kTensorF),      D(kStringF),
    D(kVecU64F),    D(kVecU64F),     D(kVecU8F),         D(kVecU32F),      D(kVecU32F),
    D(kAllocF),     D(kExtraF),      D(kTwoStringsF),    D(kInstructionF), D(kCallF),
    D(kCallF),      D(kTwoU32F),     D(kTwoU32F),        D(kU32F),         D(kChainF),
    D(kFrameListF), D(kFrameF),      D(kDelegateF),      D(kDataRefF),     D(kCompileSpecF),
    D(kVecU8F),     D(kVecU8F),      D(kSegmentF),       D(kSubsegF),      D(kNamedDataF),
    D(kDeviceF),    D(kFlatTensorF), D(kFlatNamedF),     D(kLayoutF),      D(kBundledF),
    D(kSuiteF),     D(kCaseF),       D(kBValueF),        D(kBTensorF),
};
#if ETMCU_DIAGNOSTIC_TEXT
// Indexed by TableType, for messages only (not linked when diagnostic text is off).
const char* const kTableNames[] = {"Program",
                                   "ExecutionPlan",
                                   "ContainerMetadata",
                                   "EValue",
                                   "Null",
                                   "Int",
                                   "Bool",
                                   "Double",
                                   "Tensor",
                                   "String",
                                   "IntList",
                                   "DoubleList",
                                   "BoolList",
                                   "TensorList",
                                   "OptionalTensorList",
                                   "AllocationDetails",
                                   "ExtraTensorInfo",
                                   "Operator",
                                   "Instruction",
                                   "KernelCall",
                                   "DelegateCall",
                                   "MoveCall",
                                   "JumpFalseCall",
                                   "FreeCall",
                                   "Chain",
                                   "FrameList",
                                   "Frame",
                                   "BackendDelegate",
                                   "BackendDelegateDataReference",
                                   "CompileSpec",
                                   "BackendDelegateInlineData",
                                   "Buffer",
                                   "DataSegment",
                                   "SubsegmentOffsets",
                                   "NamedData",
                                   "NonConstBufferDevice",
                                   "FlatTensor",
                                   "NamedData",
                                   "TensorLayout",
                                   "BundledProgram",
                                   "BundledMethodTestSuite",
                                   "BundledMethodTestCase",
                                   "Value",
                                   "Tensor"};
static_assert(sizeof(kTableNames) / sizeof(kTableNames[0]) == schema::kTableTypeCount,
              "one per type");
#endif
const char* name_of(TableType t) {
#if ETMCU_DIAGNOSTIC_TEXT
  return kTableNames[t];
#else
  (void)t;
  return "";
#endif
}

#undef D
static_assert(sizeof(kTables) / sizeof(kTables[0]) == schema::kTableTypeCount, "one per type");

constexpr uint8_t kKernelTypesMembers[] = {schema::kNull,
                                           schema::kInt,
                                           schema::kBool,
                                           schema::kDouble,
                                           schema::kTensor,
                                           schema::kStringValue,
                                           schema::kIntList,
                                           schema::kDoubleList,
                                           schema::kBoolList,
                                           schema::kTensorList,
                                           schema::kOptionalTensorList};
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
  // Positions are 32-bit: a flatbuffer is at most 2 GiB (checked by verify_buffer), and 64-bit
  // arithmetic costs code on rv32. Every sum below is formed only after checking it cannot wrap.
  Verifier(const uint8_t* buf, uint32_t size, Diagnostic* diag)
      : buf_(buf), size_(size), diag_(diag) {}

  bool table(uint32_t pos, TableType type, int depth) {
    const TableDesc& desc = kTables[type];
    if (depth > kVerifierMaxDepth)
      return fail(ET_TEXT("tables nested too deeply"), name_of(type), pos);
    if (++tables_ > kVerifierMaxTables)
      return fail(ET_TEXT("too many tables (file is malformed or adversarial)"), name_of(type),
                  pos);
    if (pos % 4 != 0 || pos > size_ - 4)
      return fail(ET_TEXT("table outside the buffer or misaligned"), name_of(type), pos);
    int32_t soffset = fb::read<int32_t>(buf_ + pos);
    // vtable = pos - soffset, inside [0, size - 4].
    uint32_t vt;
    if (soffset >= 0) {
      if (static_cast<uint32_t>(soffset) > pos)
        return fail(ET_TEXT("vtable outside the buffer"), name_of(type), pos);
      vt = pos - static_cast<uint32_t>(soffset);
    } else {
      uint32_t back = 0u - static_cast<uint32_t>(soffset);
      if (back > size_ - 4 - pos)
        return fail(ET_TEXT("vtable outside the buffer"), name_of(type), pos);
      vt = pos + back;
    }
    if (vt % 2 != 0 || vt > size_ - 4)
      return fail(ET_TEXT("vtable outside the buffer"), name_of(type), pos);
    uint16_t vt_size = fb::read<uint16_t>(buf_ + vt);
    uint16_t inline_size = fb::read<uint16_t>(buf_ + vt + 2);
    if (vt_size < 4 || vt_size % 2 != 0 || vt_size > size_ - vt)
      return fail(ET_TEXT("vtable size invalid"), name_of(type), pos);
    if (inline_size < 4 || inline_size > size_ - pos)
      return fail(ET_TEXT("table size runs past the end of the buffer"), name_of(type), pos);
    uint8_t union_tag = 0;
    for (uint8_t id = 0; id < desc.count; ++id) {
      uint32_t entry = 4 + 2u * id;
      uint16_t off = entry + 2 <= vt_size ? fb::read<uint16_t>(buf_ + vt + entry) : 0;
      const Field& f = desc.fields[id];
      if (off == 0) {
        if (f.kind == Kind::kUnionValue && union_tag != 0)
          return fail(ET_TEXT("union tag set but its value is missing"), name_of(type), pos);
        continue;
      }
      // Bounded by the buffer, not by the table's inline size: real writers place 8-byte scalars
      // past the size they record (the flatbuffers verifier checks the same way).
      uint32_t width = field_width(f.kind);
      if (off > size_ - pos || width > size_ - pos - off)
        return fail(ET_TEXT("field runs past the end of the buffer"), name_of(type), pos);
      uint32_t loc = pos + off;
      // Writers align scalars; readers rely on it. (Masks, not %: division costs ~35 cycles on
      // the CV32E40P.)
      if ((loc & ((width < 4 ? width : 4) - 1)) != 0)
        return fail(ET_TEXT("field misaligned"), name_of(type), pos);
      switch (f.kind) {
        case Kind::kNone:
        case Kind::kU8:
        case Kind::kU16:
        case Kind::kU32:
        case Kind::kU64:
          break;
        case Kind::kUnionType:
          union_tag = buf_[loc];
          break;
        case Kind::kString:
          if (!string(target(loc), name_of(type))) return false;
          break;
        case Kind::kTable:
          if (!table(target(loc), static_cast<TableType>(f.ref), depth + 1)) return false;
          break;
        case Kind::kVecU8:
        case Kind::kVecU32:
        case Kind::kVecU64:
          if (!vector(target(loc), vector_element(f.kind), name_of(type))) return false;
          break;
        case Kind::kVecTable: {
          uint32_t v = target(loc);
          if (!vector(v, 4, name_of(type))) return false;
          uint32_t n = fb::read<uint32_t>(buf_ + v);
          for (uint32_t i = 0; i < n; ++i)
            if (!table(target(v + 4 + 4 * i), static_cast<TableType>(f.ref), depth + 1))
              return false;
          break;
        }
        case Kind::kUnionValue: {
          const UnionDesc& u = kUnions[f.ref];
          if (union_tag == 0)
            return fail(ET_TEXT("union value present without a type tag"), name_of(type), pos);
          if (union_tag > u.count)
            return fail_number(ET_TEXT("unknown union type tag (expected: the largest known tag)"),
                               name_of(type), pos, union_tag, u.count);
          if (!table(target(loc), static_cast<TableType>(u.members[union_tag - 1]), depth + 1))
            return false;
          union_tag = 0;  // consumed
          break;
        }
      }
    }
    if (union_tag != 0)  // a tag whose value id lies beyond this vtable
      return fail(ET_TEXT("union tag set but its value is missing"), name_of(type), pos);
    return true;
  }

 private:
  static uint32_t field_width(Kind k) {
    switch (k) {
      case Kind::kU8:
      case Kind::kUnionType:
        return 1;
      case Kind::kU16:
        return 2;
      case Kind::kU64:
        return 8;
      case Kind::kNone:
        return 1;
      default:
        return 4;
    }
  }
  static uint32_t log2_of(uint32_t elem) { return elem == 1 ? 0 : (elem == 4 ? 2 : 3); }
  static uint32_t vector_element(Kind k) {
    return k == Kind::kVecU8 ? 1 : (k == Kind::kVecU32 ? 4 : 8);
  }
  // Absolute position a uoffset at `loc` points to; size_ (never valid) when it would wrap.
  uint32_t target(uint32_t loc) const {
    uint32_t off = fb::read<uint32_t>(buf_ + loc);
    return off > size_ - loc ? size_ : loc + off;
  }

  bool vector(uint32_t pos, uint32_t elem, const char* table_name) {
    if (size_ < 4 || pos > size_ - 4 || pos % 4 != 0)
      return fail(ET_TEXT("vector outside the buffer or misaligned"), table_name, pos);
    uint32_t n = fb::read<uint32_t>(buf_ + pos);
    if (n > (size_ - pos - 4) >> log2_of(elem))
      return fail(ET_TEXT("vector runs past the end of the buffer"), table_name, pos);
    if ((reinterpret_cast<uintptr_t>(buf_ + pos + 4) & (elem - 1)) != 0)
      return fail(ET_TEXT("vector misaligned for its element type"), table_name, pos);
    return true;
  }
  bool string(uint32_t pos, const char* table_name) {
    if (size_ < 4 || pos > size_ - 4 || pos % 4 != 0)
      return fail(ET_TEXT("string outside the buffer or misaligned"), table_name, pos);
    uint32_t n = fb::read<uint32_t>(buf_ + pos);
    if (n >= size_ - pos - 4)
      return fail(ET_TEXT("string runs past the end of the buffer"), table_name, pos);
    if (buf_[pos + 4 + n] != 0) return fail(ET_TEXT("string not NUL-terminated"), table_name, pos);
    return true;
  }
  bool fail(const char* what, const char* table_name, uint32_t pos) {
    if (diag_->error == Error::Ok) {
      diag_->fail(Error::InvalidProgram, what, table_name);
      diag_->offset = pos;
    }
    return false;
  }
  bool fail_number(const char* what, const char* table_name, uint32_t pos, int64_t got,
                   int64_t expected) {
    if (diag_->error == Error::Ok) {
      diag_->fail_numbers(Error::InvalidProgram, what, got, expected, table_name);
      diag_->offset = pos;
    }
    return false;
  }

  const uint8_t* buf_;
  uint32_t size_;
  Diagnostic* diag_;
  uint32_t tables_ = 0;
};

}  // namespace

const char* table_type_name(schema::TableType t) {
  return t < schema::kTableTypeCount ? name_of(t) : "?";
}

SchemaField schema_field(schema::TableType t, uint8_t id) {
  if (t >= schema::kTableTypeCount || id >= kTables[t].count) return {Kind::kNone, 0};
  return {kTables[t].fields[id].kind, kTables[t].fields[id].ref};
}
uint8_t schema_field_count(schema::TableType t) {
  return t < schema::kTableTypeCount ? kTables[t].count : 0;
}
uint8_t schema_union_size(uint8_t u) { return u < schema::kUnionCount ? kUnions[u].count : 0; }
schema::TableType schema_union_member(uint8_t u, uint8_t tag) {
  if (u >= schema::kUnionCount || tag == 0 || tag > kUnions[u].count)
    return schema::kTableTypeCount;
  return static_cast<schema::TableType>(kUnions[u].members[tag - 1]);
}

Error verify_buffer(const uint8_t* buf, size_t size, schema::TableType root, Diagnostic* diag) {
  if (size < 8) return diag->fail(Error::InvalidProgram, ET_TEXT("buffer shorter than 8 bytes"));
  if (size > 0x7fffffffu)
    return diag->fail(Error::InvalidProgram, ET_TEXT("flatbuffer larger than 2 GiB"));
  Verifier v(buf, static_cast<uint32_t>(size), diag);
  return v.table(fb::read<uint32_t>(buf), root, 0) ? Error::Ok : Error::InvalidProgram;
}

}  // namespace etmcu
