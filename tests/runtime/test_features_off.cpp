// A runtime built with every optional feature off (runtime/core/features.h) still runs plain
// programs, and rejects programs that need a missing feature with NotSupported naming it.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "runtime/core/features.h"
#include "runtime/executor/program.h"
#include "tests/runtime/corpus.h"

static_assert(!etmcu::kFeatureDelegates && !etmcu::kFeatureExternalData &&
                  !etmcu::kFeatureMutableData && !etmcu::kFeatureControlFlow &&
                  !etmcu::kFeatureConstantBuffer && !etmcu::kFeatureLists &&
                  !etmcu::kFeatureStrings,
              "this test is compiled with every feature off");

namespace etmcu {
namespace {

struct Loaded {
  std::vector<uint8_t> storage;
  uint8_t* data;
  size_t size;
};

Loaded read(const std::string& name) {
  std::ifstream in(test::corpus(name), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  Loaded l{std::vector<uint8_t>(bytes.size() + 16), nullptr, bytes.size()};
  l.data = l.storage.data() + ((16 - (reinterpret_cast<uintptr_t>(l.storage.data()) & 15)) & 15);
  std::memcpy(l.data, bytes.data(), bytes.size());
  return l;
}

// Loads `method` over generous pools; returns the error and fills `diag`.
Error load(const char* file, const char* method, Diagnostic* diag, float* out = nullptr) {
  Loaded l = read(file);
  auto program = Program::load(Span<const uint8_t>(l.data, l.size), diag);
  if (!program.ok()) return program.error();
  alignas(16) static uint8_t pool[1 << 16], arena[1 << 15];
  Span<uint8_t> span(arena, sizeof(arena));
  HierarchicalAllocator planned(Span<Span<uint8_t>>(&span, 1));
  MemoryAllocator method_alloc(pool, sizeof(pool));
  MemoryManager mm(&method_alloc, &planned);
  auto m = program->load_method(method, &mm, diag);
  if (!m.ok()) return m.error();
  float x[3] = {1, 2, 3};
  if (m->set_input_data(0, x, sizeof(x)) != Error::Ok) return Error::InvalidArgument;
  Error e = m->execute();
  if (out != nullptr) std::memcpy(out, m->get_output(0).to_tensor().data, 12);
  return e;
}

TEST(FeaturesOff, PlainProgramRuns) {
  ETMCU_NEEDS_CORPUS();
  Diagnostic d;
  float out[3];
  ASSERT_EQ(load("upstream/examples__arduino__examples__AddModel__model.pte", "forward", &d, out),
            Error::Ok);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[2], 4.0f);
}

TEST(FeaturesOff, ProgramsNeedingAFeatureAreRejected) {
  ETMCU_NEEDS_CORPUS();
  struct Case {
    const char* file;
    const char* method;
    const char* feature;
  } cases[] = {
      {"upstream/test__models__deprecated__ModuleLinear-no-constant-segment.pte", "forward",
       "CONSTANT_BUFFER"},
      {"upstream/"
       "examples__qualcomm__oss_scripts__llama__artifacts__stories260k_hybrid_llama_qnn.pte",
       "kv_forward", "DELEGATES"},
      {"upstream/examples__arduino__examples__KeywordSpotting__model.pte", "forward", "LISTS"},
      {"upstream/"
       "examples__qualcomm__oss_scripts__llama__artifacts__stories260k_hybrid_llama_qnn.pte",
       "get_kv_output_0_quant_attr", "STRINGS"},
      {"upstream-history/hist-8f6de2cd__extension__module__test__resources__linear.pte", "forward",
       "EXTERNAL_DATA"},
  };
  for (const Case& c : cases) {
    Diagnostic d;
    EXPECT_EQ(load(c.file, c.method, &d), Error::NotSupported) << c.file;
    EXPECT_NE(std::strstr(d.what, c.feature), nullptr) << d.what;
  }
}

TEST(FeaturesOff, ProfilerNeedsInstructionHooks) {
  ETMCU_NEEDS_CORPUS();
  static_assert(!kInstructionHooks, "built without hooks");
  Loaded l = read("upstream/examples__arduino__examples__AddModel__model.pte");
  auto program = Program::load(Span<const uint8_t>(l.data, l.size));
  ASSERT_TRUE(program.ok());
  alignas(16) static uint8_t pool[1 << 12], arena[64];
  Span<uint8_t> span(arena, sizeof(arena));
  HierarchicalAllocator planned(Span<Span<uint8_t>>(&span, 1));
  MemoryAllocator method_alloc(pool, sizeof(pool));
  MemoryManager mm(&method_alloc, &planned);
  auto m = program->load_method("forward", &mm);
  ASSERT_TRUE(m.ok());
  ProfileEvent events[4];
  Profiler profiler(events, 4);
  EXPECT_EQ(m->set_profiler(&profiler), Error::NotSupported);
  EXPECT_EQ(m->set_observer(InstructionObserver{}), Error::NotSupported);
}

}  // namespace
}  // namespace etmcu
