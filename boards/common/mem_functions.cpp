// memcpy, memmove, memset and memcmp for every firmware (CV32E40P and Cortex-M), in place of the C
// library's. Debian's picolibc for RISC-V comes in two builds: "release" (word-wise copies unrolled
// eight times: memcpy 518 B, memmove 336 B, memset 168 B, memcmp 82 B, a third of the add
// baseline's runtime-side code) and the size build (byte loops: a byte per iteration, several
// times slower on the copies the runtime and kernels make); the Cortex-M C libraries' four take
// 650 to 750 B. These copy and fill two words per iteration, then one, with bytes only for an
// unaligned rest, and compare bytes (docs/bare-metal.md, "C library"). Word accesses only where
// both pointers are aligned: Armv6-M has no unaligned ones.
//
// Compiled at -O2 without LTO and without GCC's loop-to-call rewriting (boards/CMakeLists.txt):
// either could turn a loop here back into a call to the function it is in.
#include <stddef.h>
#include <stdint.h>

namespace {

typedef uint32_t __attribute__((may_alias)) Word;

inline bool words_aligned(const void* a, const void* b) {
  return ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) & 3u) == 0;
}

// Front to back, each word (or byte) read before it is written: also right for an overlapping
// destination that starts before the source (memmove).
__attribute__((always_inline)) inline void copy_forward(uint8_t* d, const uint8_t* s, size_t n) {
  if (words_aligned(d, s)) {
#if defined(ETMCU_BOARD_XPULP)
    // A CV32E40P with Xpulp (the cv32e40p-pulp board): two words per pass of a hardware loop of
    // post-increment loads and stores, 4 cycles per 8 bytes against about 10 for the loop below
    // (upstream KWS's two 8,000-byte _clone_dim_order copies).
    if (n >= 8) {
      const size_t pairs = n >> 3;
      uint32_t a, b;
      __asm__ volatile(
          ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
          ".option push\n\t"
          ".option norvc\n\t"  // the loop end is counted in four-byte instructions
          ".insn i 0x2b, 4, x15, %[pairs], 5\n\t"  // cv.setup: 4 instructions
          ".insn i 0x0b, 2, %[a], %[s], 4\n\t"     // cv.lw a, 4(s!)
          ".insn i 0x0b, 2, %[b], %[s], 4\n\t"     // cv.lw b, 4(s!)
          ".insn s 0x2b, 2, %[a], 4(%[d])\n\t"     // cv.sw a, 4(d!)
          ".insn s 0x2b, 2, %[b], 4(%[d])\n\t"     // cv.sw b, 4(d!)
          ".option pop\n\t"
          : [d] "+r"(d), [s] "+r"(s), [a] "=&r"(a), [b] "=&r"(b)
          : [pairs] "r"(pairs)
          : "memory");
      n &= 7;
    }
#endif
    for (; n >= 8; n -= 8, d += 8, s += 8) {  // both loads before the stores: no load-use stall
      const uint32_t a = *reinterpret_cast<const Word*>(s),
                     b = *reinterpret_cast<const Word*>(s + 4);
      *reinterpret_cast<Word*>(d) = a;
      *reinterpret_cast<Word*>(d + 4) = b;
    }
    for (; n >= 4; n -= 4, d += 4, s += 4)
      *reinterpret_cast<Word*>(d) = *reinterpret_cast<const Word*>(s);
  }
  for (; n != 0; --n) *d++ = *s++;
}

}  // namespace

extern "C" {

void* memcpy(void* __restrict dst, const void* __restrict src, size_t n) {
  copy_forward(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
  return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  // Forward when the destination starts first or past the source's end; otherwise from the end.
  if (d <= s || d >= s + n) {
    copy_forward(d, s, n);
    return dst;
  }
  d += n;
  s += n;
  if (words_aligned(d, s))
    for (; n >= 4; n -= 4) {
      d -= 4;
      s -= 4;
      *reinterpret_cast<Word*>(d) = *reinterpret_cast<const Word*>(s);
    }
  for (; n != 0; --n) *--d = *--s;
  return dst;
}

void* memset(void* dst, int c, size_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t b = static_cast<uint8_t>(c);
  for (; n != 0 && (reinterpret_cast<uintptr_t>(d) & 3u) != 0; --n) *d++ = b;
  const uint32_t w = b * 0x01010101u;
  for (; n >= 8; n -= 8, d += 8) {
    reinterpret_cast<Word*>(d)[0] = w;
    reinterpret_cast<Word*>(d)[1] = w;
  }
  for (; n >= 4; n -= 4, d += 4) *reinterpret_cast<Word*>(d) = w;
  for (; n != 0; --n) *d++ = b;
  return dst;
}

// Bytes at a time: the runtime compares only magics and method names (picolibc's is 82 B).
int memcmp(const void* a, const void* b, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(a);
  const uint8_t* q = static_cast<const uint8_t*>(b);
  for (; n != 0; --n, ++p, ++q)
    if (*p != *q) return *p < *q ? -1 : 1;
  return 0;
}

}  // extern "C"
