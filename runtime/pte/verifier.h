// Structural verification of a flatbuffer against one of the schemas in schema.h: every table,
// vtable, vector, string and union reached from the root lies inside the buffer, vectors are
// aligned for their element type in memory, strings are NUL-terminated, union tags are known. After
// verify_buffer() succeeds, the fb:: accessors are safe on that buffer.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/diagnostic.h"
#include "runtime/core/error.h"
#include "runtime/pte/schema.h"

namespace etmcu {

// Maximum number of tables one verification visits (bounds the work on adversarial files whose
// tables are shared many times over).
constexpr uint32_t kVerifierMaxTables = 1u << 20;
constexpr int kVerifierMaxDepth = 24;

// `buf` holds `size` bytes starting at the flatbuffer's byte 0 (the root offset).
Error verify_buffer(const uint8_t* buf, size_t size, schema::TableType root, Diagnostic* diag);

// Name of a table type ("Tensor"), for messages.
const char* table_type_name(schema::TableType t);

// The verified schemas as data, for host tools (the fuzzers' structure-aware mutator walks files
// with them). Field `id` of table type `t`: its kind, and its table type (kTable, kVecTable) or
// union id (kUnionValue) in `ref`; kNone past the last id. Union `u`'s member for tag `tag`
// (1-based); kTableTypeCount when unknown. Not called by target code (the linker drops them).
struct SchemaField {
  schema::Kind kind;
  uint8_t ref;
};
SchemaField schema_field(schema::TableType t, uint8_t id);
uint8_t schema_field_count(schema::TableType t);
uint8_t schema_union_size(uint8_t u);
schema::TableType schema_union_member(uint8_t u, uint8_t tag);

}  // namespace etmcu
