// The CV32E40P's PULP instructions the int8 micro-kernels use, as inline functions. Written with
// .insn (binutils 2.40 does not know the CORE-V mnemonics; encodings as in
// sim/isa/instructions.def). Off RISC-V (the host tests of the xpulp variant) each is the same
// arithmetic in C, so the host runs this variant's loops with the instruction's results.
#pragma once
#include <stdint.h>

namespace etmcu {
namespace kernels {
namespace xpulp {

// acc + the sum of the four signed byte products of a and b: cv.sdotsp.b (opcode 0x7b, funct3 1,
// funct7 0x54), one cycle.
inline int32_t sdotsp_b(int32_t acc, uint32_t a, uint32_t b) {
#if defined(__riscv)
  __asm__(".insn r 0x7b, 1, 0x54, %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
#else
  for (int s = 0; s < 32; s += 8) acc += static_cast<int8_t>(a >> s) * static_cast<int8_t>(b >> s);
  return acc;
#endif
}

// acc + a * b (wrapping): cv.mac (opcode 0x2b, funct3 3, funct7 0x48), one cycle.
inline int32_t mac(int32_t acc, int32_t a, int32_t b) {
#if defined(__riscv)
  __asm__(".insn r 0x2b, 3, 0x48, %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
#else
  return static_cast<int32_t>(static_cast<uint32_t>(acc) +
                              static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
#endif
}

}  // namespace xpulp
}  // namespace kernels
}  // namespace etmcu
