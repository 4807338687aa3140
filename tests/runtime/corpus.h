// Paths of the shared .pte corpus for tests (ETMCU_SHARED_DIR is set by CMake).
#pragma once
#include <string>

namespace etmcu::test {

inline std::string shared(const std::string& rel) {
  return std::string(ETMCU_SHARED_DIR) + "/" + rel;
}
inline std::string corpus(const std::string& name) { return shared("pte-corpus/" + name); }

}  // namespace etmcu::test
