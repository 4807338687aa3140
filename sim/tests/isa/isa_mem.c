/* ISA test: lb/lbu/lh/lhu/lw and sb/sh/sw (aligned), compressed c.lw/c.sw/c.lwsp/c.swsp,
   sign/zero extension and byte order. Prints hashes and the instret of the compute region. */
#include "rt.h"

static uint8_t buf[64] __attribute__((aligned(8)));
static uint32_t results[8];

#define LD(op, off, p)                                                        \
  ({                                                                          \
    uint32_t r_;                                                              \
    __asm__ volatile(#op " %0, " #off "(%1)" : "=r"(r_) : "r"(p) : "memory"); \
    r_;                                                                       \
  })
#define ST(op, off, p, v) __asm__ volatile(#op " %0, " #off "(%1)" ::"r"(v), "r"(p) : "memory")

int main(void) {
  const uint32_t i0 = rt_minstret();
  uint8_t* p = buf;
  for (int i = 0; i < 64; ++i) buf[i] = (uint8_t)(i * 37 + 0x81);
  uint32_t h = 2166136261u;
  h = rt_fold(h, LD(lb, 0, p));
  h = rt_fold(h, LD(lb, 1, p));
  h = rt_fold(h, LD(lb, 7, p));
  h = rt_fold(h, LD(lbu, 0, p));
  h = rt_fold(h, LD(lbu, 3, p));
  h = rt_fold(h, LD(lbu, 9, p));
  h = rt_fold(h, LD(lh, 0, p));
  h = rt_fold(h, LD(lh, 2, p));
  h = rt_fold(h, LD(lh, 14, p));
  h = rt_fold(h, LD(lhu, 0, p));
  h = rt_fold(h, LD(lhu, 6, p));
  h = rt_fold(h, LD(lhu, 30, p));
  h = rt_fold(h, LD(lw, 0, p));
  h = rt_fold(h, LD(lw, 4, p));
  h = rt_fold(h, LD(lw, 60, p));
  results[0] = h;
  ST(sb, 0, p, 0xdeadbeefu);
  ST(sb, 5, p, 0x1234u);
  ST(sh, 2, p, 0xcafef00du);
  ST(sh, 6, p, 0xffffffffu);
  ST(sw, 8, p, 0x89abcdefu);
  ST(sw, 12, p, 0u);
  h = 2166136261u;
  for (int i = 0; i < 16; i += 4) h = rt_fold(h, LD(lw, 0, p + i));
  results[1] = h;
  /* compressed loads/stores (x8..x15 operands) */
  uint32_t v = 0x13572468u, r1, r2;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\t"
      "mv s0, %2\n\tmv a2, %3\n\tc.sw a2, 16(s0)\n\tc.lw a3, 16(s0)\n\tc.lw a4, 4(s0)\n\t"
      "mv %0, a3\n\tmv %1, a4\n\t.option pop"
      : "=r"(r1), "=r"(r2)
      : "r"(p), "r"(v)
      : "s0", "a2", "a3", "a4", "memory");
  results[2] = r1 ^ (r2 << 1);
  uint32_t r3;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\taddi sp, sp, -16\n\tc.swsp %1, 8(sp)\n\t"
      "c.lwsp %0, 8(sp)\n\taddi sp, sp, 16\n\t.option pop"
      : "=r"(r3)
      : "r"(v ^ 0xffu)
      : "memory");
  results[3] = r3;
  /* byte-wise copy and word sum through ordinary compiled code */
  uint32_t sum = 0;
  for (int i = 0; i < 32; ++i) buf[32 + (i ^ 5) % 32] = buf[i];
  for (int i = 0; i < 16; ++i) sum = sum * 3 + ((const uint32_t*)buf)[i];
  results[4] = sum;
  const uint32_t i1 = rt_minstret();
  rt_hex("load", results[0]);
  rt_hex("store", results[1]);
  rt_hex("c_lw_sw", results[2]);
  rt_hex("c_lwsp_swsp", results[3]);
  rt_hex("copy", results[4]);
  rt_hex("instret", i1 - i0);
  return 0;
}
