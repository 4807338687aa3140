// The firmware's memcpy, memmove, memset and memcmp (boards/common/mem_functions.cpp),
// renamed so that the host's own stay in place, against the host's: every length to 70 at every
// source and destination alignment, overlaps in both directions, and the bytes around the
// destination left alone.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#define memcpy board_memcpy
#define memmove board_memmove
#define memset board_memset
#define memcmp board_memcmp
#include "boards/common/mem_functions.cpp"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp

namespace {

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(BoardMemFunctions, CopyAndSetEveryLengthAndAlignment) {
  for (size_t n = 0; n <= 70; ++n)
    for (size_t da = 0; da < 4; ++da)
      for (size_t sa = 0; sa < 4; ++sa) {
        const std::vector<uint8_t> src =
            pattern(n + 8, static_cast<uint32_t>(n * 16 + da * 4 + sa));
        std::vector<uint8_t> got(n + 16, 0xA5), want(n + 16, 0xA5);
        EXPECT_EQ(board_memcpy(got.data() + 4 + da, src.data() + sa, n), got.data() + 4 + da);
        std::memcpy(want.data() + 4 + da, src.data() + sa, n);
        ASSERT_EQ(got, want) << "memcpy n=" << n << " da=" << da << " sa=" << sa;
        EXPECT_EQ(board_memset(got.data() + 4 + da, 0x3C + static_cast<int>(sa) + 0x100, n),
                  got.data() + 4 + da);
        std::memset(want.data() + 4 + da, 0x3C + static_cast<int>(sa), n);
        ASSERT_EQ(got, want) << "memset n=" << n << " da=" << da;
      }
}

TEST(BoardMemFunctions, MoveOverlapsBothWays) {
  for (size_t n = 0; n <= 70; ++n)
    for (size_t from = 0; from < 12; ++from)
      for (size_t to = 0; to < 12; ++to) {
        std::vector<uint8_t> got = pattern(n + 16, static_cast<uint32_t>(n * 144 + from * 12 + to));
        std::vector<uint8_t> want = got;
        EXPECT_EQ(board_memmove(got.data() + to, got.data() + from, n), got.data() + to);
        std::memmove(want.data() + to, want.data() + from, n);
        ASSERT_EQ(got, want) << "memmove n=" << n << " from=" << from << " to=" << to;
      }
}

TEST(BoardMemFunctions, CompareOrdersAsUnsignedBytes) {
  const uint8_t a[] = {1, 2, 0x80, 4}, b[] = {1, 2, 0x7f, 9};
  EXPECT_EQ(board_memcmp(a, a, 4), 0);
  EXPECT_EQ(board_memcmp(a, b, 2), 0);
  EXPECT_GT(board_memcmp(a, b, 4), 0);  // 0x80 > 0x7f as unsigned char
  EXPECT_LT(board_memcmp(b, a, 4), 0);
  EXPECT_EQ(board_memcmp(a, b, 0), 0);
}

}  // namespace
