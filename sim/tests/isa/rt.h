/* ISA test runtime: character output, exit, hex printing and counters (both targets). */
#ifndef ISA_RT_H
#define ISA_RT_H
#include <stdint.h>

void rt_putc(char c);
void rt_puts(const char* s);
void rt_hex(const char* label, uint32_t v); /* "label=xxxxxxxx\n" */
void rt_exit(int code) __attribute__((noreturn));
static inline uint32_t rt_minstret(void) {
  uint32_t x;
  __asm__ volatile("csrr %0, minstret" : "=r"(x)::"memory");
  return x;
}
/* FNV-1a fold of results */
static inline uint32_t rt_fold(uint32_t h, uint32_t v) { return (h ^ v) * 16777619u; }
#endif
