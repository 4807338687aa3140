/* Start-up for the Cortex-M4 example: vector table, .data/.bss set-up, FPU on, main(), and a
 * semihosting exit (QEMU -semihosting) with main's result. */
#include <stdint.h>

extern uint32_t data_start, data_end, data_load, bss_start, bss_end, stack_top;
int main(void);
void semihost_exit(int code);
void reset_handler(void);

static void fault_handler(void) { semihost_exit(3); }

__attribute__((section(".vectors"), used)) static const void* const vectors[16] = {
    &stack_top, (const void*)reset_handler, (const void*)fault_handler,
    (const void*)fault_handler, (const void*)fault_handler, (const void*)fault_handler,
    (const void*)fault_handler};

static int semihost(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihost_puts(const char* s) { semihost(0x04, s); /* SYS_WRITE0 */ }

void semihost_exit(int code) {
  /* SYS_EXIT: ApplicationExit (QEMU exits 0) or RunTimeErrorUnknown (QEMU exits 1). */
  semihost(0x18, (const void*)(uintptr_t)(code == 0 ? 0x20026 : 0x20023));
  for (;;) {
  }
}

void reset_handler(void) {
  uint32_t* src = &data_load;
  for (uint32_t* p = &data_start; p < &data_end;) *p++ = *src++;
  for (uint32_t* p = &bss_start; p < &bss_end;) *p++ = 0;
  *(volatile uint32_t*)0xE000ED88 |= 0xFu << 20; /* CPACR: CP10/CP11 full access (FPU) */
  __asm__ volatile("dsb\n isb");
  semihost_exit(main());
}
