/* etmcu_m0_dot4: four int8 dot products against one input run on Armv6-M (Cortex-M0/M0+), what
   isa/scalar/int8_dot.h's dot() computes there:
     d[k] += sum(x[i] * w[k][i]) for i < n, k < 4       (n < 2^16: the int32 sums cannot overflow)
   C compilers spill four accumulators out of r0-r7, so they live in r8-r11 (ADD reaches the high
   registers) while the low ones hold the five end pointers, the negative index (LDRSB has only a
   register offset in Thumb-1; its ADDS sets the loop's flags) and two temporaries: per input byte
   LDRSB x, then LDRSB w, MULS, ADD per channel, 15 instructions per 4 multiply-accumulates.
   Arguments: r0 = x, r1 = w (four pointers), r2 = n, r3 = d. Other builds assemble nothing. */
#if defined(__ARM_ARCH_6M__)
  .syntax unified
  .thumb
  .text
  .align 2
  .global etmcu_m0_dot4
  .type etmcu_m0_dot4, %function
  .thumb_func
etmcu_m0_dot4:
  push {r4-r7, lr}
  mov r4, r8
  mov r5, r9
  mov r6, r10
  mov r7, r11
  push {r4-r7}
  mov ip, r3            /* d, for the end */
  ldm r3!, {r4-r7}      /* d[0..3] into r8-r11 */
  mov r8, r4
  mov r9, r5
  mov r10, r6
  mov r11, r7
  ldm r1!, {r4-r7}      /* the runs' ends: w[k] + n and x + n */
  adds r4, r4, r2
  adds r5, r5, r2
  adds r6, r6, r2
  adds r7, r7, r2
  adds r0, r0, r2
  rsbs r2, r2, #0       /* i = -n */
  beq .Ldone
.Lloop:
  ldrsb r1, [r0, r2]
  ldrsb r3, [r4, r2]
  muls r3, r1, r3
  add r8, r3
  ldrsb r3, [r5, r2]
  muls r3, r1, r3
  add r9, r3
  ldrsb r3, [r6, r2]
  muls r3, r1, r3
  add r10, r3
  ldrsb r3, [r7, r2]
  muls r3, r1, r3
  add r11, r3
  adds r2, r2, #1
  bne .Lloop
.Ldone:
  mov r3, ip
  mov r4, r8
  mov r5, r9
  mov r6, r10
  mov r7, r11
  stm r3!, {r4-r7}
  pop {r4-r7}
  mov r8, r4
  mov r9, r5
  mov r10, r6
  mov r11, r7
  pop {r4-r7, pc}
  .size etmcu_m0_dot4, . - etmcu_m0_dot4
#endif
