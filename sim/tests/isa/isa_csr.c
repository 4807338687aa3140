/* ISA test: csrrw/csrrs/csrrc and immediate forms on mscratch, minstret, fence/fence.i, and
   ecall/ebreak/c.ebreak round trips through a trap handler (mcause/mepc checked). */
#include "rt.h"

volatile uint32_t trap_count, last_cause, last_epc_off;
extern void isa_trap_entry(void);
extern char isa_ecall_site[], isa_ebreak_site[], isa_cebreak_site[];

__asm__(
    ".text\n.balign 256\n.globl isa_trap_entry\nisa_trap_entry:\n"
    "  addi sp, sp, -16\n  sw t0, 0(sp)\n  sw t1, 4(sp)\n"
    "  csrr t0, mcause\n  la t1, last_cause\n  sw t0, 0(t1)\n"
    "  csrr t0, mepc\n  lhu t1, 0(t0)\n  andi t1, t1, 3\n  addi t0, t0, 2\n"
    "  addi t1, t1, -3\n  bnez t1, 1f\n  addi t0, t0, 2\n1:\n  csrw mepc, t0\n"
    "  la t0, trap_count\n  lw t1, 0(t0)\n  addi t1, t1, 1\n  sw t1, 0(t0)\n"
    "  lw t0, 0(sp)\n  lw t1, 4(sp)\n  addi sp, sp, 16\n  mret\n");

static uint32_t csr_ops(uint32_t v) {
  uint32_t a, b, c, d, e, f;
  __asm__ volatile(
      "csrw mscratch, %6\n\tcsrrs %0, mscratch, %7\n\tcsrrc %1, mscratch, %8\n\t"
      "csrrwi %2, mscratch, 21\n\tcsrrsi %3, mscratch, 8\n\tcsrrci %4, mscratch, 1\n\t"
      "csrr %5, mscratch"
      : "=&r"(a), "=&r"(b), "=&r"(c), "=&r"(d), "=&r"(e), "=&r"(f)
      : "r"(v), "r"(v >> 3), "r"(0xf0f0f0f0u));
  return a ^ (b << 1) ^ (c << 2) ^ (d << 3) ^ (e << 4) ^ (f << 5);
}

int main(void) {
  const uint32_t i0 = rt_minstret();
  uint32_t h = 2166136261u;
  h = rt_fold(h, csr_ops(0x12345678u));
  h = rt_fold(h, csr_ops(0xffffffffu));
  __asm__ volatile("fence\n\tfence.i" ::: "memory");
  const uint32_t i1 = rt_minstret();
  rt_hex("csr", h);
  rt_hex("instret", i1 - i0);
  __asm__ volatile("csrw mtvec, %0" ::"r"(isa_trap_entry));
  __asm__ volatile("ecall");
  rt_hex("ecall_cause", last_cause);
  __asm__ volatile("ebreak");
  rt_hex("ebreak_cause", last_cause);
  __asm__ volatile(".option push\n\t.option rvc\n\tc.ebreak\n\tc.nop\n\t.option pop");
  rt_hex("cebreak_cause", last_cause);
  rt_hex("traps", trap_count);
  return 0;
}
