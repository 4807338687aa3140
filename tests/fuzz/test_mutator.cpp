// The structure-aware mutator (fb_mutator.h) on real files: it finds every kind of site in a
// corpus program, and its edits keep the file's size and mostly its shape (a share of mutants still
// passes verification, so the fuzzer gets past the reader into method load and execution).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "runtime/executor/program.h"
#include "tests/fuzz/fb_mutator.h"
#include "tools/cli/file_io.h"

namespace etmcu::fuzz {
namespace {

std::string corpus(const char* name) {
  return std::string(ETMCU_SHARED_DIR) + "/pte-corpus/upstream/" + name;
}

TEST(FuzzMutator, FindsEveryKindOfSiteAndKeepsShape) {
  std::string path = corpus("examples__arduino__examples__AddModel__model.pte");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus missing: " << path;
  host::AlignedBytes file = host::read_file(path);
  std::vector<FieldSite> sites = field_sites(file.data(), file.size(), schema::kProgram);
  std::set<Site> kinds;
  for (const FieldSite& s : sites) kinds.insert(s.kind);
  for (Site k :
       {Site::kScalar, Site::kUOffset, Site::kVecLength, Site::kVecElement, Site::kUnionTag,
        Site::kVtableEntry, Site::kVtableSize, Site::kSOffset, Site::kHeader})
    EXPECT_TRUE(kinds.count(k)) << "no site of kind " << static_cast<int>(k);

  int changed = 0, verified = 0;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    host::AlignedBytes m(file.size());
    std::memcpy(m.data(), file.data(), file.size());
    ASSERT_TRUE(mutate_structure(m.data(), m.size(), seed, schema::kProgram));
    changed += std::memcmp(m.data(), file.data(), file.size()) != 0;
    Diagnostic d;
    verified += Program::load(Span<const uint8_t>(m.data(), m.size()), &d).ok();
  }
  EXPECT_GT(changed, 300);
  EXPECT_GT(verified, 40);   // edits that keep the structure valid (values, tags, lengths)
  EXPECT_LT(verified, 390);  // and edits the verifier must reject
  std::printf("mutants changed: %d/400, still verified: %d/400\n", changed, verified);
}

// Kernel-argument scope edits values only: every mutant still passes verification, and the edited
// bytes lie in Int/Double/Bool values or tensor dtypes, sizes and dim orders.
TEST(FuzzMutator, KernelArgumentScopeKeepsTheStructure) {
  std::string path = corpus("examples__arduino__examples__KeywordSpotting__model.pte");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus missing: " << path;
  host::AlignedBytes file = host::read_file(path);
  std::vector<FieldSite> sites = field_sites(file.data(), file.size(), schema::kProgram);
  size_t args = 0;
  for (const FieldSite& s : sites) args += is_kernel_argument(s);
  EXPECT_GT(args, 100u);  // KWS: zero points, multipliers, shifts, shapes of 16 operators
  int changed = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    host::AlignedBytes m(file.size());
    std::memcpy(m.data(), file.data(), file.size());
    ASSERT_TRUE(
        mutate_structure(m.data(), m.size(), seed, schema::kProgram, Scope::kKernelArguments));
    changed += std::memcmp(m.data(), file.data(), file.size()) != 0;
    Diagnostic d;
    EXPECT_TRUE(Program::load(Span<const uint8_t>(m.data(), m.size()), &d).ok()) << seed;
  }
  EXPECT_GT(changed, 150);
}

}  // namespace
}  // namespace etmcu::fuzz
