// The few language helpers target code needs without the C++ standard library (Debian ships no
// libstdc++ headers for riscv64-unknown-elf): placement new and min/max.
#pragma once
#include <stddef.h>

#if defined(__has_include)
#if __has_include(<new>) && !defined(ETMCU_FREESTANDING)
#include <new>
#define ETMCU_HAVE_PLACEMENT_NEW 1
#endif
#endif

#ifndef ETMCU_HAVE_PLACEMENT_NEW
inline void* operator new(size_t, void* where) noexcept { return where; }
#endif

namespace etmcu {
template <typename T>
constexpr const T& min_of(const T& a, const T& b) {
  return b < a ? b : a;
}
template <typename T>
constexpr const T& max_of(const T& a, const T& b) {
  return a < b ? b : a;
}
}  // namespace etmcu
