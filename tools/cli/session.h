// Session: a .pte (and optional .ptd) loaded on the host with memory pools sized exactly from the
// program, for the CLI and tests. Errors become std::runtime_error with the runtime's diagnostic.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/executor/program.h"
#include "runtime/pte/ptd_file.h"
#include "tools/cli/file_io.h"

namespace etmcu::host {

// "InvalidProgram: values[3]: Tensor.sizes ..." for a failed step.
std::string describe(const Diagnostic& d);

class Session {
 public:
  // Loads the program from bytes (copied into an aligned buffer) and an optional .ptd.
  static std::unique_ptr<Session> open(const uint8_t* pte, size_t size,
                                       const uint8_t* ptd = nullptr, size_t ptd_size = 0);
  static std::unique_ptr<Session> open_files(const std::string& pte_path,
                                             const std::string& ptd_path = "");

  Program& program() { return *program_; }
  // Loads `name` with pools sized from its MethodMeta (temp: `temp_bytes`).
  Method& load_method(const std::string& name, size_t temp_bytes = 1 << 20);
  Method& method() { return *method_; }
  MemoryAllocator& method_allocator() { return method_alloc_; }
  MemoryAllocator& temp_allocator() { return temp_alloc_; }
  std::vector<size_t> planned_sizes() const;

 private:
  AlignedBytes pte_, ptd_;
  std::optional<PtdFile> ptd_file_;
  std::optional<Program> program_;
  std::vector<uint8_t> method_pool_, temp_pool_;
  std::vector<AlignedBytes> planned_pools_;
  std::vector<Span<uint8_t>> planned_spans_;
  HierarchicalAllocator planned_;
  MemoryAllocator method_alloc_, temp_alloc_;
  std::optional<MemoryManager> memory_;
  std::optional<Method> method_;
};

}  // namespace etmcu::host
