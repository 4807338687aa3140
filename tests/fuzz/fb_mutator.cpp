// The structure-aware mutator (see fb_mutator.h): a tolerant schema-driven walk listing field
// sites, and boundary-value edits of them.
#include "tests/fuzz/fb_mutator.h"

#include <random>
#include <unordered_set>

#include "runtime/pte/verifier.h"

namespace etmcu::fuzz {
namespace {

class Walker {
 public:
  Walker(const uint8_t* buf, size_t size) : buf_(buf), size_(size > 0x7fffffff ? 0 : size) {}

  // Lists sites reachable from the root when the root is `root` (kProgram or kFlatTensor).
  std::vector<FieldSite> walk(schema::TableType root) {
    sites_.clear();
    seen_.clear();
    table_ = schema::kTableTypeCount;
    field_ = 0;
    plan_ = value_ = FieldSite::kNoIndex;
    if (size_ < 8) return sites_;
    add(0, 4, Site::kUOffset);
    if (root == schema::kProgram && size_ >= 40 && buf_[8] == 'e' && buf_[9] == 'h') {
      add(12, 4, Site::kHeader);
      for (uint32_t p = 16; p <= 32; p += 8) add(p, 8, Site::kHeader);
    }
    if (root == schema::kFlatTensor && size_ >= 48 && buf_[8] == 'F' && buf_[9] == 'H') {
      add(12, 4, Site::kHeader);
      for (uint32_t p = 16; p <= 40; p += 8) add(p, 8, Site::kHeader);
    }
    table(rd<uint32_t>(0), root, 0);
    return sites_;
  }
  // Positions of every table, vector and string found (targets for retargeted uoffsets).
  const std::vector<uint32_t>& objects() const { return objects_; }

 private:
  template <typename T>
  T rd(uint32_t pos) const {
    T v;
    std::memcpy(&v, buf_ + pos, sizeof(T));
    return v;
  }
  void add(uint32_t pos, uint8_t width, Site kind, uint8_t usize = 0) {
    if (sites_.size() < kMaxSites && pos <= size_ && width <= size_ - pos)
      sites_.push_back({pos, width, kind, usize, table_, field_, plan_, value_});
  }
  bool in(uint32_t pos, uint32_t n) const { return pos <= size_ && n <= size_ - pos; }
  uint32_t target(uint32_t loc) const {
    uint32_t off = rd<uint32_t>(loc);
    return off > size_ - loc ? static_cast<uint32_t>(size_) : loc + off;
  }

  void vector(uint32_t pos, uint32_t elem) {
    if (pos % 4 != 0 || !in(pos, 4)) return;
    objects_.push_back(pos);
    add(pos, 4, Site::kVecLength);
    if (elem == 0) return;
    uint32_t n = rd<uint32_t>(pos);
    for (uint32_t i = 0; i < n && i < 64; ++i)
      if (in(pos + 4 + i * elem, elem))
        add(pos + 4 + i * elem, static_cast<uint8_t>(elem), Site::kVecElement);
  }

  void table(uint32_t pos, schema::TableType type, int depth) {
    if (depth > 24 || pos % 4 != 0 || !in(pos, 4) || sites_.size() >= kMaxSites) return;
    if (!seen_.insert(pos * 64u + type).second) return;
    objects_.push_back(pos);
    add(pos, 4, Site::kSOffset);
    int64_t vt = static_cast<int64_t>(pos) - rd<int32_t>(pos);
    if (vt < 0 || vt % 2 != 0 || !in(static_cast<uint32_t>(vt), 4)) return;
    uint32_t v = static_cast<uint32_t>(vt);
    add(v, 2, Site::kVtableSize);
    add(v + 2, 2, Site::kVtableSize);
    uint16_t vt_size = rd<uint16_t>(v);
    if (!in(v, vt_size)) return;
    uint8_t tag = 0;
    uint8_t count = schema_field_count(type);
    for (uint8_t id = 0; id < count; ++id) {
      uint32_t entry = 4 + 2u * id;
      if (entry + 2 > vt_size) break;
      table_ = type;
      field_ = id;
      add(v + entry, 2, Site::kVtableEntry);
      uint16_t off = rd<uint16_t>(v + entry);
      if (off == 0) continue;
      uint32_t loc = pos + off;
      SchemaField f = schema_field(type, id);
      using schema::Kind;
      switch (f.kind) {
        case Kind::kNone:
          break;
        case Kind::kU8:
          add(loc, 1, Site::kScalar);
          break;
        case Kind::kU16:
          add(loc, 2, Site::kScalar);
          break;
        case Kind::kU32:
          add(loc, 4, Site::kScalar);
          break;
        case Kind::kU64:
          add(loc, 8, Site::kScalar);
          break;
        case Kind::kUnionType:
          if (in(loc, 1)) tag = buf_[loc];
          add(loc, 1, Site::kUnionTag, schema_union_size(f.ref));
          break;
        case Kind::kString:
          if (!in(loc, 4)) break;
          add(loc, 4, Site::kUOffset);
          vector(target(loc), 0);
          break;
        case Kind::kTable:
          if (!in(loc, 4)) break;
          add(loc, 4, Site::kUOffset);
          table(target(loc), static_cast<schema::TableType>(f.ref), depth + 1);
          break;
        case Kind::kVecU8:
        case Kind::kVecU32:
        case Kind::kVecU64:
          if (!in(loc, 4)) break;
          add(loc, 4, Site::kUOffset);
          vector(target(loc), f.kind == Kind::kVecU8 ? 1 : (f.kind == Kind::kVecU32 ? 4 : 8));
          break;
        case Kind::kVecTable: {
          if (!in(loc, 4)) break;
          add(loc, 4, Site::kUOffset);
          uint32_t vec = target(loc);
          vector(vec, 4);
          if (vec % 4 != 0 || !in(vec, 4)) break;
          uint32_t n = rd<uint32_t>(vec);
          // Program.execution_plan[i] and ExecutionPlan.values[i] name the sites below them.
          uint32_t* index = nullptr;
          if (type == schema::kProgram && f.ref == schema::kExecutionPlan) index = &plan_;
          if (type == schema::kExecutionPlan && f.ref == schema::kEValue) index = &value_;
          uint32_t saved = index ? *index : 0;
          for (uint32_t i = 0; i < n && in(vec + 4 + 4 * i, 4) && sites_.size() < kMaxSites; ++i) {
            if (index) *index = i;
            table(target(vec + 4 + 4 * i), static_cast<schema::TableType>(f.ref), depth + 1);
          }
          if (index) *index = saved;
          break;
        }
        case Kind::kUnionValue: {
          if (!in(loc, 4)) break;
          add(loc, 4, Site::kUOffset);
          schema::TableType member = schema_union_member(f.ref, tag);
          if (member != schema::kTableTypeCount) table(target(loc), member, depth + 1);
          break;
        }
      }
    }
  }

  static constexpr size_t kMaxSites = 1u << 16;
  uint8_t table_ = schema::kTableTypeCount, field_ = 0;  // where add() is called from
  uint32_t plan_ = FieldSite::kNoIndex, value_ = FieldSite::kNoIndex;
  const uint8_t* buf_;
  size_t size_;
  std::vector<FieldSite> sites_;
  std::vector<uint32_t> objects_;
  std::unordered_set<uint64_t> seen_;
};

// Values that sit on the boundaries the reader and executor check.
uint64_t interesting(std::mt19937& rng, uint64_t old, uint8_t width) {
  static const uint64_t k[] = {
      0,          1,          2,          3,          4,          7,          8,
      15,         16,         63,         64,         127,        128,        255,
      256,        0x7fff,     0x8000,     0xffff,     0x10000,    0x3fffffff, 0x40000000,
      0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff, 1ull << 32, 1ull << 40, 1ull << 62,
      1ull << 63, ~0ull,      ~0ull - 1};
  uint64_t v;
  switch (rng() % 6) {
    case 0:
    case 1:
      v = k[rng() % (sizeof(k) / sizeof(k[0]))];
      break;
    case 2:
      v = old + 1 + rng() % 8;
      break;
    case 3:
      v = old - 1 - rng() % 8;
      break;
    case 4:
      v = static_cast<uint64_t>(-static_cast<int64_t>(rng() % 4));  // -0..-3
      break;
    default:
      v = (static_cast<uint64_t>(rng()) << 32) | rng();
      break;
  }
  if (width < 8) v &= (1ull << (8 * width)) - 1;
  return v;
}

uint64_t load(const uint8_t* p, uint8_t width) {
  uint64_t v = 0;
  std::memcpy(&v, p, width);
  return v;
}
void store(uint8_t* p, uint8_t width, uint64_t v) { std::memcpy(p, &v, width); }

}  // namespace

bool is_kernel_argument(const FieldSite& s) {
  switch (s.table) {
    case schema::kInt:
    case schema::kDouble:
    case schema::kBool:
      return s.kind == Site::kScalar;
    case schema::kDoubleList:
    case schema::kBoolList:
      return s.kind == Site::kVecElement;
    case schema::kTensor:
      return (s.field == schema::tensor::kScalarType && s.kind == Site::kScalar) ||
             ((s.field == schema::tensor::kSizes || s.field == schema::tensor::kDimOrder) &&
              s.kind == Site::kVecElement);
    default:
      return false;
  }
}

bool mutate_structure(uint8_t* data, size_t size, unsigned seed, schema::TableType root,
                      Scope scope) {
  Walker w(data, size);
  std::vector<FieldSite> sites = w.walk(root);
  if (scope == Scope::kKernelArguments) {
    std::vector<FieldSite> args;
    for (const FieldSite& s : sites)
      if (is_kernel_argument(s)) args.push_back(s);
    sites.swap(args);
  }
  if (sites.empty()) return false;
  std::mt19937 rng(seed);
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    const FieldSite& s = sites[rng() % sites.size()];
    uint8_t* p = data + s.pos;
    uint64_t old = load(p, s.width);
    uint64_t v;
    switch (s.kind) {
      case Site::kUnionTag:
        v = rng() % (s.union_size + 3u);  // every known tag, NONE and a few unknown
        break;
      case Site::kUOffset:
        if (!w.objects().empty() && rng() % 2 == 0) {  // point at another object
          uint32_t to = w.objects()[rng() % w.objects().size()];
          v = static_cast<uint32_t>(to - s.pos);
        } else {
          v = interesting(rng, old, 4);
        }
        break;
      case Site::kVtableEntry:
        v = rng() % 3 == 0 ? 0 : interesting(rng, old, 2);
        break;
      case Site::kVecLength:
        v = rng() % 2 ? old + (rng() % 3) - 1 : interesting(rng, old, 4);
        break;
      case Site::kVecElement:
        if (s.width == 1)
          v = rng() % 2 ? rng() % 8 : interesting(rng, old, 1);  // dim orders, bools, dtypes
        else
          v = rng() % 3 == 0 ? rng() % 9 : interesting(rng, old, s.width);  // small sizes too
        break;
      case Site::kScalar:
        if (s.width == 1)
          v = rng() % 2 ? rng() % 16 : interesting(rng, old, 1);  // dtypes, enums, bools
        else
          v = interesting(rng, old, s.width);
        break;
      default:
        v = interesting(rng, old, s.width);
        break;
    }
    store(p, s.width, v);
  }
  return true;
}

std::vector<FieldSite> field_sites(const uint8_t* data, size_t size, schema::TableType root) {
  return Walker(data, size).walk(root);
}

}  // namespace etmcu::fuzz
