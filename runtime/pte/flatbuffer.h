// Minimal flatbuffer access for target code (no flatbuffers library: it needs libstdc++). Reads are
// only valid after verify_buffer() accepted the buffer (see verifier.h); then they are unchecked
// and zero-copy. All numbers are little-endian; targets and hosts are little-endian.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace etmcu {
namespace fb {

// Reads a scalar the verifier proved aligned to min(sizeof(T), 4): one load on rv32 instead of a
// byte-by-byte assembly (the alignment check is part of verification). Cores that fault on an
// unaligned load (ARMv6-M: Cortex-M0/M0+/M1) read byte by byte instead: there the promise would
// turn bytes that skipped verification (Verification::Minimal) into a HardFault.
#if defined(__ARM_ARCH_6M__) || (defined(__arm__) && !defined(__ARM_FEATURE_UNALIGNED))
#define ETMCU_FB_ALIGNED_READS 0
#else
#define ETMCU_FB_ALIGNED_READS 1
#endif
template <typename T>
inline T read(const uint8_t* p) {
  T v;
#if ETMCU_FB_ALIGNED_READS
  memcpy(&v, __builtin_assume_aligned(p, sizeof(T) < 4 ? sizeof(T) : 4), sizeof(T));
#else
  memcpy(&v, p, sizeof(T));
#endif
  return v;
}

// A vector of scalars, strings or tables (element access by index).
struct Vector {
  const uint8_t* base = nullptr;  // first element
  uint32_t size = 0;

  template <typename T>
  T scalar(uint32_t i) const {
    return read<T>(base + i * sizeof(T));
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(base);
  }
  // Table or string element i (a uoffset relative to its own position).
  const uint8_t* ref(uint32_t i) const {
    const uint8_t* slot = base + 4 * i;
    return slot + read<uint32_t>(slot);
  }
};

// A string: bytes not including the NUL terminator that the verifier guaranteed.
struct String {
  const char* data = nullptr;
  uint32_t size = 0;
  // An absent string (data == nullptr) equals nothing, not even "" (and memcmp never sees null).
  bool equals(const char* s, size_t n) const {
    return data != nullptr && size == n && memcmp(data, s, n) == 0;
  }
  bool empty() const { return size == 0; }
};

inline String string_at(const uint8_t* p) {
  return String{reinterpret_cast<const char*>(p + 4), read<uint32_t>(p)};
}
inline Vector vector_at(const uint8_t* p) { return Vector{p + 4, read<uint32_t>(p)}; }

// A table: fields by id through its vtable; absent fields give defaults.
class Table {
 public:
  Table() = default;
  explicit Table(const uint8_t* p) : p_(p) {}
  bool valid() const { return p_ != nullptr; }
  const uint8_t* pointer() const { return p_; }

  // Byte offset of field `id` inside the table, 0 when absent. An absent table (nullptr) has no
  // fields, so every read from it gives the default: a malformed program whose union tag is NONE
  // and whose value is absent then fails as an unknown kind instead of reading address 0. Not
  // inlined: it is called from every field access, and one copy is much smaller than dozens.
  __attribute__((noinline)) uint16_t field_offset(int id) const {
    if (p_ == nullptr) return 0;
    const uint8_t* vt = p_ - read<int32_t>(p_);
    uint16_t vt_size = read<uint16_t>(vt);
    uint32_t entry = 4 + 2 * static_cast<uint32_t>(id);
    return entry + 2 <= vt_size ? read<uint16_t>(vt + entry) : 0;
  }
  bool has(int id) const { return field_offset(id) != 0; }
  template <typename T>
  T scalar(int id, T def = T()) const {
    uint16_t o = field_offset(id);
    return o ? read<T>(p_ + o) : def;
  }
  // Referenced table/vector/string start, nullptr when absent (out of line, like field_offset).
  __attribute__((noinline)) const uint8_t* ref(int id) const {
    uint16_t o = field_offset(id);
    return o ? p_ + o + read<uint32_t>(p_ + o) : nullptr;
  }
  Table table(int id) const { return Table(ref(id)); }
  Vector vector(int id) const {
    const uint8_t* r = ref(id);
    return r ? vector_at(r) : Vector{};
  }
  String string(int id) const {
    const uint8_t* r = ref(id);
    return r ? string_at(r) : String{};
  }

 private:
  const uint8_t* p_ = nullptr;
};

// The fields of one table with its vtable read once: for code reading several fields of a table
// in a loop (the method's per-call argument building), where Table's out-of-line lookup per field
// dominates. The same rules: absent fields give defaults, an absent table has no fields.
class Fields {
 public:
  __attribute__((always_inline)) explicit Fields(Table t) : p_(t.pointer()) {
    if (p_ == nullptr) return;
    vt_ = p_ - read<int32_t>(p_);
    vt_size_ = read<uint16_t>(vt_);
  }
  __attribute__((always_inline)) uint16_t offset(int id) const {
    uint32_t entry = 4 + 2 * static_cast<uint32_t>(id);
    return entry + 2 <= vt_size_ ? read<uint16_t>(vt_ + entry) : 0;
  }
  template <typename T>
  __attribute__((always_inline)) T scalar(int id, T def = T()) const {
    uint16_t o = offset(id);
    return o ? read<T>(p_ + o) : def;
  }
  __attribute__((always_inline)) const uint8_t* ref(int id) const {
    uint16_t o = offset(id);
    return o ? p_ + o + read<uint32_t>(p_ + o) : nullptr;
  }
  __attribute__((always_inline)) Table table(int id) const { return Table(ref(id)); }
  __attribute__((always_inline)) Vector vector(int id) const {
    const uint8_t* r = ref(id);
    return r ? vector_at(r) : Vector{};
  }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* vt_ = nullptr;
  uint16_t vt_size_ = 0;  // 0 for an absent table: every field absent
};

inline Table root(const uint8_t* buf) { return Table(buf + read<uint32_t>(buf)); }

}  // namespace fb
}  // namespace etmcu
