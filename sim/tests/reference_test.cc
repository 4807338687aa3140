// Runs every ELF of shared/cv32e40p-ref in both configurations and compares stdout, exit code and
// cycle count with reference.json (PULP-only programs must trap as illegal on the non-PULP core).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/sim.h"

namespace etmcu::sim {
namespace {

struct RefCase {
  nlohmann::json entry;
  bool pulp = true;
};

std::vector<RefCase> LoadCases() {
  std::vector<RefCase> out;
  std::ifstream in(std::string(ETMCU_SIM_REF_DIR) + "/reference.json");
  if (!in) return out;
  const nlohmann::json all = nlohmann::json::parse(in, nullptr, false);
  if (!all.is_array()) return out;
  for (const auto& e : all) {
    out.push_back({e, true});
    out.push_back({e, false});
  }
  return out;
}

bool CorpusRequired() {  // CI sets ETMCU_REQUIRE_CORPUS=1: a missing reference suite is an error
  const char* v = std::getenv("ETMCU_REQUIRE_CORPUS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Skips the calling test when shared/cv32e40p-ref is not beside the checkout (fails in CI).
#define NEEDS_REFERENCE_SUITE()                                                       \
  do {                                                                                \
    if (!std::ifstream(std::string(ETMCU_SIM_REF_DIR) + "/reference.json")) {         \
      if (CorpusRequired())                                                           \
        FAIL() << "ETMCU_REQUIRE_CORPUS is set and " ETMCU_SIM_REF_DIR " is missing"; \
      GTEST_SKIP() << "needs " ETMCU_SIM_REF_DIR;                                     \
    }                                                                                 \
  } while (0)

// The parameterised suite below has no cases without the reference ELFs: this says so.
TEST(ReferenceSuite, Present) {
  NEEDS_REFERENCE_SUITE();
  EXPECT_FALSE(LoadCases().empty()) << ETMCU_SIM_REF_DIR "/reference.json has no cases";
}

class ReferenceTest : public ::testing::TestWithParam<RefCase> {};

TEST_P(ReferenceTest, MatchesRtl) {
  const RefCase& rc = GetParam();
  const auto& e = rc.entry;
  SimOptions opt;
  opt.config = rc.pulp ? Config::kPulp : Config::kNoPulp;
  opt.max_cycles = 50'000'000;
  Sim sim(opt);
  const std::string elf = std::string(ETMCU_SIM_REF_DIR) + "/elf/" + e["elf"].get<std::string>();
  ASSERT_EQ(sim.load_file(elf), "");
  const RunResult r = sim.run();
  ASSERT_EQ(r.reason, StopReason::kExit) << r.message;
  const bool pulp_only = e["pulp"].get<bool>();
  if (rc.pulp) {
    EXPECT_EQ(sim.output(), e["stdout"].get<std::string>());
    EXPECT_EQ(r.exit_code, e["exit_code"].get<int>());
    EXPECT_EQ(r.cycles, e["cycles_pulp"].get<uint64_t>());
  } else if (pulp_only) {
    // The first Xpulp instruction is illegal: the firmware's handler reports it and exits 102.
    EXPECT_EQ(r.exit_code, 102);
    EXPECT_NE(sim.output().find("FATAL TRAP mcause=0x00000002"), std::string::npos) << sim.output();
  } else {
    const std::string want = e.contains("stdout_nopulp") ? e["stdout_nopulp"].get<std::string>()
                                                         : e["stdout"].get<std::string>();
    EXPECT_EQ(sim.output(), want);
    EXPECT_EQ(r.exit_code, e["exit_code_nopulp"].get<int>());
    EXPECT_EQ(r.cycles, e["cycles_nopulp"].get<uint64_t>());
  }
}

// Trace/profile mode (the slow loop) must not change results; the profile covers every cycle.
TEST(ReferenceSlowMode, TraceAndProfileKeepCycles) {
  NEEDS_REFERENCE_SUITE();
  const std::string elf = std::string(ETMCU_SIM_REF_DIR) + "/elf/t12_xp_hwloop.elf";
  Sim fast;
  ASSERT_EQ(fast.load_file(elf), "");
  const RunResult a = fast.run();
  SimOptions opt;
  opt.profile = true;
  opt.trace_path = ::testing::TempDir() + "/etmcu_sim_trace.txt";
  Sim slow(opt);
  ASSERT_EQ(slow.load_file(elf), "");
  const RunResult b = slow.run();
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.instret, b.instret);
  EXPECT_EQ(fast.output(), slow.output());
  uint64_t profiled = 0, insns = 0;
  for (const auto& e : slow.profile()) {
    profiled += e.cycles;
    insns += e.instructions;
  }
  EXPECT_EQ(profiled + 6, b.cycles);  // the exit store's own cycle + 5 are not charged
  EXPECT_EQ(insns, b.instret);
  std::ifstream trace(opt.trace_path);
  size_t lines = 0;
  for (std::string line; std::getline(trace, line);) ++lines;
  EXPECT_EQ(lines, b.instret);
}

std::string CaseName(const ::testing::TestParamInfo<RefCase>& info) {
  return info.param.entry["name"].get<std::string>() + (info.param.pulp ? "_pulp" : "_nopulp");
}

INSTANTIATE_TEST_SUITE_P(CV32E40P, ReferenceTest, ::testing::ValuesIn(LoadCases()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReferenceTest);

}  // namespace
}  // namespace etmcu::sim
