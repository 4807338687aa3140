// The CV32E40P's PULP instructions the int8 micro-kernels use, as inline functions. Written with
// .insn (binutils 2.40 does not know the CORE-V mnemonics; encodings as in
// sim/isa/instructions.def). Off RISC-V (the host tests of the xpulp variant) each is the same
// arithmetic in C, so the host runs this variant's loops with the instruction's results.
#pragma once
#include <stddef.h>
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

// A 2-D gather: for l < lines and i < n, dst[l * dst_row + i] = src[l * src_row + i * stride]
// (lines, n >= 1). Two nested hardware loops (cv.setup 1 around cv.setup 0: opcode 0x2b, funct3 4,
// rd field 15 / 14) of cv.lb.pr (register post-increment load: opcode 0x2b, funct3 3, funct7 0)
// and cv.sb (immediate post-increment store: opcode 0x2b, funct3 0), no per-row bookkeeping in C:
// bytes in pairs (two loads, then their two stores: two cycles per byte, no load-use stall), an
// odd last byte of each line (and a line of one byte) loaded and stored around the line's source
// step, which fills the load-use slot.
inline void gather_rows(int8_t* dst, int32_t dst_row, const int8_t* src, int32_t src_row,
                        int32_t stride, int32_t n, int32_t lines) {
#if defined(__riscv)
  int32_t t, u;
  const int32_t src_skip = src_row - n * stride, dst_skip = dst_row - n;
  const int32_t pairs = n >> 1;
  if (n == 1) {
    __asm__ volatile(
        ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
        ".option push\n\t"
        ".option norvc\n\t"  // the loop ends are counted in four-byte instructions
        ".insn i 0x2b, 4, x15, %[lines], 5\n\t"
        ".insn r 0x2b, 3, 0x00, %[t], %[src], %[stride]\n\t"
        "add %[src], %[src], %[src_skip]\n\t"
        ".insn s 0x2b, 0, %[t], 1(%[dst])\n\t"
        "add %[dst], %[dst], %[dst_skip]\n\t"
        ".option pop\n\t"
        : [dst] "+r"(dst), [src] "+r"(src), [t] "=&r"(t)
        :
        [lines] "r"(lines), [stride] "r"(stride), [src_skip] "r"(src_skip), [dst_skip] "r"(dst_skip)
        : "memory");
  } else if ((n & 1) == 0) {
    __asm__ volatile(
        ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
        ".option push\n\t"
        ".option norvc\n\t"
        ".insn i 0x2b, 4, x15, %[lines], 8\n\t"
        ".insn i 0x2b, 4, x14, %[pairs], 5\n\t"
        ".insn r 0x2b, 3, 0x00, %[t], %[src], %[stride]\n\t"
        ".insn r 0x2b, 3, 0x00, %[u], %[src], %[stride]\n\t"
        ".insn s 0x2b, 0, %[t], 1(%[dst])\n\t"
        ".insn s 0x2b, 0, %[u], 1(%[dst])\n\t"
        "add %[src], %[src], %[src_skip]\n\t"
        "add %[dst], %[dst], %[dst_skip]\n\t"
        ".option pop\n\t"
        : [dst] "+r"(dst), [src] "+r"(src), [t] "=&r"(t), [u] "=&r"(u)
        : [lines] "r"(lines), [pairs] "r"(pairs), [stride] "r"(stride), [src_skip] "r"(src_skip),
          [dst_skip] "r"(dst_skip)
        : "memory");
  } else {
    __asm__ volatile(
        ".p2align 2\n\t"  // the loop's setup, start and end on words (hardware loop rule)
        ".option push\n\t"
        ".option norvc\n\t"
        ".insn i 0x2b, 4, x15, %[lines], 10\n\t"
        ".insn i 0x2b, 4, x14, %[pairs], 5\n\t"
        ".insn r 0x2b, 3, 0x00, %[t], %[src], %[stride]\n\t"
        ".insn r 0x2b, 3, 0x00, %[u], %[src], %[stride]\n\t"
        ".insn s 0x2b, 0, %[t], 1(%[dst])\n\t"
        ".insn s 0x2b, 0, %[u], 1(%[dst])\n\t"
        ".insn r 0x2b, 3, 0x00, %[t], %[src], %[stride]\n\t"
        "add %[src], %[src], %[src_skip]\n\t"
        ".insn s 0x2b, 0, %[t], 1(%[dst])\n\t"
        "add %[dst], %[dst], %[dst_skip]\n\t"
        ".option pop\n\t"
        : [dst] "+r"(dst), [src] "+r"(src), [t] "=&r"(t), [u] "=&r"(u)
        : [lines] "r"(lines), [pairs] "r"(pairs), [stride] "r"(stride), [src_skip] "r"(src_skip),
          [dst_skip] "r"(dst_skip)
        : "memory");
  }
#else
  for (int32_t l = 0; l < lines; ++l)
    for (int32_t i = 0; i < n; ++i)
      dst[static_cast<ptrdiff_t>(l) * dst_row + i] =
          src[static_cast<ptrdiff_t>(l) * src_row + static_cast<ptrdiff_t>(i) * stride];
#endif
}

}  // namespace xpulp
}  // namespace kernels
}  // namespace etmcu
