/* CLI test firmware: prints a line, then executes ecall without a trap handler (mtvec == 0). */
#include "rt.h"

int main(void) {
  rt_puts("before trap\n");
  __asm__ volatile("ecall");
  rt_puts("not reached\n");
  return 0;
}
