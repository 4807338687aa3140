/* ISA test: all branch types taken/not taken, compressed branches and jumps, jal/jalr calls,
   jump tables and recursion. Prints hashes and the instret of the compute region. */
#include "rt.h"

#define BR(op)                                                               \
  static uint32_t b_##op(uint32_t a, uint32_t b) {                           \
    uint32_t r;                                                              \
    __asm__ volatile(#op " %1, %2, 1f\n\tli %0, 0\n\tj 2f\n1:\tli %0, 1\n2:" \
                     : "=r"(r)                                               \
                     : "r"(a), "r"(b));                                      \
    return r;                                                                \
  }
BR(beq)
BR(bne) BR(blt) BR(bge) BR(bltu) BR(bgeu)

    static uint32_t c_branches(uint32_t a) {
  uint32_t r;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\tmv a5, %1\n\tli %0, 0\n\t"
      "c.beqz a5, 1f\n\taddi %0, %0, 1\n1:\tc.bnez a5, 2f\n\taddi %0, %0, 2\n2:\t"
      "c.j 3f\n\taddi %0, %0, 4\n3:\t.option pop"
      : "=&r"(r)
      : "r"(a)
      : "a5");
  return r;
}
static uint32_t c_jal_jr(uint32_t a) {
  uint32_t r;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\tmv a0, %1\n\tmv t1, ra\n\t"
      "c.jal 5f\n\tj 6f\n5:\taddi a0, a0, 3\n\tc.jr ra\n6:\t"
      "la a5, 7f\n\tc.jalr a5\n\tj 8f\n7:\tslli a0, a0, 1\n\tret\n8:\tmv ra, t1\n\tmv %0, "
      "a0\n\t.option pop"
      : "=r"(r)
      : "r"(a)
      : "a0", "a5", "t1", "ra");
  return r;
}
static __attribute__((noinline)) uint32_t fib(uint32_t n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
static __attribute__((noinline)) uint32_t sw(uint32_t x) {
  switch (x & 7) {
    case 0:
      return x * 3;
    case 1:
      return x ^ 0x55;
    case 2:
      return x + 100;
    case 3:
      return x >> 1;
    case 4:
      return ~x;
    case 5:
      return x << 2;
    case 6:
      return x - 9;
    default:
      return 42;
  }
}

typedef uint32_t (*bfn)(uint32_t, uint32_t);
static const bfn brs[] = {b_beq, b_bne, b_blt, b_bge, b_bltu, b_bgeu};
static const uint32_t vals[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 5};
static uint32_t results[6];

int main(void) {
  const uint32_t i0 = rt_minstret();
  uint32_t h = 2166136261u;
  for (unsigned k = 0; k < 6; ++k)
    for (unsigned i = 0; i < 6; ++i)
      for (unsigned j = 0; j < 6; ++j) h = rt_fold(h, brs[k](vals[i], vals[j]) << k);
  results[0] = h;
  results[1] = c_branches(0) | (c_branches(7) << 8);
  results[2] = c_jal_jr(5);
  results[3] = fib(15);
  h = 0;
  for (uint32_t x = 0; x < 40; ++x) h = rt_fold(h, sw(x * 7));
  results[4] = h;
  const uint32_t i1 = rt_minstret();
  rt_hex("branches", results[0]);
  rt_hex("c_branches", results[1]);
  rt_hex("c_jal_jr", results[2]);
  rt_hex("fib", results[3]);
  rt_hex("switch", results[4]);
  rt_hex("instret", i1 - i0);
  return 0;
}
