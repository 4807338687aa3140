/* ISA test: every RV32I/M register-register and register-immediate ALU op over edge operands.
   Prints one FNV hash per op and the instret of the compute region. */
#include "rt.h"

#define RR(op)                                                      \
  static uint32_t f_##op(uint32_t a, uint32_t b) {                  \
    uint32_t r;                                                     \
    __asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); \
    return r;                                                       \
  }
#define RI(name, op, imm)                                      \
  static uint32_t f_##name(uint32_t a, uint32_t b) {           \
    uint32_t r;                                                \
    (void)b;                                                   \
    __asm__ volatile(#op " %0, %1, " #imm : "=r"(r) : "r"(a)); \
    return r;                                                  \
  }
RR(add)
RR(sub)
RR(sll) RR(slt) RR(sltu) RR(xor) RR(srl) RR(sra) RR(or) RR(and) RR(mul) RR(mulh) RR(mulhsu)
    RR(mulhu) RR(div) RR(divu) RR(rem) RR(remu) RI(addi_p, addi, 2047) RI(addi_n, addi, -2048)
        RI(slti, slti, -1) RI(sltiu, sltiu, -1) RI(xori, xori, -1) RI(ori, ori, 0x555)
            RI(andi, andi, -256) RI(slli, slli, 31) RI(srli, srli, 7) RI(srai, srai, 31)
                RI(srai0, srai, 0)

                    static uint32_t f_lui(uint32_t a, uint32_t b) {
  uint32_t r;
  (void)a;
  (void)b;
  __asm__ volatile("lui %0, 0xfedcb" : "=r"(r));
  return r;
}
static uint32_t f_auipc(uint32_t a, uint32_t b) {
  uint32_t r, s;
  (void)a;
  (void)b;
  __asm__ volatile("auipc %0, 0x12345\n\tauipc %1, 0" : "=r"(r), "=r"(s));
  return r - s + 4; /* position independent */
}
/* compressed ALU forms written explicitly */
static uint32_t f_rvc(uint32_t a, uint32_t b) {
  uint32_t r = a, s = b;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\t"
      "c.addi %0, -7\n\tc.slli %0, 3\n\tc.mv a5, %1\n\tc.add %0, a5\n\t"
      "c.andi %0, 0x1b\n\tc.li a4, -9\n\tc.sub %0, a4\n\tc.srai %0, 1\n\t"
      ".option pop"
      : "+r"(r), "+r"(s)
      :
      : "a4", "a5");
  return r;
}

static uint32_t f_rvc2(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\t"
      "mv s0, %1\n\tmv s1, %2\n\tc.xor s0, s1\n\tc.or s1, s0\n\tc.and s0, s1\n\t"
      "c.srli s1, 5\n\tc.lui a5, 0x1f\n\tc.add s0, a5\n\tc.addi4spn a4, sp, 64\n\t"
      "mv a3, sp\n\tc.sub a4, a3\n\tc.addi16sp sp, -32\n\tc.addi16sp sp, 32\n\tc.add s0, a4\n\t"
      "c.slli s1, 2\n\tc.add s0, s1\n\tmv %0, s0\n\t.option pop"
      : "=r"(r)
      : "r"(a), "r"(b)
      : "s0", "s1", "a3", "a4", "a5");
  return r;
}

typedef uint32_t (*fn)(uint32_t, uint32_t);
static const struct {
  const char* name;
  fn f;
} ops[] = {
    {"add", f_add},       {"sub", f_sub},     {"sll", f_sll},       {"slt", f_slt},
    {"sltu", f_sltu},     {"xor", f_xor},     {"srl", f_srl},       {"sra", f_sra},
    {"or", f_or},         {"and", f_and},     {"mul", f_mul},       {"mulh", f_mulh},
    {"mulhsu", f_mulhsu}, {"mulhu", f_mulhu}, {"div", f_div},       {"divu", f_divu},
    {"rem", f_rem},       {"remu", f_remu},   {"addi_p", f_addi_p}, {"addi_n", f_addi_n},
    {"slti", f_slti},     {"sltiu", f_sltiu}, {"xori", f_xori},     {"ori", f_ori},
    {"andi", f_andi},     {"slli", f_slli},   {"srli", f_srli},     {"srai", f_srai},
    {"srai0", f_srai0},   {"lui", f_lui},     {"auipc", f_auipc},   {"rvc", f_rvc},
    {"rvc2", f_rvc2},
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static const uint32_t vals[] = {0,           1,           2,           3,           0xffffffffu,
                                0xfffffffeu, 0x7fffffffu, 0x80000000u, 0x12345678u, 0x9abcdef0u,
                                31,          32,          33,          0x0000ffffu, 0xffff0000u};
#define NVALS (sizeof(vals) / sizeof(vals[0]))
static uint32_t results[NOPS];

int main(void) {
  const uint32_t i0 = rt_minstret();
  for (unsigned k = 0; k < NOPS; ++k) {
    uint32_t h = 2166136261u;
    for (unsigned i = 0; i < NVALS; ++i)
      for (unsigned j = 0; j < NVALS; ++j) h = rt_fold(h, ops[k].f(vals[i], vals[j]));
    results[k] = h;
  }
  const uint32_t i1 = rt_minstret();
  for (unsigned k = 0; k < NOPS; ++k) rt_hex(ops[k].name, results[k]);
  rt_hex("instret", i1 - i0);
  return 0;
}
