// The quantized add's long same-shape loop (util/add.h AddTableShift) on a plain RV32IMC core: a
// fused ReLU's adds (AddTableShift::relu, ResNet-8's three) in an assembly loop of two elements
// a pass, every load two instructions or more ahead of its use; a sum below 0 branches to a store
// of amin (placed after the loop) and skips the product, a result above amax to its clamp. 18.7
// cycles an element on ResNet-8's adds (the tables included), against 31 for GCC's code of the C
// loop (the sign term, both clamps by branches, the pointers stepped one element at a time). An odd
// last element, and the adds of any other activation range, run the C loop.
#pragma once
#include <stdint.h>

#include "kernels/cortex_m/util/add.h"

namespace etmcu {
namespace kernels {
namespace int8 {

inline void add_table_shift(const AddTableShift& a) {
#if defined(__riscv)
  if (a.relu && a.n >= 2) {
    const int8_t *t = a.t, *s = a.s;
    int8_t* y = a.y;
    int8_t* const end = a.y + (a.n & ~1);
    // the constant terms of util/add.h add_relu_of_4v: the sign term +1 and the rounding
    const int32_t k = a.q.offset_high + 1 + (int32_t(1) << (a.q.right - 1));
    int32_t x0, z0, x1, z1;
    __asm__ volatile(
        ".p2align 2\n\t"
        ".option push\n\t"
        ".option norvc\n\t"
        "1:\n\t"
        "lb   %[x0], 0(%[t])\n\t"
        "lb   %[z0], 0(%[s])\n\t"
        "lb   %[x1], 1(%[t])\n\t"
        "lb   %[z1], 1(%[s])\n\t"
        "slli %[x0], %[x0], 2\n\t"
        "add  %[x0], %[x0], %[table]\n\t"
        "lw   %[x0], 0(%[x0])\n\t"
        "sll  %[z0], %[z0], %[left4]\n\t"
        "slli %[x1], %[x1], 2\n\t"
        "add  %[x0], %[x0], %[z0]\n\t"  // element 0's 4v
        "add  %[x1], %[x1], %[table]\n\t"
        "bltz %[x0], 5f\n\t"
        "mulh %[x0], %[x0], %[mult]\n\t"
        "add  %[x0], %[x0], %[k]\n\t"
        "sra  %[x0], %[x0], %[right]\n\t"
        "bgt  %[x0], %[amax], 6f\n\t"
        "2:\n\t"
        "sb   %[x0], 0(%[y])\n\t"
        "3:\n\t"
        "lw   %[x1], 0(%[x1])\n\t"
        "sll  %[z1], %[z1], %[left4]\n\t"
        "addi %[t], %[t], 2\n\t"
        "add  %[x1], %[x1], %[z1]\n\t"  // element 1's 4v
        "addi %[s], %[s], 2\n\t"
        "bltz %[x1], 7f\n\t"
        "mulh %[x1], %[x1], %[mult]\n\t"
        "add  %[x1], %[x1], %[k]\n\t"
        "sra  %[x1], %[x1], %[right]\n\t"
        "bgt  %[x1], %[amax], 8f\n\t"
        "4:\n\t"
        "sb   %[x1], 1(%[y])\n\t"
        "9:\n\t"
        "addi %[y], %[y], 2\n\t"
        "bne  %[y], %[end], 1b\n\t"
        "j    10f\n\t"
        "5:\n\t"  // element 0's sum below 0: amin
        "sb   %[amin], 0(%[y])\n\t"
        "j    3b\n\t"
        "6:\n\t"  // above amax
        "mv   %[x0], %[amax]\n\t"
        "j    2b\n\t"
        "7:\n\t"
        "sb   %[amin], 1(%[y])\n\t"
        "j    9b\n\t"
        "8:\n\t"
        "mv   %[x1], %[amax]\n\t"
        "j    4b\n\t"
        "10:\n\t"
        ".option pop\n\t"
        : [t] "+r"(t), [s] "+r"(s), [y] "+r"(y), [x0] "=&r"(x0), [z0] "=&r"(z0), [x1] "=&r"(x1),
          [z1] "=&r"(z1)
        : [end] "r"(end), [table] "r"(a.table), [left4] "r"(a.left4), [mult] "r"(a.q.multiplier),
          [k] "r"(k), [right] "r"(a.q.right), [amin] "r"(a.amin), [amax] "r"(a.amax)
        : "memory");
    if ((a.n & 1) == 0) return;
    AddTableShift last = a;  // the odd last element
    last.t = t, last.s = s, last.y = y, last.n = 1;
    add_table_shift_c(last);
    return;
  }
#endif
  add_table_shift_c(a);
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
