// BackendInterface: how a delegate (a DelegateCall in the program) is run, shaped like upstream's
// so backends port with little change. Backends are listed in a fixed table the application sets
// once at start-up (set_backend_table); nothing registers itself.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/pte/flatbuffer.h"
#include "runtime/pte/named_data_map.h"

namespace etmcu {

// One compile spec of a delegate: key and raw value bytes (views into the program).
struct CompileSpec {
  const char* key;  // NUL-terminated
  Span<const uint8_t> value;
};

// The compile specs of one delegate, read on demand from the verified program.
class CompileSpecs {
 public:
  CompileSpecs() = default;
  explicit CompileSpecs(fb::Vector specs) : specs_(specs) {}
  size_t size() const { return specs_.size; }
  CompileSpec operator[](size_t i) const;

 private:
  fb::Vector specs_;
};

struct BackendInitContext {
  MemoryAllocator* runtime_allocator;  // the method allocator: memory for the delegate's lifetime
  const NamedDataMap* named_data;      // the program's named_data (may be nullptr)
  const char* method_name;
};

struct BackendExecutionContext {
  MemoryAllocator* temp_allocator;  // reset after the call
  const char* method_name;
};

using DelegateHandle = void;

class BackendInterface {
 public:
  virtual bool is_available() const = 0;
  // Prepares the payload (`processed`: inline or segment bytes of the .pte, valid while the program
  // is). Returns the handle passed back to execute/destroy.
  virtual Result<DelegateHandle*> init(BackendInitContext& context, Span<const uint8_t> processed,
                                       CompileSpecs compile_specs) const = 0;
  // `args` are the DelegateCall's values: the delegate's inputs followed by its outputs.
  virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                        Span<EValue*> args) const = 0;
  virtual void destroy(DelegateHandle* handle) const { (void)handle; }

 protected:
  ~BackendInterface() = default;
};

struct Backend {
  const char* name;  // the id the program's BackendDelegate carries, e.g. "XnnpackBackend"
  const BackendInterface* backend;
};

// Sets the backends this application links (the span must stay valid). Default: none.
void set_backend_table(Span<const Backend> backends);
Span<const Backend> backend_table();
// The backend named `name` (`len` bytes), or nullptr.
const BackendInterface* find_backend(const char* name, size_t len);

}  // namespace etmcu
