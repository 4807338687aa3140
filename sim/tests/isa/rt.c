/* ISA test runtime implementation: testbench devices (etmcu-sim) or semihosting (QEMU). */
#include "rt.h"

#include <stddef.h>

#ifdef ISA_QEMU
extern uint32_t rt_semihost(uint32_t op, const void* arg);
void rt_putc(char c) { rt_semihost(0x03, &c); }
void rt_exit(int code) {
  /* SYS_EXIT on a 32-bit target takes the reason itself: ApplicationExit (status 0) or
     RunTimeErrorUnknown (status 1). */
  rt_semihost(0x18, (const void*)(uintptr_t)(code == 0 ? 0x20026u : 0x20023u));
  for (;;) {
  }
}
#else
void rt_putc(char c) { *(volatile uint32_t*)0x10000000u = (uint8_t)c; }
void rt_exit(int code) {
  *(volatile uint32_t*)0x20000004u = (uint32_t)code;
  for (;;) {
  }
}
#endif

void rt_puts(const char* s) {
  while (*s) rt_putc(*s++);
}

void rt_hex(const char* label, uint32_t v) {
  rt_puts(label);
  rt_putc('=');
  for (int i = 28; i >= 0; i -= 4) rt_putc("0123456789abcdef"[(v >> i) & 15u]);
  rt_putc('\n');
}

void* memset(void* d, int c, size_t n) {
  unsigned char* p = d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}
void* memcpy(void* d, const void* s, size_t n) {
  unsigned char* p = d;
  const unsigned char* q = s;
  while (n--) *p++ = *q++;
  return d;
}
