// PteFile: identifier, eh00 header, flatbuffer verification, segment and constant bounds.
#include "runtime/pte/pte_file.h"

#include <string.h>

#include "runtime/core/features.h"
#include "runtime/pte/schema.h"
#include "runtime/pte/verifier.h"

namespace etmcu {
namespace {

constexpr size_t kMinFileSize = 16;
constexpr uint32_t kMinHeaderLength = 24;

// a + b <= limit without overflow.
bool fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }

}  // namespace

Result<ExtendedHeader> parse_extended_header(Span<const uint8_t> data, Diagnostic* diag) {
  ExtendedHeader h;
  const uint8_t* p = data.data();
  if (data.size() < 16 || p[8] != 'e' || p[9] != 'h') return h;
  if (ETMCU_BAD_PROGRAM(p[10] != '0' || p[11] != '0'))
    return diag->fail(Error::InvalidProgram,
                      ET_TEXT("extended header magic is not eh00 (incompatible header version)"),
                      ET_TEXT("header"));
  if (ETMCU_BAD_PROGRAM(data.size() < 8 + 4 + 4))
    return diag->fail(Error::InvalidProgram, ET_TEXT("file too short for the extended header"),
                      ET_TEXT("header"));
  h.present = true;
  h.length = fb::read<uint32_t>(p + 12);
  if (ETMCU_BAD_PROGRAM(h.length < kMinHeaderLength))
    return diag->fail_numbers(Error::InvalidProgram, ET_TEXT("extended header length too small"),
                              h.length, kMinHeaderLength, ET_TEXT("header"));
  if (ETMCU_BAD_PROGRAM(!fits(8, h.length, data.size())))
    return diag->fail_numbers(Error::InvalidProgram,
                              ET_TEXT("extended header runs past the end of the file"), h.length,
                              static_cast<int64_t>(data.size()) - 8, ET_TEXT("header"));
  h.program_size = fb::read<uint64_t>(p + 16);
  h.segment_base_offset = fb::read<uint64_t>(p + 24);
  if (h.length >= 32) h.segment_data_size = fb::read<uint64_t>(p + 32);
  if (ETMCU_BAD_PROGRAM(h.program_size < 8 + h.length || h.program_size > data.size()))
    return diag->fail_numbers(
        Error::InvalidProgram, ET_TEXT("extended header program_size outside the file"),
        static_cast<int64_t>(h.program_size), static_cast<int64_t>(data.size()), ET_TEXT("header"));
  if (ETMCU_BAD_PROGRAM(h.segment_base_offset != 0 && (h.segment_base_offset < h.program_size ||
                                                       h.segment_base_offset > data.size())))
    return diag->fail_numbers(Error::InvalidProgram,
                              ET_TEXT("extended header segment_base_offset outside the file"),
                              static_cast<int64_t>(h.segment_base_offset),
                              static_cast<int64_t>(data.size()), ET_TEXT("header"));
  if (ETMCU_BAD_PROGRAM(h.segment_data_size != 0 &&
                        !fits(h.segment_base_offset, h.segment_data_size, data.size())))
    return diag->fail_numbers(
        Error::InvalidProgram, ET_TEXT("file truncated: segment data runs past the end"),
        static_cast<int64_t>(data.size()),
        static_cast<int64_t>(h.segment_base_offset + h.segment_data_size), ET_TEXT("header"));
  return h;
}

Result<PteFile> PteFile::parse(Span<const uint8_t> data, Diagnostic* diag, bool verify_flatbuffer) {
  Result<PteFile> result(InPlace{});
  Error e = parse_into(result.get(), data, diag, verify_flatbuffer);
  if (e != Error::Ok) result.set_error(e);
  return result;
}

Error PteFile::parse_into(PteFile& f, Span<const uint8_t> data, Diagnostic* diag,
                          bool verify_flatbuffer) {
  const uint8_t* p = data.data();
  if (p == nullptr || ETMCU_BAD_PROGRAM(data.size() < kMinFileSize))
    return diag->fail_numbers(Error::InvalidProgram, ET_TEXT("file too short to be a program"),
                              static_cast<int64_t>(data.size()), kMinFileSize);
  if (ETMCU_BAD_PROGRAM(memcmp(p + 4, "ET12", 4) != 0)) {
    if (p[4] == 'E' && p[5] == 'T')
      return diag->fail(Error::InvalidProgram,
                        ET_TEXT("incompatible program version: identifier is not ET12"),
                        ET_TEXT("identifier"));
    return diag->fail(Error::InvalidProgram,
                      ET_TEXT("not an ExecuTorch program: bytes 4..7 are not 'ET12'"),
                      ET_TEXT("identifier"));
  }
  if (reinterpret_cast<uintptr_t>(p) % kProgramAlignment != 0)
    return diag->fail(Error::InvalidArgument,
                      ET_TEXT("program bytes must be 16-byte aligned in memory"));
  f.file_ = data;
  ET_TRY(f.header_, parse_extended_header(data, diag));
  f.flatbuffer_size_ =
      f.header_.present ? static_cast<size_t>(f.header_.program_size) : data.size();
  if (verify_flatbuffer) {
    ET_CHECK_OR_RETURN(verify_buffer(p, f.flatbuffer_size_, schema::kProgram, diag) == Error::Ok,
                       Error::InvalidProgram);
  } else {
    const uint32_t root = fb::read<uint32_t>(p);
    if (ETMCU_BAD_PROGRAM(root % 4 != 0 || root > f.flatbuffer_size_ - 4))
      return diag->fail_numbers(Error::InvalidProgram,
                                ET_TEXT("root table offset outside the file"), root,
                                static_cast<int64_t>(f.flatbuffer_size_) - 4, ET_TEXT("root"));
  }
  f.program_ = fb::root(p);

  // Segments: inside the file, after the flatbuffer.
  namespace pf = schema::program;
  fb::Vector segs = f.program_.vector(pf::kSegments);
  for (uint32_t i = 0; i < segs.size; ++i) {
    fb::Table s(segs.ref(i));
    uint64_t off = s.scalar<uint64_t>(schema::segment::kOffset);
    uint64_t size = s.scalar<uint64_t>(schema::segment::kSize);
    if (size == 0) continue;
    if (ETMCU_BAD_PROGRAM(!f.header_.present || f.header_.segment_base_offset == 0))
      return diag->fail(Error::InvalidProgram,
                        ET_TEXT("segment has data but the file has no segment base (eh00 header)"),
                        ET_TEXT("segments"), i);
    uint64_t start = f.header_.segment_base_offset;
    if (ETMCU_BAD_PROGRAM(!fits(start, off, data.size()) || !fits(start + off, size, data.size())))
      return diag->fail_numbers(Error::InvalidProgram,
                                ET_TEXT("segment runs past the end of the file"),
                                static_cast<int64_t>(start + off + size),
                                static_cast<int64_t>(data.size()), ET_TEXT("segments"), i);
  }

  // Constants: constant_segment (offsets non-empty) or the deprecated inline constant_buffer.
  fb::Table cs = f.program_.table(pf::kConstantSegment);
  fb::Vector offsets = cs.valid() ? cs.vector(schema::subseg::kOffsets) : fb::Vector{};
  fb::Vector buffers = f.program_.vector(pf::kConstantBuffer);
  if (ETMCU_BAD_PROGRAM(offsets.size > 0 && buffers.size > 0))
    return diag->fail(Error::InvalidProgram,
                      ET_TEXT("both constant_segment and constant_buffer hold constants"),
                      ET_TEXT("constants"));
  if (offsets.size > 0) {
    f.uses_constant_segment_ = true;
    uint32_t index = cs.scalar<uint32_t>(schema::subseg::kSegmentIndex);
    if (ETMCU_BAD_PROGRAM(index >= segs.size))
      return diag->fail_numbers(Error::InvalidProgram,
                                ET_TEXT("constant_segment.segment_index out of range"), index,
                                segs.size, ET_TEXT("constants"));
    uint64_t seg_size = fb::Table(segs.ref(index)).scalar<uint64_t>(schema::segment::kSize);
    for (uint32_t k = 0; k < offsets.size; ++k)
      if (ETMCU_BAD_PROGRAM(offsets.scalar<uint64_t>(k) > seg_size))
        return diag->fail_numbers(
            Error::InvalidProgram, ET_TEXT("constant offset past the end of the constant segment"),
            static_cast<int64_t>(offsets.scalar<uint64_t>(k)), static_cast<int64_t>(seg_size),
            ET_TEXT("constant_segment.offsets"), k);
  }
  return Error::Ok;
}

Span<const uint8_t> PteFile::segment(uint32_t i) const {
  fb::Table s(program_.vector(schema::program::kSegments).ref(i));
  uint64_t size = s.scalar<uint64_t>(schema::segment::kSize);
  if (size == 0) return Span<const uint8_t>();
  uint64_t start = header_.segment_base_offset + s.scalar<uint64_t>(schema::segment::kOffset);
  return Span<const uint8_t>(file_.data() + start, static_cast<size_t>(size));
}

uint32_t PteFile::num_constants() const {
  if (uses_constant_segment_)
    return program_.table(schema::program::kConstantSegment).vector(schema::subseg::kOffsets).size;
  return program_.vector(schema::program::kConstantBuffer).size;
}

size_t PteFile::constant_bytes() const {
  if (uses_constant_segment_) {
    uint32_t index = program_.table(schema::program::kConstantSegment)
                         .scalar<uint32_t>(schema::subseg::kSegmentIndex);
    return segment(index).size();
  }
  size_t total = 0;
  fb::Vector buffers = program_.vector(schema::program::kConstantBuffer);
  for (uint32_t i = 0; i < buffers.size; ++i) total += fb::Table(buffers.ref(i)).vector(0).size;
  return total;
}

Result<const uint8_t*> PteFile::constant(uint32_t k, size_t nbytes, Diagnostic* diag) const {
  uint32_t count = num_constants();
  if (k == 0 || k >= count)
    return diag->fail_numbers(Error::InvalidProgram, ET_TEXT("Tensor.data_buffer_idx out of range"),
                              k, static_cast<int64_t>(count) - 1);
  if (uses_constant_segment_) {
    fb::Table cs = program_.table(schema::program::kConstantSegment);
    Span<const uint8_t> seg = segment(cs.scalar<uint32_t>(schema::subseg::kSegmentIndex));
    uint64_t off = cs.vector(schema::subseg::kOffsets).scalar<uint64_t>(k);
    if (off > seg.size() || nbytes > seg.size() - off)
      return diag->fail_numbers(
          Error::InvalidProgram,
          ET_TEXT("constant tensor runs past the end of the constant segment"),
          static_cast<int64_t>(off + nbytes), static_cast<int64_t>(seg.size()));
    return seg.data() + off;
  }
  if (!kFeatureConstantBuffer)
    return diag->fail(Error::NotSupported, ET_TEXT("deprecated inline constant_buffer; runtime "
                                                   "built with ETMCU_FEATURE_CONSTANT_BUFFER=0"));
  fb::Vector storage =
      fb::Table(program_.vector(schema::program::kConstantBuffer).ref(k)).vector(0);
  if (nbytes > storage.size)
    return diag->fail_numbers(Error::InvalidProgram,
                              ET_TEXT("constant_buffer entry smaller than its tensor"),
                              storage.size, static_cast<int64_t>(nbytes));
  return storage.base;
}

}  // namespace etmcu
