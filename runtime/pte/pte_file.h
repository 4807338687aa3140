// PteFile: a verified, zero-copy view of a whole .pte in memory (flash or RAM): the identifier, the
// optional eh00 extended header, the flatbuffer (structurally verified), and the segments (bounds
// checked). Everything it returns points into the caller's bytes, which must outlive it.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/diagnostic.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/pte/flatbuffer.h"
#include "runtime/pte/schema.h"

namespace etmcu {

// Alignment the caller's .pte bytes must have (the schema's largest force_align).
constexpr size_t kProgramAlignment = 16;

struct ExtendedHeader {
  bool present = false;
  uint32_t length = 0;               // 24 or 32 in real files
  uint64_t program_size = 0;         // flatbuffer region, from byte 0
  uint64_t segment_base_offset = 0;  // 0 when there are no segments
  uint64_t segment_data_size = 0;    // only in the 32-byte form
};

class PteFile {
 public:
  // Parses and verifies `data` (the whole file). On failure `diag` says what and where. With
  // `verify_flatbuffer` false the structural flatbuffer walk is skipped (the identifier, header,
  // root offset, segment and constant bounds are still checked): only for bytes that were
  // verified before, e.g. a program embedded in firmware that the build verified.
  static Result<PteFile> parse(Span<const uint8_t> data, Diagnostic* diag,
                               bool verify_flatbuffer = true);
  // The same, into `f` (a PteFile kept where it is built: no copy).
  static Error parse_into(PteFile& f, Span<const uint8_t> data, Diagnostic* diag,
                          bool verify_flatbuffer = true);

  const ExtendedHeader& header() const { return header_; }
  fb::Table program() const { return program_; }
  Span<const uint8_t> file() const { return file_; }
  size_t flatbuffer_size() const { return flatbuffer_size_; }

  uint32_t num_segments() const { return program_.vector(schema::program::kSegments).size; }
  // Bytes of segment i (checked to lie inside the file at parse time).
  Span<const uint8_t> segment(uint32_t i) const;

  // Constant k (data_buffer_idx) with at least `nbytes` bytes, from constant_segment or the
  // deprecated inline constant_buffer; fails with a diagnostic naming the problem.
  Result<const uint8_t*> constant(uint32_t k, size_t nbytes, Diagnostic* diag) const;
  uint32_t num_constants() const;  // entries including the placeholder 0
  size_t constant_bytes() const;   // size of the constant segment or sum of inline buffers

 private:
  Span<const uint8_t> file_;
  ExtendedHeader header_;
  size_t flatbuffer_size_ = 0;
  fb::Table program_;
  bool uses_constant_segment_ = false;
};

// Parses the extended header at byte 8 if present; checks it against the file size.
Result<ExtendedHeader> parse_extended_header(Span<const uint8_t> data, Diagnostic* diag);

}  // namespace etmcu
