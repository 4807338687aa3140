// .npy and whole-file I/O for host tools.
#include "tools/cli/file_io.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace etmcu::host {

AlignedBytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  auto size = static_cast<size_t>(in.tellg());
  in.seekg(0);
  AlignedBytes bytes(size);
  if (size && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw std::runtime_error("cannot read '" + path + "'");
  return bytes;
}

void write_file(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size)))
    throw std::runtime_error("cannot write '" + path + "'");
}

namespace {
struct DescrMap {
  const char* descr;
  ScalarType type;
};
const DescrMap kDescrs[] = {
    {"<f4", ScalarType::Float},  {"<f8", ScalarType::Double}, {"<f2", ScalarType::Half},
    {"|i1", ScalarType::Char},   {"|u1", ScalarType::Byte},   {"<i2", ScalarType::Short},
    {"<i4", ScalarType::Int},    {"<i8", ScalarType::Long},   {"|b1", ScalarType::Bool},
    {"<u2", ScalarType::UInt16}, {"<u4", ScalarType::UInt32}, {"<u8", ScalarType::UInt64},
};

std::string dict_value(const std::string& header, const std::string& key) {
  auto k = header.find("'" + key + "'");
  if (k == std::string::npos) throw std::runtime_error("npy header has no '" + key + "'");
  auto colon = header.find(':', k);
  auto start = header.find_first_not_of(' ', colon + 1);
  if (header[start] == '(') return header.substr(start, header.find(')', start) - start + 1);
  if (header[start] == '\'')
    return header.substr(start + 1, header.find('\'', start + 1) - start - 1);
  return header.substr(start, header.find_first_of(",}", start) - start);
}
}  // namespace

std::string npy_descr(ScalarType t) {
  for (const auto& d : kDescrs)
    if (d.type == t) return d.descr;
  throw std::runtime_error(std::string("no numpy dtype for ") + scalar_type_name(t));
}

NpyArray read_npy(const std::string& path) {
  AlignedBytes f = read_file(path);
  const uint8_t* p = f.data();
  if (f.size() < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0)
    throw std::runtime_error("'" + path + "' is not a .npy file (bad magic)");
  size_t header_len, header_start;
  if (p[6] == 1) {
    header_len = p[8] | (p[9] << 8);
    header_start = 10;
  } else {
    if (f.size() < 12) throw std::runtime_error("'" + path + "': truncated .npy header");
    header_len = p[8] | (p[9] << 8) | (p[10] << 16) | (static_cast<size_t>(p[11]) << 24);
    header_start = 12;
  }
  if (header_start + header_len > f.size())
    throw std::runtime_error("'" + path + "': truncated .npy header");
  std::string header(reinterpret_cast<const char*>(p + header_start), header_len);
  NpyArray a;
  std::string descr = dict_value(header, "descr");
  if (descr == "<b1" || descr == "|?") descr = "|b1";
  if (descr == "<i1" || descr == "i1") descr = "|i1";
  if (descr == "<u1" || descr == "u1") descr = "|u1";
  bool found = false;
  for (const auto& d : kDescrs)
    if (descr == d.descr) {
      a.dtype = d.type;
      found = true;
    }
  if (!found) throw std::runtime_error("'" + path + "': unsupported npy dtype '" + descr + "'");
  if (dict_value(header, "fortran_order") != "False")
    throw std::runtime_error("'" + path + "': Fortran-order arrays are not supported");
  std::string shape = dict_value(header, "shape");
  size_t numel = 1;
  for (size_t i = 1; i < shape.size();) {
    size_t j = shape.find_first_of(",)", i);
    std::string item = shape.substr(i, j - i);
    if (item.find_first_not_of(' ') != std::string::npos) {
      a.shape.push_back(std::stoll(item));
      numel *= static_cast<size_t>(a.shape.back());
    }
    i = j + 1;
  }
  size_t nbytes = numel * element_size(a.dtype);
  size_t data_start = header_start + header_len;
  if (f.size() - data_start < nbytes)
    throw std::runtime_error("'" + path + "': file holds fewer bytes than its shape needs");
  a.data.assign(p + data_start, p + data_start + nbytes);
  return a;
}

void write_npy(const std::string& path, ScalarType dtype, const std::vector<int64_t>& shape,
               const void* data, size_t nbytes) {
  std::string sh = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    sh += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  sh += ")";
  std::string header =
      "{'descr': '" + npy_descr(dtype) + "', 'fortran_order': False, 'shape': " + sh + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(data), nbytes);
  write_file(path, out.data(), out.size());
}

}  // namespace etmcu::host
