// Firmware loaders: ELF32 (RISC-V, little-endian) and the Verilog hex of `objcopy -O verilog`.
// Errors are returned as values; malformed input never crashes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace etmcu::sim {

struct Segment {
  uint32_t addr = 0;
  std::vector<uint8_t> bytes;  // file bytes followed by zero fill up to memsz
};

struct Symbol {
  uint32_t addr = 0;
  uint32_t size = 0;
  std::string name;
};

struct Image {
  std::vector<Segment> segments;
  std::vector<Symbol> functions;  // code symbols (STT_FUNC, global untyped labels), by address
  uint32_t entry = 0;
};

struct LoadResult {
  bool ok = false;
  std::string error;
  Image image;
};

LoadResult parse_elf(const std::vector<uint8_t>& file);
LoadResult parse_verilog_hex(std::string_view text);
// Reads the file and picks the parser: ELF magic -> ELF, anything else -> Verilog hex.
LoadResult load_firmware_file(const std::string& path);

}  // namespace etmcu::sim
