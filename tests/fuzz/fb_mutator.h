// Structure-aware mutation of .pte/.ptd flatbuffers for the libFuzzer targets: a tolerant walk of
// the file with the reader's own schema descriptors (runtime/pte/verifier.h) lists every place a
// field lives (scalars, uoffsets, vector lengths and elements, union tags, vtable entries, the
// eh00/FH01 header), and a mutation rewrites one of them with a value chosen to hit a boundary.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/pte/schema.h"

namespace etmcu::fuzz {

enum class Site : uint8_t {
  kScalar,       // an inline scalar field (width 1, 2, 4 or 8)
  kUOffset,      // a 4-byte uoffset to a table, vector or string
  kVecLength,    // the 4-byte length prefix of a vector or string
  kVecElement,   // one scalar element of a vector (tensor sizes, dim orders, indices, offsets)
  kUnionTag,     // the ubyte tag of a union
  kVtableEntry,  // a 2-byte field offset inside a vtable (0 removes the field)
  kVtableSize,   // the vtable's own size or the table's inline size
  kSOffset,      // a table's signed offset to its vtable
  kHeader,       // an eh00 / FH01 header field (4 or 8 bytes)
};

struct FieldSite {
  uint32_t pos;
  uint8_t width;
  Site kind;
  uint8_t union_size;  // kUnionTag: number of known tags
  uint8_t table;       // schema::TableType holding the field (kTableTypeCount: header, root)
  uint8_t field;       // its field id
  // Where the field sits in a Program: the index of the ExecutionPlan and of the plan's value
  // (EValue) whose subtree holds it; kNoIndex outside any (header, instructions, segments...).
  static constexpr uint32_t kNoIndex = 0xffffffffu;
  uint32_t plan = kNoIndex;
  uint32_t value = kNoIndex;
};

// Which sites a mutation may edit: all, or only the values kernels receive as arguments (Int,
// Double and Bool values and list items, tensor dtypes, sizes and dim orders), which keeps the
// program's structure valid so that hostile arguments reach the kernels.
enum class Scope : uint8_t { kAll, kKernelArguments };
bool is_kernel_argument(const FieldSite& s);

// Applies 1-3 structure-aware edits to data[0..size) in place; returns false when the input has no
// structure to edit (the caller then falls back to byte-level mutation). Compiled optimised and
// without sanitizers or coverage (it is the fuzzer's code, not the code under test).
bool mutate_structure(uint8_t* data, size_t size, unsigned seed, schema::TableType root,
                      Scope scope = Scope::kAll);

// The sites mutate_structure chooses from (for tests and for counting).
std::vector<FieldSite> field_sites(const uint8_t* data, size_t size, schema::TableType root);

}  // namespace etmcu::fuzz
