// PtdFile: FH01 header, old-layout detection, verification, named blob lookup.
#include "runtime/pte/ptd_file.h"

#include <string.h>

#include "runtime/pte/schema.h"
#include "runtime/pte/verifier.h"

namespace etmcu {
namespace {
constexpr uint32_t kHeaderLength = 40;
bool fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }
}  // namespace

Result<PtdFile> PtdFile::parse(Span<const uint8_t> data, Diagnostic* diag) {
  const uint8_t* p = data.data();
  if (p == nullptr || data.size() < 8 + kHeaderLength)
    return diag->fail(Error::InvalidExternalData, ET_TEXT("file too short to be a .ptd"));
  if (memcmp(p + 4, "FT01", 4) != 0)
    return diag->fail(Error::InvalidExternalData, ET_TEXT("not a .ptd: bytes 4..7 are not 'FT01'"),
                      ET_TEXT("identifier"));
  if (memcmp(p + 8, "FH01", 4) != 0)
    return diag->fail(Error::InvalidExternalData, ET_TEXT("missing FH01 header at byte 8"),
                      ET_TEXT("header"));
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
    return diag->fail(Error::InvalidArgument,
                      ET_TEXT(".ptd bytes must be 16-byte aligned in memory"));
  uint32_t length = fb::read<uint32_t>(p + 12);
  if (length < kHeaderLength)
    return diag->fail_numbers(Error::InvalidExternalData, ET_TEXT("FH01 header length too small"),
                              length, kHeaderLength, ET_TEXT("header"));
  uint64_t fb_offset = fb::read<uint64_t>(p + 16);
  uint64_t fb_size = fb::read<uint64_t>(p + 24);
  uint64_t seg_base = fb::read<uint64_t>(p + 32);
  uint64_t seg_size = fb::read<uint64_t>(p + 40);
  if (!fits(fb_offset, fb_size, data.size()))
    return diag->fail(Error::InvalidExternalData,
                      ET_TEXT("flatbuffer region runs past the end of the file"),
                      ET_TEXT("header"));
  if (!fits(seg_base, seg_size, data.size()))
    return diag->fail(Error::InvalidExternalData,
                      ET_TEXT("segment data runs past the end of the file"), ET_TEXT("header"));
  if (fb_offset < 8 + static_cast<uint64_t>(length))
    return diag->fail_numbers(Error::InvalidExternalData,
                              ET_TEXT("flatbuffer_offset points into the header"),
                              static_cast<int64_t>(fb_offset), 8 + length, ET_TEXT("header"));
  if (seg_size > 0 && fb_offset + fb_size > seg_base)
    return diag->fail_numbers(Error::InvalidExternalData,
                              ET_TEXT("flatbuffer region overlaps the segment data"),
                              static_cast<int64_t>(fb_offset + fb_size),
                              static_cast<int64_t>(seg_base), ET_TEXT("header"));
  size_t region = static_cast<size_t>(fb_offset + fb_size);

  // The pre-2025-06 layout has 5 root fields (version, tensor_alignment, tensors, segments,
  // named_data); the current one has 3. Look at the root vtable before verifying with either.
  uint32_t root = fb::read<uint32_t>(p);
  if (root % 4 == 0 && static_cast<uint64_t>(root) + 4 <= region) {
    int64_t vt = static_cast<int64_t>(root) - fb::read<int32_t>(p + root);
    // (A vtable is 2-byte aligned; an odd one is left for the verifier to reject.)
    if (vt >= 0 && vt % 2 == 0 && static_cast<uint64_t>(vt) + 4 <= region) {
      uint16_t vt_size = fb::read<uint16_t>(p + vt);
      for (uint32_t id = 3; id < 5; ++id) {
        uint32_t entry = 4 + 2 * id;
        if (entry + 2 <= vt_size && static_cast<uint64_t>(vt) + entry + 2 <= region &&
            fb::read<uint16_t>(p + vt + entry) != 0)
          return diag->fail(
              Error::InvalidExternalData,
              ET_TEXT("old FlatTensor layout (before 2025-06: tensors[] addressed by offset) is "
                      "not supported; re-export the .ptd with a current ExecuTorch"),
              ET_TEXT("FlatTensor"));
      }
    }
  }
  ET_CHECK_OR_RETURN(verify_buffer(p, region, schema::kFlatTensor, diag) == Error::Ok,
                     Error::InvalidExternalData);
  PtdFile f;
  f.file_ = data;
  f.root_ = fb::root(p);
  f.segment_base_ = seg_base;
  fb::Vector segs = f.root_.vector(schema::flat::kSegments);
  for (uint32_t i = 0; i < segs.size; ++i) {
    fb::Table s(segs.ref(i));
    uint64_t off = s.scalar<uint64_t>(schema::segment::kOffset);
    uint64_t size = s.scalar<uint64_t>(schema::segment::kSize);
    if (!fits(seg_base, off, data.size()) || !fits(seg_base + off, size, data.size()))
      return diag->fail(Error::InvalidExternalData,
                        ET_TEXT("segment runs past the end of the file"), ET_TEXT("segments"), i);
  }
  fb::Vector named = f.root_.vector(schema::flat::kNamedData);
  for (uint32_t i = 0; i < named.size; ++i) {
    fb::Table n(named.ref(i));
    if (!n.has(schema::named::kKey))
      return diag->fail(Error::InvalidExternalData, ET_TEXT("named_data entry without a key"),
                        ET_TEXT("named_data"), i);
    uint32_t si = n.scalar<uint32_t>(schema::named::kSegmentIndex);
    if (si >= segs.size)
      return diag->fail_numbers(Error::InvalidExternalData, ET_TEXT("segment_index out of range"),
                                si, segs.size, ET_TEXT("named_data"), i);
    fb::Table layout = n.table(schema::named::kTensorLayout);
    if (layout.valid()) {
      fb::Vector sizes = layout.vector(schema::layout::kSizes);
      fb::Vector order = layout.vector(schema::layout::kDimOrder);
      if (!is_valid_scalar_type(layout.scalar<int8_t>(schema::layout::kScalarType)) ||
          sizes.size != order.size)
        return diag->fail(Error::InvalidExternalData,
                          ET_TEXT("tensor_layout invalid (dtype or dim_order length)"),
                          ET_TEXT("named_data"), i);
    }
  }
  return f;
}

uint32_t PtdFile::num_keys() const { return root_.vector(schema::flat::kNamedData).size; }

const char* PtdFile::key(uint32_t i) const {
  return fb::Table(root_.vector(schema::flat::kNamedData).ref(i)).string(schema::named::kKey).data;
}

Result<NamedBlob> PtdFile::get(const char* key, size_t len) const {
  fb::Vector named = root_.vector(schema::flat::kNamedData);
  for (uint32_t i = 0; i < named.size; ++i) {
    fb::Table n(named.ref(i));
    if (!n.string(schema::named::kKey).equals(key, len)) continue;
    fb::Table s(root_.vector(schema::flat::kSegments)
                    .ref(n.scalar<uint32_t>(schema::named::kSegmentIndex)));
    NamedBlob blob;
    uint64_t start = segment_base_ + s.scalar<uint64_t>(schema::segment::kOffset);
    blob.bytes = Span<const uint8_t>(
        file_.data() + start, static_cast<size_t>(s.scalar<uint64_t>(schema::segment::kSize)));
    fb::Table layout = n.table(schema::named::kTensorLayout);
    if (layout.valid()) {
      blob.layout.present = true;
      blob.layout.dtype =
          static_cast<ScalarType>(layout.scalar<int8_t>(schema::layout::kScalarType));
      fb::Vector sizes = layout.vector(schema::layout::kSizes);
      blob.layout.sizes = sizes.data<int32_t>();
      blob.layout.dim_order = layout.vector(schema::layout::kDimOrder).data<uint8_t>();
      blob.layout.dim = sizes.size;
    }
    return blob;
  }
  return Error::NotFound;
}

}  // namespace etmcu
