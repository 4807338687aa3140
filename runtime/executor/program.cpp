// Program: load (verify), method lookup, method metadata.
#include "runtime/executor/program.h"

#include <string.h>

#include "runtime/platform/platform.h"
#include "runtime/pte/schema.h"

namespace etmcu {

// Built where the caller's Result keeps it (no copy of the file view).
Result<Program> Program::load(Span<const uint8_t> data, Diagnostic* diag,
                              const NamedDataMap* external_data, Verification verification) {
  Result<Program> result(InPlace{});
  Diagnostic local;
  Program& p = result.get();
  p.external_data_ = external_data;
  p.verification_ = verification;
  Error e = PteFile::parse_into(p.file_, data, diag != nullptr ? diag : &local,
                                verification == Verification::InternalConsistency);
  if (e != Error::Ok) result.set_error(e);
  return result;
}

size_t Program::num_methods() const {
  return file_.program().vector(schema::program::kExecutionPlan).size;
}

Result<const char*> Program::get_method_name(size_t index) const {
  fb::Vector plans = file_.program().vector(schema::program::kExecutionPlan);
  if (index >= plans.size) return Error::InvalidArgument;
  fb::Table plan(plans.ref(static_cast<uint32_t>(index)));
  if (!plan.has(schema::plan::kName)) return Error::InvalidProgram;
  return plan.string(schema::plan::kName).data;
}

Result<fb::Table> Program::find_plan(const char* name, Diagnostic* diag) const {
  fb::Vector plans = file_.program().vector(schema::program::kExecutionPlan);
  size_t len = strlen(name);
  for (uint32_t i = 0; i < plans.size; ++i) {
    fb::Table plan(plans.ref(i));
    if (plan.string(schema::plan::kName).equals(name, len)) return plan;
  }
  if (diag != nullptr) {
    diag->fail(Error::NotFound, ET_TEXT("no method with this name"), ET_TEXT("method"));
    diag->set_name(name, static_cast<uint32_t>(len));
  }
  return Error::NotFound;
}

Result<MethodMeta> Program::method_meta(const char* name) const {
  ET_TRY(fb::Table plan, find_plan(name, nullptr));
  return MethodMeta(&file_, plan);
}

}  // namespace etmcu
