// Program: a loaded .pte (verified, zero-copy). Methods are looked up by name and loaded over
// caller-provided memory. The .pte bytes (and any .ptd) must outlive the Program and its Methods.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/diagnostic.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"
#include "runtime/pte/named_data_map.h"
#include "runtime/pte/pte_file.h"

namespace etmcu {

class Program {
 public:
  // How much of the file load() checks (upstream's names). InternalConsistency, the default:
  // everything, so any bytes are safe to load. Minimal: identifier, header, root offset, segment
  // and constant bounds, but not the flatbuffer's structure: only for bytes verified before (a
  // program embedded in firmware, verified by the build on the host and on the target). Upstream's
  // default is Minimal; ours is the safe one. The level also applies to the method's values:
  // InternalConsistency checks every value at load_method (dtype, shape, dim order, memory plan and
  // constant bounds); Minimal checks only those with a slot and trusts the rest, which execute()
  // builds from the program (see docs/runtime.md, "Method state").
  enum class Verification : uint8_t { Minimal, InternalConsistency };

  // Loads `data` (a whole .pte, 16-byte aligned). `external_data` serves EXTERNAL tensors (a
  // .ptd); it may be nullptr. On failure `diag` (optional) says what and where.
  static Result<Program> load(Span<const uint8_t> data, Diagnostic* diag = nullptr,
                              const NamedDataMap* external_data = nullptr,
                              Verification verification = Verification::InternalConsistency);

  size_t num_methods() const;
  Result<const char*> get_method_name(size_t index) const;
  Result<MethodMeta> method_meta(const char* name) const;
  // Loads method `name` over `memory`. A pool that is too small fails with
  // MemoryAllocationFailed and a diagnostic giving the bytes needed.
  Result<Method> load_method(const char* name, MemoryManager* memory,
                             Diagnostic* diag = nullptr) const;

  const PteFile& file() const { return file_; }
  const NamedDataMap* external_data() const { return external_data_; }
  Verification verification() const { return verification_; }

 private:
  template <typename T>
  friend class Result;  // load builds the Program in place
  Program() = default;
  Result<fb::Table> find_plan(const char* name, Diagnostic* diag) const;
  Error load_method_into(Method& m, const char* name, MemoryManager* memory, Diagnostic* d) const;
  PteFile file_;
  const NamedDataMap* external_data_ = nullptr;
  Verification verification_ = Verification::InternalConsistency;
};

}  // namespace etmcu
