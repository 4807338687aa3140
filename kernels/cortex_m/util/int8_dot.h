// The int8 dot products of the fast cortex_m kernels (kernels/cortex_m/fast): several weight rows
// against one input run at once, so that each input byte loaded feeds kOc multiply-accumulates.
// With the Arm DSP extension (__ARM_FEATURE_DSP: Cortex-M4/M7/M33/M55) four bytes are taken per
// load and multiplied in 16-bit pairs (SXTB16 + SMLAD), as CMSIS-NN's DSP kernels do.
#pragma once
#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define ETMCU_INT8_SMLAD 1
#else
#define ETMCU_INT8_SMLAD 0
#endif
// Helium (MVE, Cortex-M55/M85): VMLADAVA.S8 adds the sixteen byte products of two vectors to a
// scalar accumulator; the last n % 16 bytes go through SMLAD.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define ETMCU_INT8_MVE 1
#else
#define ETMCU_INT8_MVE 0
#endif
// ETMCU_INT8_XPULP=1 (the xpulp variant, kernels/cortex_m/xpulp): CORE-V CV32E40P with its PULP
// extensions (COREV_PULP=1), whose cv.sdotsp.b adds the four signed byte products of two words
// to a register in one cycle.
#ifndef ETMCU_INT8_XPULP
#define ETMCU_INT8_XPULP 0
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

// Largest dot-product length whose int32 sums of int8 products cannot overflow
// (|x * w| <= 2^14): longer filters take the reference loop, which wraps explicitly.
constexpr int32_t kMaxDotLength = 1 << 16;

// Output channels per pass: each input byte loaded feeds kOc multiply-accumulates. Two with SMLAD
// alone (the register budget of Thumb-2 with the unpacked pairs), four otherwise (with MVE the
// pairs are only a tail).
constexpr int kOc = ETMCU_INT8_SMLAD && !ETMCU_INT8_MVE ? 2 : 4;

#if ETMCU_INT8_XPULP
// acc + the sum of the four signed byte products of a and b: cv.sdotsp.b, written with .insn
// (binutils 2.40 does not know the CORE-V mnemonics; encoding: opcode 0x7b, funct3 1, funct7
// 0x54, as in sim/isa/instructions.def). Elsewhere (the host tests of this variant) the same sum
// in C.
inline int32_t sdotsp_b(int32_t acc, uint32_t a, uint32_t b) {
#if defined(__riscv)
  __asm__(".insn r 0x7b, 1, 0x54, %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
#else
  for (int s = 0; s < 32; s += 8) acc += static_cast<int8_t>(a >> s) * static_cast<int8_t>(b >> s);
  return acc;
#endif
}
#endif

// d[k] += sum(x[i] * w[k][i]) over n bytes, k < kOc (callers keep a whole sum under kMaxDotLength
// bytes, so the int32 sums stay in range). The k loops are unrolled so that a[] and w[] live in
// registers. The Xpulp build never inlines it: inlined into the linear kernel's loop its
// sixteen-byte loop ran out of registers (8 % more cycles on the autoencoder), while the other
// builds gain from the inlining there (the plain CV32E40P lost 8.5 % without it).
#if ETMCU_INT8_XPULP
#define ETMCU_INT8_DOT_INLINING __attribute__((noinline))
#else
#define ETMCU_INT8_DOT_INLINING
#endif
ETMCU_INT8_DOT_INLINING inline void dot(const int8_t* x, const int8_t* const* w, int32_t n,
                                        int32_t* d) {
  int32_t a[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) a[k] = d[k];
  int32_t i = 0;
#if ETMCU_INT8_MVE
  for (; i + 16 <= n; i += 16) {
    const int8x16_t xv = vld1q_s8(x + i);
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) a[k] = vmladavaq_s8(a[k], xv, vld1q_s8(w[k] + i));
  }
#endif
#if ETMCU_INT8_SMLAD
  // (a rotate the compiler folds into SXTB16's ROR operand; GCC 12's arm_acle.h has no __ror)
  auto ror8 = [](uint32_t v) { return (v >> 8) | (v << 24); };
  for (; i + 4 <= n; i += 4) {
    uint32_t xv;
    memcpy(&xv, x + i, 4);  // unaligned word loads are fine on these cores
    const int16x2_t xe = __sxtb16(xv), xo = __sxtb16(ror8(xv));
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) {
      uint32_t v;
      memcpy(&v, w[k] + i, 4);
      a[k] = __smlad(xe, __sxtb16(v), a[k]);
      a[k] = __smlad(xo, __sxtb16(ror8(v)), a[k]);
    }
  }
#else
#if ETMCU_INT8_XPULP
  // Word loads where every row is 4-byte aligned (as the models' pointwise rows are; a misaligned
  // load costs two accesses on the CV32E40P), else the byte loop below does all.
  uintptr_t align = reinterpret_cast<uintptr_t>(x);
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) align |= reinterpret_cast<uintptr_t>(w[k]);
  if ((align & 3u) == 0) {
    // Sixteen bytes per iteration through moving pointers: the loads take immediate offsets, so
    // the pointer updates are paid once per 4 x kOc dot instructions instead of once per kOc.
    const int8_t* px = x;
    const int8_t* pw[kOc];
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) pw[k] = w[k];
    for (; i + 16 <= n; i += 16, px += 16) {
      uint32_t xv[4];
      memcpy(xv, __builtin_assume_aligned(px, 4), 16);
#pragma GCC unroll 4
      for (int k = 0; k < kOc; ++k) {
        uint32_t v[4];
        memcpy(v, __builtin_assume_aligned(pw[k], 4), 16);
        a[k] = sdotsp_b(a[k], xv[0], v[0]);
        a[k] = sdotsp_b(a[k], xv[1], v[1]);
        a[k] = sdotsp_b(a[k], xv[2], v[2]);
        a[k] = sdotsp_b(a[k], xv[3], v[3]);
        pw[k] += 16;
      }
    }
    for (; i + 4 <= n; i += 4) {
      uint32_t xv;
      memcpy(&xv, __builtin_assume_aligned(x + i, 4), 4);
#pragma GCC unroll 4
      for (int k = 0; k < kOc; ++k) {
        uint32_t v;
        memcpy(&v, __builtin_assume_aligned(w[k] + i, 4), 4);
        a[k] = sdotsp_b(a[k], xv, v);
      }
    }
  }
#endif
  // Four bytes per step through moving pointers: RV32 and Thumb-1 have no indexed loads, so each
  // load then takes an immediate offset instead of an address addition.
  const int8_t* q[kOc];
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) q[k] = w[k] + i;
  const int8_t* p = x + i;
  for (; i + 4 <= n; i += 4) {
    const int32_t x0 = p[0], x1 = p[1], x2 = p[2], x3 = p[3];
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) {
      a[k] += x0 * q[k][0] + x1 * q[k][1] + x2 * q[k][2] + x3 * q[k][3];
      q[k] += 4;
    }
    p += 4;
  }
#endif
  for (; i < n; ++i) {
    const int32_t xv = x[i];
#pragma GCC unroll 4
    for (int k = 0; k < kOc; ++k) a[k] += xv * w[k][i];
  }
#pragma GCC unroll 4
  for (int k = 0; k < kOc; ++k) d[k] = a[k];
}

inline int32_t byte_sum(const int8_t* w, int32_t n) {
  int32_t s = 0;
  for (int32_t i = 0; i < n; ++i) s += w[i];
  return s;
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
