// Session: host-side loading with exactly sized pools.
#include "tools/cli/session.h"

#include <cstring>
#include <stdexcept>

namespace etmcu::host {

std::string describe(const Diagnostic& d) {
  char buf[512];
  format_diagnostic(d, buf, sizeof(buf));
  return buf;
}

std::unique_ptr<Session> Session::open(const uint8_t* pte, size_t size, const uint8_t* ptd,
                                       size_t ptd_size) {
  auto s = std::make_unique<Session>();
  s->pte_ = AlignedBytes(size);
  if (size) std::memcpy(s->pte_.data(), pte, size);
  Diagnostic diag;
  const NamedDataMap* external = nullptr;
  if (ptd != nullptr) {
    s->ptd_ = AlignedBytes(ptd_size);
    if (ptd_size) std::memcpy(s->ptd_.data(), ptd, ptd_size);
    auto f = PtdFile::parse(Span<const uint8_t>(s->ptd_.data(), ptd_size), &diag);
    if (!f.ok()) throw std::runtime_error("cannot load external data: " + describe(diag));
    s->ptd_file_.emplace(f.get());
    external = &*s->ptd_file_;
  }
  auto p = Program::load(Span<const uint8_t>(s->pte_.data(), size), &diag, external);
  if (!p.ok()) throw std::runtime_error("cannot load program: " + describe(diag));
  s->program_.emplace(p.get());
  return s;
}

std::unique_ptr<Session> Session::open_files(const std::string& pte_path,
                                             const std::string& ptd_path) {
  AlignedBytes pte = read_file(pte_path);
  if (ptd_path.empty()) return open(pte.data(), pte.size());
  AlignedBytes ptd = read_file(ptd_path);
  return open(pte.data(), pte.size(), ptd.data(), ptd.size());
}

Method& Session::load_method(const std::string& name, size_t temp_bytes) {
  auto meta = program_->method_meta(name.c_str());
  if (!meta.ok()) {
    std::string names;
    for (size_t i = 0; i < program_->num_methods(); ++i) {
      auto method_name = program_->get_method_name(i);
      names += std::string(i ? ", " : "") + (method_name.ok() ? method_name.get() : "(no name)");
    }
    throw std::runtime_error("no method '" + name + "' in the program (it has: " + names + ")");
  }
  method_pool_.assign(meta->method_allocator_bytes() + 16 + 64 * 1024, 0);  // + room for delegates
  method_alloc_ = MemoryAllocator(method_pool_.data(), method_pool_.size());
  temp_pool_.assign(temp_bytes, 0);
  temp_alloc_ = MemoryAllocator(temp_pool_.data(), temp_pool_.size());
  planned_pools_.clear();
  planned_spans_.clear();
  for (size_t j = 0; j < meta->num_memory_planned_buffers(); ++j) {
    int64_t size = meta->memory_planned_buffer_size(j).get();
    if (size < 0 || size > (int64_t{1} << 32))
      throw std::runtime_error("planned buffer " + std::to_string(j) + " has an invalid size");
    planned_pools_.emplace_back(static_cast<size_t>(size));
    std::memset(planned_pools_.back().data(), 0, static_cast<size_t>(size));
  }
  for (auto& p : planned_pools_) planned_spans_.emplace_back(p.data(), p.size());
  planned_ =
      HierarchicalAllocator(Span<Span<uint8_t>>(planned_spans_.data(), planned_spans_.size()));
  memory_.emplace(&method_alloc_, &planned_, &temp_alloc_);
  Diagnostic diag;
  method_.reset();
  auto m = program_->load_method(name.c_str(), &*memory_, &diag);
  if (!m.ok()) throw std::runtime_error("cannot load method '" + name + "': " + describe(diag));
  method_.emplace(static_cast<Method&&>(m.get()));
  return *method_;
}

std::vector<size_t> Session::planned_sizes() const {
  std::vector<size_t> sizes;
  for (const auto& p : planned_pools_) sizes.push_back(p.size());
  return sizes;
}

}  // namespace etmcu::host
