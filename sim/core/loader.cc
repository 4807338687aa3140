// ELF32 and Verilog-hex parsing with bounds checks on every header, segment and symbol.
#include "core/loader.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

namespace etmcu::sim {
namespace {

LoadResult Fail(std::string msg) {
  LoadResult r;
  r.error = std::move(msg);
  return r;
}

uint32_t Rd32(const std::vector<uint8_t>& f, size_t off) {
  return static_cast<uint32_t>(f[off]) | (static_cast<uint32_t>(f[off + 1]) << 8) |
         (static_cast<uint32_t>(f[off + 2]) << 16) | (static_cast<uint32_t>(f[off + 3]) << 24);
}
uint16_t Rd16(const std::vector<uint8_t>& f, size_t off) {
  return static_cast<uint16_t>(f[off] | (f[off + 1] << 8));
}
bool InFile(const std::vector<uint8_t>& f, uint64_t off, uint64_t len) {
  return off <= f.size() && len <= f.size() - off;
}

constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kShtSymtab = 2;
constexpr uint8_t kSttFunc = 2;
constexpr uint8_t kSttNotype = 0;
constexpr uint8_t kStbGlobal = 1;

}  // namespace

LoadResult parse_elf(const std::vector<uint8_t>& f) {
  if (f.size() < 52) return Fail("ELF: file too small for an ELF header");
  if (!(f[0] == 0x7f && f[1] == 'E' && f[2] == 'L' && f[3] == 'F')) return Fail("ELF: bad magic");
  if (f[4] != 1) return Fail("ELF: not a 32-bit ELF (ELFCLASS32 required)");
  if (f[5] != 1) return Fail("ELF: not little-endian");
  if (Rd16(f, 18) != 243) return Fail("ELF: machine is not RISC-V (EM_RISCV = 243)");
  LoadResult r;
  r.image.entry = Rd32(f, 24);
  const uint32_t phoff = Rd32(f, 28), shoff = Rd32(f, 32);
  const uint16_t phentsize = Rd16(f, 42), phnum = Rd16(f, 44);
  const uint16_t shentsize = Rd16(f, 46), shnum = Rd16(f, 48);
  if (phnum == 0) return Fail("ELF: no program headers");
  if (phentsize < 32 || !InFile(f, phoff, static_cast<uint64_t>(phentsize) * phnum))
    return Fail("ELF: program header table outside the file");
  for (uint32_t i = 0; i < phnum; ++i) {
    const size_t ph = phoff + static_cast<size_t>(i) * phentsize;
    if (Rd32(f, ph) != kPtLoad) continue;
    const uint32_t offset = Rd32(f, ph + 4), paddr = Rd32(f, ph + 12);
    const uint32_t filesz = Rd32(f, ph + 16), memsz = Rd32(f, ph + 20);
    if (memsz == 0) continue;
    if (filesz > memsz) return Fail("ELF: segment filesz larger than memsz");
    if (!InFile(f, offset, filesz)) return Fail("ELF: segment data outside the file");
    if (memsz > (64u << 20)) return Fail("ELF: segment larger than 64 MiB");
    Segment s;
    s.addr = paddr;
    s.bytes.assign(f.begin() + offset, f.begin() + offset + filesz);
    s.bytes.resize(memsz, 0);
    r.image.segments.push_back(std::move(s));
  }
  if (r.image.segments.empty()) return Fail("ELF: no loadable segment");
  // Symbols (optional): STT_FUNC from .symtab.
  if (shoff != 0 && shnum != 0 && shentsize >= 40 &&
      InFile(f, shoff, static_cast<uint64_t>(shentsize) * shnum)) {
    for (uint32_t i = 0; i < shnum; ++i) {
      const size_t sh = shoff + static_cast<size_t>(i) * shentsize;
      if (Rd32(f, sh + 4) != kShtSymtab) continue;
      const uint32_t off = Rd32(f, sh + 16), size = Rd32(f, sh + 20), link = Rd32(f, sh + 24);
      const uint32_t entsize = Rd32(f, sh + 36);
      if (link >= shnum || entsize < 16 || !InFile(f, off, size)) continue;
      const size_t strsh = shoff + static_cast<size_t>(link) * shentsize;
      const uint32_t stroff = Rd32(f, strsh + 16), strsize = Rd32(f, strsh + 20);
      if (!InFile(f, stroff, strsize)) continue;
      for (uint32_t e = 0; e + entsize <= size; e += entsize) {
        const size_t sym = off + e;
        const uint32_t name = Rd32(f, sym), value = Rd32(f, sym + 4), ssize = Rd32(f, sym + 8);
        // Functions, plus global untyped code labels (assembly routines without .type).
        const uint8_t type = f[sym + 12] & 0xf, bind = f[sym + 12] >> 4;
        const uint16_t shndx = Rd16(f, sym + 14);
        const bool code_label =
            type == kSttNotype && bind == kStbGlobal && shndx != 0 && shndx < 0xff00;
        if ((type != kSttFunc && !code_label) || name >= strsize || name == 0) continue;
        const char* p = reinterpret_cast<const char*>(f.data() + stroff + name);
        const size_t maxlen = strsize - name;
        r.image.functions.push_back({value, ssize, std::string(p, strnlen(p, maxlen))});
      }
    }
    auto& fn = r.image.functions;
    std::sort(fn.begin(), fn.end(), [](const Symbol& a, const Symbol& b) {
      return a.addr != b.addr ? a.addr < b.addr : a.size > b.size;
    });
    fn.erase(std::unique(fn.begin(), fn.end(),
                         [](const Symbol& a, const Symbol& b) { return a.addr == b.addr; }),
             fn.end());
  }
  r.ok = true;
  return r;
}

LoadResult parse_verilog_hex(std::string_view text) {
  LoadResult r;
  uint64_t addr = 0;
  bool have_addr = false;
  Segment* cur = nullptr;
  size_t line = 1;
  size_t i = 0;
  auto hexval = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t j = i + (c == '@' ? 1 : 0);
    uint64_t v = 0;
    size_t digits = 0;
    while (j < text.size() && hexval(text[j]) >= 0) {
      v = (v << 4) | static_cast<uint64_t>(hexval(text[j]));
      ++j;
      if (++digits > 8) return Fail("hex: number too long on line " + std::to_string(line));
    }
    if (digits == 0 || (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))))
      return Fail("hex: unexpected character on line " + std::to_string(line));
    if (c == '@') {
      addr = v;
      have_addr = true;
      r.image.segments.push_back({static_cast<uint32_t>(v), {}});
      cur = &r.image.segments.back();
    } else {
      if (digits != 2)
        return Fail("hex: expected a byte (2 hex digits) on line " + std::to_string(line));
      if (!have_addr) return Fail("hex: data before the first @address");
      if (addr > 0xffffffffu) return Fail("hex: address overflow on line " + std::to_string(line));
      cur->bytes.push_back(static_cast<uint8_t>(v));
      ++addr;
    }
    i = j;
  }
  r.image.segments.erase(std::remove_if(r.image.segments.begin(), r.image.segments.end(),
                                        [](const Segment& s) { return s.bytes.empty(); }),
                         r.image.segments.end());
  if (r.image.segments.empty()) return Fail("hex: no data");
  r.image.entry = 0x80;
  r.ok = true;
  return r;
}

LoadResult load_firmware_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail("cannot open " + path);
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F')
    return parse_elf(data);
  return parse_verilog_hex(
      std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

}  // namespace etmcu::sim
