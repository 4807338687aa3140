// Paths of the shared .pte corpus for tests (ETMCU_SHARED_DIR is set by CMake), and the check a
// test that reads it starts with: skip without the corpus, fail if ETMCU_REQUIRE_CORPUS is set.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <string>

namespace etmcu::test {

inline std::string shared(const std::string& rel) {
  return std::string(ETMCU_SHARED_DIR) + "/" + rel;
}
inline std::string corpus(const std::string& name) { return shared("pte-corpus/" + name); }

inline bool have_corpus() {
  struct stat st;
  return stat(corpus("upstream").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// CI (.ci/run) sets ETMCU_REQUIRE_CORPUS=1: a missing corpus is then an error, not a skip.
inline bool corpus_required() {
  const char* v = getenv("ETMCU_REQUIRE_CORPUS");
  return v != nullptr && *v != '\0' && strcmp(v, "0") != 0;
}

}  // namespace etmcu::test

// First statement of a test that reads the corpus.
#define ETMCU_NEEDS_CORPUS()                                                     \
  do {                                                                           \
    if (!::etmcu::test::have_corpus()) {                                         \
      if (::etmcu::test::corpus_required())                                      \
        FAIL() << "ETMCU_REQUIRE_CORPUS is set and the .pte corpus is missing: " \
               << ::etmcu::test::corpus("");                                     \
      GTEST_SKIP() << "needs the .pte corpus " << ::etmcu::test::corpus("");     \
    }                                                                            \
  } while (0)
