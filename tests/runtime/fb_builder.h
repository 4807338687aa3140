// A small flatbuffer writer for tests that need programs no exporter writes: tables, vectors and
// strings laid out front to back (a parent before its children, so every uoffset points forward),
// objects shareable by any number of later references, and byte-exact control over each field.
// Host test code only.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace etmcu::test {

class FbBuilder {
 public:
  using Obj = int;  // an object id; its position is known once it has been written
  struct Field {
    int id;          // field id in the schema
    int width;       // 1, 2, 4 or 8 for a scalar; 4 for a reference
    uint64_t value;  // scalar value
    Obj ref;         // >= 0: a uoffset to this object (written later or earlier)
  };
  static Field u8(int id, uint64_t v) { return {id, 1, v, -1}; }
  static Field u32(int id, uint64_t v) { return {id, 4, v, -1}; }
  static Field u64(int id, uint64_t v) { return {id, 8, v, -1}; }
  static Field ref(int id, Obj o) { return {id, 4, 0, o}; }

  // Byte 0..3: root uoffset (set by finish), 4..7: the file identifier.
  explicit FbBuilder(const char* identifier) : buf_(8, 0) {
    std::memcpy(buf_.data() + 4, identifier, 4);
  }

  // Reserves an id for an object written later (to refer to it before it exists).
  Obj declare() {
    pos_.push_back(0);
    return static_cast<Obj>(pos_.size() - 1);
  }

  Obj table(const std::vector<Field>& fields, Obj id = -1) {
    int max_id = -1;
    for (const Field& f : fields) max_id = f.id > max_id ? f.id : max_id;
    // vtable: size, inline size, one entry per id up to the largest present.
    uint16_t vt_size = static_cast<uint16_t>(4 + 2 * (max_id + 1));
    align(2);
    size_t vt = buf_.size();
    buf_.resize(vt + vt_size, 0);
    align(8);  // table start 8-aligned
    size_t t = buf_.size();
    buf_.resize(t + 4, 0);
    put_s32(t, static_cast<int32_t>(t - vt));
    for (const Field& f : fields) {
      align(static_cast<size_t>(f.width));
      size_t loc = buf_.size();
      buf_.resize(loc + static_cast<size_t>(f.width), 0);
      if (f.ref >= 0)
        refs_.push_back({loc, f.ref});
      else
        std::memcpy(buf_.data() + loc, &f.value, static_cast<size_t>(f.width));
      put16(vt + 4 + 2 * static_cast<size_t>(f.id), static_cast<uint16_t>(loc - t));
    }
    align(4);
    put16(vt, vt_size);
    put16(vt + 2, static_cast<uint16_t>(buf_.size() - t));
    return place(id, t);
  }

  // A vector of `count` scalars of `width` bytes, each `value` (or values[i] when given).
  Obj vec(int width, size_t count, uint64_t value = 0, const std::vector<uint64_t>& values = {},
          Obj id = -1) {
    align(4);
    while ((buf_.size() + 4) % static_cast<size_t>(width < 4 ? 4 : width) != 0) pad(4);
    size_t v = buf_.size();
    buf_.resize(v + 4 + count * static_cast<size_t>(width), 0);
    put32(v, static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) {
      uint64_t x = i < values.size() ? values[i] : value;
      std::memcpy(buf_.data() + v + 4 + i * static_cast<size_t>(width), &x,
                  static_cast<size_t>(width));
    }
    align(4);
    return place(id, v);
  }
  Obj vec_u8(const std::vector<uint64_t>& v) { return vec(1, v.size(), 0, v); }
  Obj vec_i32(const std::vector<uint64_t>& v) { return vec(4, v.size(), 0, v); }
  Obj vec_i64(const std::vector<uint64_t>& v) { return vec(8, v.size(), 0, v); }

  // A vector of references (tables or strings).
  Obj vec_refs(const std::vector<Obj>& objs, Obj id = -1) {
    align(4);
    size_t v = buf_.size();
    buf_.resize(v + 4 + 4 * objs.size(), 0);
    put32(v, static_cast<uint32_t>(objs.size()));
    for (size_t i = 0; i < objs.size(); ++i) refs_.push_back({v + 4 + 4 * i, objs[i]});
    return place(id, v);
  }

  Obj string(const std::string& s) { return string_as(s, -1); }
  Obj string_as(const std::string& s, Obj id) {
    align(4);
    size_t p = buf_.size();
    buf_.resize(p + 4 + s.size() + 1, 0);
    put32(p, static_cast<uint32_t>(s.size()));
    std::memcpy(buf_.data() + p + 4, s.data(), s.size());
    align(4);
    return place(id, p);
  }

  std::vector<uint8_t> finish(Obj root) {
    put32(0, static_cast<uint32_t>(pos_.at(static_cast<size_t>(root))));
    for (const Ref& r : refs_) {
      size_t target = pos_.at(static_cast<size_t>(r.obj));
      if (target <= r.slot) throw std::logic_error("FbBuilder: reference does not point forward");
      put32(r.slot, static_cast<uint32_t>(target - r.slot));
    }
    align(16);
    return buf_;
  }

  size_t position(Obj o) const { return pos_.at(static_cast<size_t>(o)); }

 private:
  struct Ref {
    size_t slot;
    Obj obj;
  };
  Obj place(Obj id, size_t p) {
    if (id < 0) id = declare();
    pos_[static_cast<size_t>(id)] = p;
    return id;
  }
  void pad(size_t n) { buf_.resize(buf_.size() + n, 0); }
  void align(size_t a) {
    while (buf_.size() % a != 0) buf_.push_back(0);
  }
  void put16(size_t at, uint16_t v) { std::memcpy(buf_.data() + at, &v, 2); }
  void put32(size_t at, uint32_t v) { std::memcpy(buf_.data() + at, &v, 4); }
  void put_s32(size_t at, int32_t v) { std::memcpy(buf_.data() + at, &v, 4); }

  std::vector<uint8_t> buf_;
  std::vector<size_t> pos_;
  std::vector<Ref> refs_;
};

}  // namespace etmcu::test
