// Kernels under hostile arguments, deterministically: for every corpus program (and every zoo
// export in $ETMCU_ZOO_DIR), every argument value a kernel call receives (Int, Double, Bool, list
// items and lengths, tensor dtypes, sizes and dim orders) is rewritten in the flatbuffer, one at a
// time, to each value of a fixed boundary list; each mutant is loaded (full verification), its
// method loaded and run. Run under ASan+UBSan (ctest in build/host-asan) it shows that every
// kernel rejects what it cannot compute with an Error and never touches memory it must not.
// Small methods (at most kFullExecuteCalls kernel calls) are executed in full; in larger ones the
// kernel calls that read the mutated value are called directly, as execute() would call them, so
// a big int8 program costs a few kernel calls per mutant instead of a whole inference.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/executor/program.h"
#include "runtime/pte/schema.h"
#include "tests/fuzz/fb_mutator.h"
#include "tests/fuzz/harness.h"
#include "tests/runtime/corpus.h"

namespace etmcu {
namespace {

using fuzz::FieldSite;
using fuzz::Site;

constexpr size_t kFullExecuteCalls = 8;
constexpr size_t kMethodCap = 1 << 20, kPlannedCap = 8 << 20, kTempBytes = 256 << 10;

struct Counts {
  size_t programs = 0, methods = 0, kernel_calls = 0, sites = 0, mutants = 0;
  size_t rejected_program = 0, rejected_method = 0, rejected_input = 0, rejected_kernel = 0;
  size_t over_caps = 0, accepted = 0, executed_full = 0, kernel_calls_run = 0;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

std::vector<std::string> pte_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".pte") == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t load_bits(const uint8_t* p, uint8_t width) {
  uint64_t v = 0;
  std::memcpy(&v, p, width);
  return v;
}

uint64_t double_bits(double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  return v;
}

// The sites this pass edits: kernel argument values, plus list lengths and list items (value
// indices), all inside a plan's value table.
bool wanted(const FieldSite& s) {
  if (s.value == FieldSite::kNoIndex) return false;
  if (fuzz::is_kernel_argument(s)) return true;
  switch (s.table) {
    case schema::kIntList:
    case schema::kTensorList:
    case schema::kOptionalTensorList:
      return s.kind == Site::kVecElement || s.kind == Site::kVecLength;
    case schema::kDoubleList:
    case schema::kBoolList:
      return s.kind == Site::kVecLength;
    case schema::kTensor:
      return s.kind == Site::kVecLength &&
             (s.field == schema::tensor::kSizes || s.field == schema::tensor::kDimOrder);
    default:
      return false;
  }
}

// The fixed boundary values for one site (its old value excluded by the caller).
std::vector<uint64_t> values_for(const FieldSite& s, uint64_t old) {
  const int64_t i64max = std::numeric_limits<int64_t>::max();
  const int64_t i64min = std::numeric_limits<int64_t>::min();
  std::vector<uint64_t> v;
  if (s.kind == Site::kVecLength) return {0, old - 1, old + 1, 0x7fffffff};
  if (s.table == schema::kDouble || s.table == schema::kDoubleList) {
    for (double d :
         {0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 4.9e-324, std::nan(""), HUGE_VAL, -HUGE_VAL})
      v.push_back(double_bits(d));
    return v;
  }
  if (s.table == schema::kBool || s.table == schema::kBoolList) return {0, 1, 2, 255};
  if (s.table == schema::kTensor && s.field == schema::tensor::kScalarType)
    return {0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 14, 15, 27, 28, 29, 30, 255};
  if (s.table == schema::kTensor && s.field == schema::tensor::kDimOrder)
    return {0, 1, 2, 3, old + 1, 127, 255};
  if (s.table == schema::kTensor && s.field == schema::tensor::kSizes)  // int32 elements
    return {0, 0xffffffffu, 1, 2, 65536, 0x7fffffff, 0x80000000u, old + 1, old * 2};
  if (s.width == 4)  // TensorList items: value indices
    return {0, 0xffffffffu, old + 1, 0x7fffffff};
  // Int values and IntList items (int64).
  return {0,
          static_cast<uint64_t>(-1),
          1,
          2,
          0x7fffffff,
          static_cast<uint64_t>(static_cast<int64_t>(std::numeric_limits<int32_t>::min())),
          1ull << 32,
          static_cast<uint64_t>(i64max),
          static_cast<uint64_t>(i64min),
          old + 1,
          old - 1};
}

// An aligned, owned copy of a program (the reader needs 16-byte alignment).
struct Buffer {
  std::vector<uint8_t> storage;
  uint8_t* data = nullptr;
  size_t size = 0;
  explicit Buffer(const std::vector<uint8_t>& bytes) {
    storage.resize(bytes.size() + 16);
    data = storage.data() + ((16 - (reinterpret_cast<uintptr_t>(storage.data()) & 15)) & 15);
    size = bytes.size();
    std::memcpy(data, bytes.data(), size);
  }
  Span<const uint8_t> span() const { return Span<const uint8_t>(data, size); }
};

enum class Outcome {
  kRejectedProgram,
  kRejectedMethod,
  kRejectedInput,
  kRejectedKernel,
  kOverCaps,
  kAccepted
};

// Loads `bytes` and runs method `plan`: all of it (`calls` empty), or only the listed instructions.
// `kernel_calls` (optional) receives the method's number of kernel calls.
Outcome run(const Buffer& buf, uint32_t plan, const std::vector<uint32_t>* calls, Counts* counts,
            std::vector<std::vector<uint32_t>>* args_of = nullptr) {
  Diagnostic diag;
  Result<Program> program = Program::load(buf.span(), &diag);
  if (!program.ok()) return Outcome::kRejectedProgram;
  Result<const char*> name = program->get_method_name(plan);
  if (!name.ok()) return Outcome::kRejectedProgram;
  Result<MethodMeta> meta = program->method_meta(name.get());
  if (!meta.ok()) return Outcome::kRejectedMethod;
  fuzz::Pools pools;
  if (!pools.size_for(meta.get(), kMethodCap, kPlannedCap, kTempBytes)) return Outcome::kOverCaps;
  for (auto& p : pools.planned) std::fill(p.begin(), p.end(), 0x3c);  // small finite values
  MemoryManager mm(&pools.method_alloc, &pools.hier, &pools.temp_alloc);
  Result<Method> method = program->load_method(name.get(), &mm, &diag);
  if (!method.ok()) return Outcome::kRejectedMethod;
  std::vector<std::vector<uint8_t>> inputs(method->inputs_size());
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    const EValue& in = method->get_input(i);
    Error e;
    if (!in.is_tensor()) {
      e = method->set_input(in, i);
    } else {
      if (in.to_tensor().nbytes > kPlannedCap) return Outcome::kOverCaps;
      inputs[i].assign(in.to_tensor().nbytes, 0x3c);
      e = method->set_input_data(i, inputs[i].data(), inputs[i].size());
    }
    if (e != Error::Ok) return Outcome::kRejectedInput;
  }
  if (args_of) {  // the baseline: which values each kernel call reads
    args_of->clear();
    for (size_t i = 0; i < method->num_instructions(); ++i) {
      std::vector<uint32_t> a;
      if (method->instruction_kind(i) == schema::kInstrKernelCall)
        for (int32_t v : method->call_arg_indices(i)) a.push_back(static_cast<uint32_t>(v));
      args_of->push_back(a);
    }
  }
  if (calls == nullptr) {
    ++counts->executed_full;
    return method->execute() == Error::Ok ? Outcome::kAccepted : Outcome::kRejectedKernel;
  }
  for (uint32_t i : *calls) {
    if (i >= method->num_instructions()) return Outcome::kRejectedMethod;
    if (method->instruction_kind(i) != schema::kInstrKernelCall) continue;
    // The arguments as execute() builds them from the mutated program (the lazily read values).
    Result<Span<EValue*>> args = method->bind_call(i);
    if (!args.ok()) return Outcome::kRejectedKernel;
    KernelContext ctx;
    ctx.temp = &pools.temp_alloc;
    ++counts->kernel_calls_run;
    Error e = method->kernel(i)(ctx, args.get());
    pools.temp_alloc.reset();
    if (e != Error::Ok) return Outcome::kRejectedKernel;
  }
  return Outcome::kAccepted;
}

void count(Counts& c, Outcome o) {
  switch (o) {
    case Outcome::kRejectedProgram:
      ++c.rejected_program;
      break;
    case Outcome::kRejectedMethod:
      ++c.rejected_method;
      break;
    case Outcome::kRejectedInput:
      ++c.rejected_input;
      break;
    case Outcome::kRejectedKernel:
      ++c.rejected_kernel;
      break;
    case Outcome::kOverCaps:
      ++c.over_caps;
      break;
    case Outcome::kAccepted:
      ++c.accepted;
      break;
  }
}

// Mutates every wanted site of one program; returns false if its unmutated form does not run.
bool mutate_program(const std::string& path, Counts& total) {
  std::vector<uint8_t> bytes = read_file(path);
  Buffer base(bytes);
  std::vector<FieldSite> sites = fuzz::field_sites(base.data, base.size, schema::kProgram);
  Diagnostic diag;
  Result<Program> program = Program::load(base.span(), &diag);
  if (!program.ok()) return false;
  size_t plans = program->num_methods();
  bool any = false;
  for (uint32_t plan = 0; plan < plans; ++plan) {
    Counts c;
    std::vector<std::vector<uint32_t>> args_of;
    if (run(base, plan, nullptr, &c, &args_of) != Outcome::kAccepted)
      continue;  // not runnable here
    any = true;
    ++total.methods;
    // value -> kernel calls reading it (directly, or through a list holding it)
    std::map<uint32_t, std::set<uint32_t>> users;
    size_t calls = 0;
    for (uint32_t i = 0; i < args_of.size(); ++i) {
      for (uint32_t v : args_of[i]) users[v].insert(i);
      calls += args_of[i].empty() ? 0 : 1;
    }
    std::map<uint32_t, std::set<uint32_t>> parents;  // item value -> list values
    for (const FieldSite& s : sites) {
      if (s.plan != plan || s.kind != Site::kVecElement) continue;
      if (s.table == schema::kIntList || s.table == schema::kTensorList ||
          s.table == schema::kOptionalTensorList)
        parents[static_cast<uint32_t>(load_bits(base.data + s.pos, s.width))].insert(s.value);
    }
    total.kernel_calls += calls;
    bool full = calls <= kFullExecuteCalls;
    for (const FieldSite& s : sites) {
      if (s.plan != plan || !wanted(s)) continue;
      ++total.sites;
      std::vector<uint32_t> affected;
      if (!full) {
        std::set<uint32_t> a = users[s.value];
        for (uint32_t p : parents[s.value]) a.insert(users[p].begin(), users[p].end());
        affected.assign(a.begin(), a.end());
      }
      uint64_t old = load_bits(base.data + s.pos, s.width);
      std::set<uint64_t> done;
      for (uint64_t v : values_for(s, old)) {
        if (s.width < 8) v &= (1ull << (8 * s.width)) - 1;
        if (v == old || !done.insert(v).second) continue;
        Buffer m(bytes);
        std::memcpy(m.data + s.pos, &v, s.width);
        ++total.mutants;
        count(total, run(m, plan, full ? nullptr : &affected, &total));
      }
    }
  }
  return any;
}

// Mutates every program in `files` and prints the counts; fails if nothing was mutated.
void mutate_all(const std::vector<std::string>& files, const char* what) {
  Counts c;
  for (const std::string& f : files) {
    size_t before = c.mutants;
    if (mutate_program(f, c)) {
      ++c.programs;
      std::printf("  %s: %zu mutants\n", f.substr(f.rfind('/') + 1).c_str(), c.mutants - before);
    } else {
      std::printf("  %s: does not run unmutated on the host (skipped)\n",
                  f.substr(f.rfind('/') + 1).c_str());
    }
  }
  std::printf(
      "kernel-argument mutants (%s): %zu programs, %zu methods, %zu kernel calls, %zu argument "
      "sites, %zu mutants: rejected at program load %zu, at method load %zu, at set_input %zu, by "
      "a kernel %zu; over the test's memory caps %zu; accepted %zu (%zu executed in full, %zu "
      "direct kernel calls)\n",
      what, c.programs, c.methods, c.kernel_calls, c.sites, c.mutants, c.rejected_program,
      c.rejected_method, c.rejected_input, c.rejected_kernel, c.over_caps, c.accepted,
      c.executed_full, c.kernel_calls_run);
  EXPECT_GT(c.mutants, 0u);
  // Every mutant ended in one of the outcomes: nothing crashed or aborted on the way.
  EXPECT_EQ(c.mutants, c.rejected_program + c.rejected_method + c.rejected_input +
                           c.rejected_kernel + c.over_caps + c.accepted);
}

TEST(KernelArgMutants, CorpusPrograms) {
  ETMCU_NEEDS_CORPUS();
  std::vector<std::string> files;
  for (const char* sub : {"upstream", "upstream-history"})
    for (const std::string& f : pte_files(::etmcu::test::corpus(sub))) files.push_back(f);
  mutate_all(files, "corpus");
}

// Zoo exports (tools/fuzz/zoo_seeds.sh DIR, or tests/python/test_kernel_arg_mutants_zoo.py).
TEST(KernelArgMutants, ZooPrograms) {
  const char* zoo = getenv("ETMCU_ZOO_DIR");
  if (zoo == nullptr || *zoo == '\0')
    GTEST_SKIP() << "set ETMCU_ZOO_DIR to a folder of zoo exports";
  std::vector<std::string> files = pte_files(zoo);
  ASSERT_FALSE(files.empty()) << "no .pte in " << zoo;
  mutate_all(files, "zoo");
}

}  // namespace
}  // namespace etmcu
