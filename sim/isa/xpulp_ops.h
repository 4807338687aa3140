// Pure semantic helpers for the CORE-V Xpulp instructions (bit manipulation, clip, N-shift
// arithmetic, 16x16 multiply, packed SIMD). No state and no timing: values in, value out.
#pragma once

#include <cstdint>

#include "isa/isa.h"

namespace etmcu::sim::xpulp {

inline uint32_t Mask(uint32_t width) { return width >= 32 ? ~0u : ((1u << width) - 1u); }

// Bit field [pos+len : pos] (len = Is3, field width len+1, clamped at bit 31).
inline uint32_t Extract(uint32_t v, uint32_t len, uint32_t pos, bool sign) {
  uint32_t hi = pos + len;
  if (hi > 31) hi = 31;
  const uint32_t width = hi - pos + 1;
  uint32_t f = (v >> pos) & Mask(width);
  if (sign && width < 32 && ((f >> (width - 1)) & 1)) f |= ~Mask(width);
  return f;
}
inline uint32_t FieldMask(uint32_t len, uint32_t pos) {
  uint32_t hi = pos + len;
  if (hi > 31) hi = 31;
  return Mask(hi - pos + 1) << pos;
}
inline uint32_t Insert(uint32_t rd, uint32_t rs1, uint32_t len, uint32_t pos) {
  const uint32_t m = FieldMask(len, pos);
  return (rd & ~m) | ((rs1 << pos) & m);
}
inline uint32_t Ff1(uint32_t v) { return v ? static_cast<uint32_t>(__builtin_ctz(v)) : 32; }
inline uint32_t Fl1(uint32_t v) { return v ? 31u - static_cast<uint32_t>(__builtin_clz(v)) : 32; }
inline uint32_t Clb(uint32_t v) {
  if (v == 0) return 0;
  const uint32_t x = (v & 0x80000000u) ? ~v : v;
  return (x ? static_cast<uint32_t>(__builtin_clz(x)) : 32u) - 1u;
}
inline uint32_t Ror(uint32_t a, uint32_t b) {
  b &= 31;
  return b ? (a >> b) | (a << (32 - b)) : a;
}
inline int32_t ClipS(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : (x > hi ? hi : x); }
inline uint32_t Clip(uint32_t a, uint32_t is2) {
  const int32_t hi = is2 == 0 ? 0 : static_cast<int32_t>((1u << (is2 - 1)) - 1u);
  return static_cast<uint32_t>(ClipS(static_cast<int32_t>(a), -hi - 1, hi));
}
inline uint32_t Clipu(uint32_t a, uint32_t is2) {
  const int32_t hi = is2 == 0 ? 0 : static_cast<int32_t>((1u << (is2 - 1)) - 1u);
  return static_cast<uint32_t>(ClipS(static_cast<int32_t>(a), 0, hi));
}
inline uint32_t Clipr(uint32_t a, uint32_t b) {
  const int32_t hi = static_cast<int32_t>(b & 0x7fffffffu);
  return static_cast<uint32_t>(ClipS(static_cast<int32_t>(a), -hi - 1, hi));
}
inline uint32_t Clipur(uint32_t a, uint32_t b) {
  const int32_t hi = static_cast<int32_t>(b & 0x7fffffffu);
  return static_cast<uint32_t>(ClipS(static_cast<int32_t>(a), 0, hi));
}
// (x [+ round]) >> n, arithmetic or logical.
inline uint32_t ShiftN(uint32_t x, uint32_t n, bool round, bool arith) {
  n &= 31;
  if (round && n) x += 1u << (n - 1);
  return arith ? static_cast<uint32_t>(static_cast<int32_t>(x) >> n) : x >> n;
}
// cv.bitrev as the RTL computes it: shift left by Is2, then reverse the word in digits of 1, 2
// or 3 bits (radix 2, 4, 8 selected by Is3[1:0]; 3 behaves as radix 2; radix 8 leaves bits 31:30
// zero).
inline uint32_t Bitrev(uint32_t v, uint32_t is3, uint32_t is2) {
  const uint32_t s = v << (is2 & 31);
  uint32_t out = 0;
  switch (is3 & 3) {
    case 1:
      for (uint32_t j = 0; j < 16; ++j) out |= ((s >> (30 - 2 * j)) & 3u) << (2 * j);
      break;
    case 2:
      for (uint32_t j = 0; j < 10; ++j) out |= ((s >> (29 - 3 * j)) & 7u) << (3 * j);
      break;
    default:
      for (uint32_t j = 0; j < 32; ++j) out |= ((s >> (31 - j)) & 1u) << j;
      break;
  }
  return out;
}

// ---- packed SIMD ----
inline uint32_t Lane(uint32_t v, int i, bool b) {
  return b ? (v >> (8 * i)) & 0xff : (v >> (16 * i)) & 0xffff;
}
inline int32_t SLane(uint32_t v, int i, bool b) {
  return b ? static_cast<int8_t>(v >> (8 * i)) : static_cast<int16_t>(v >> (16 * i));
}
// Second operand lane for .vv / .sc / .sci.
inline uint32_t Op2(uint32_t rs2, int32_t imm, uint8_t variant, int i, bool b) {
  if (variant == 0) return Lane(rs2, i, b);
  const uint32_t s = variant == 2 ? rs2 : static_cast<uint32_t>(imm);
  return b ? s & 0xff : s & 0xffff;
}
inline int32_t SOp2(uint32_t rs2, int32_t imm, uint8_t variant, int i, bool b) {
  const uint32_t u = Op2(rs2, imm, variant, i, b);
  return b ? static_cast<int8_t>(u) : static_cast<int16_t>(u);
}

// Lane-wise ALU / comparison ops. kind selects the operation (the Op value).
inline uint32_t SimdLanewise(Op op, bool b, uint32_t a, uint32_t rs2, int32_t imm,
                             uint8_t variant) {
  const int lanes = b ? 4 : 2;
  const uint32_t lane_mask = b ? 0xff : 0xffff;
  const uint32_t shift_mask = b ? 7 : 15;
  uint32_t out = 0;
  for (int i = 0; i < lanes; ++i) {
    const uint32_t x = Lane(a, i, b), y = Op2(rs2, imm, variant, i, b);
    const int32_t sx = SLane(a, i, b), sy = SOp2(rs2, imm, variant, i, b);
    uint32_t r = 0;
    switch (op) {
      case Op::kCvAddH:
      case Op::kCvAddB:
        r = x + y;
        break;
      case Op::kCvSubH:
      case Op::kCvSubB:
        r = x - y;
        break;
      case Op::kCvAvgH:
      case Op::kCvAvgB: {
        const uint32_t s = (x + y) & lane_mask;
        const int32_t ss = b ? static_cast<int8_t>(s) : static_cast<int16_t>(s);
        r = static_cast<uint32_t>(ss >> 1);
        break;
      }
      case Op::kCvAvguH:
      case Op::kCvAvguB:
        r = ((x + y) & lane_mask) >> 1;
        break;
      case Op::kCvMinH:
      case Op::kCvMinB:
        r = static_cast<uint32_t>(sx < sy ? sx : sy);
        break;
      case Op::kCvMinuH:
      case Op::kCvMinuB:
        r = x < y ? x : y;
        break;
      case Op::kCvMaxH:
      case Op::kCvMaxB:
        r = static_cast<uint32_t>(sx > sy ? sx : sy);
        break;
      case Op::kCvMaxuH:
      case Op::kCvMaxuB:
        r = x > y ? x : y;
        break;
      case Op::kCvSrlH:
      case Op::kCvSrlB:
        r = x >> (y & shift_mask);
        break;
      case Op::kCvSraH:
      case Op::kCvSraB:
        r = static_cast<uint32_t>(sx >> (y & shift_mask));
        break;
      case Op::kCvSllH:
      case Op::kCvSllB:
        r = x << (y & shift_mask);
        break;
      case Op::kCvOrH:
      case Op::kCvOrB:
        r = x | y;
        break;
      case Op::kCvXorH:
      case Op::kCvXorB:
        r = x ^ y;
        break;
      case Op::kCvAndH:
      case Op::kCvAndB:
        r = x & y;
        break;
      case Op::kCvAbsH:
      case Op::kCvAbsB:
        r = static_cast<uint32_t>(sx < 0 ? -sx : sx);
        break;
      case Op::kCvCmpeqH:
      case Op::kCvCmpeqB:
        r = x == y ? ~0u : 0;
        break;
      case Op::kCvCmpneH:
      case Op::kCvCmpneB:
        r = x != y ? ~0u : 0;
        break;
      case Op::kCvCmpgtH:
      case Op::kCvCmpgtB:
        r = sx > sy ? ~0u : 0;
        break;
      case Op::kCvCmpgeH:
      case Op::kCvCmpgeB:
        r = sx >= sy ? ~0u : 0;
        break;
      case Op::kCvCmpltH:
      case Op::kCvCmpltB:
        r = sx < sy ? ~0u : 0;
        break;
      case Op::kCvCmpleH:
      case Op::kCvCmpleB:
        r = sx <= sy ? ~0u : 0;
        break;
      case Op::kCvCmpgtuH:
      case Op::kCvCmpgtuB:
        r = x > y ? ~0u : 0;
        break;
      case Op::kCvCmpgeuH:
      case Op::kCvCmpgeuB:
        r = x >= y ? ~0u : 0;
        break;
      case Op::kCvCmpltuH:
      case Op::kCvCmpltuB:
        r = x < y ? ~0u : 0;
        break;
      case Op::kCvCmpleuH:
      case Op::kCvCmpleuB:
        r = x <= y ? ~0u : 0;
        break;
      default:
        break;
    }
    out |= (r & lane_mask) << (b ? 8 * i : 16 * i);
  }
  return out;
}

// Dot products: ua/ub select unsigned lanes for rs1 / op2.
inline uint32_t SimdDot(bool b, bool ua, bool ub, uint32_t a, uint32_t rs2, int32_t imm,
                        uint8_t variant, uint32_t acc) {
  const int lanes = b ? 4 : 2;
  uint32_t sum = acc;
  for (int i = 0; i < lanes; ++i) {
    const int64_t x = ua ? static_cast<int64_t>(Lane(a, i, b)) : SLane(a, i, b);
    const int64_t y =
        ub ? static_cast<int64_t>(Op2(rs2, imm, variant, i, b)) : SOp2(rs2, imm, variant, i, b);
    sum += static_cast<uint32_t>(x * y);
  }
  return sum;
}

// ((x + y) & 0xffff) >>> n on 16-bit halves (cv.add/sub.divN, cv.subrotmj); y may be negated.
inline uint32_t HalfShift(uint32_t x, uint32_t y, uint32_t n) {
  const int16_t sum = static_cast<int16_t>(static_cast<uint16_t>((x + y) & 0xffff));
  return static_cast<uint32_t>(sum >> n) & 0xffff;
}
// Complex multiply on 16-bit (re, im) halves, arithmetic shift by 15 + div.
inline uint32_t CplxMulRe(uint32_t a, uint32_t b, uint32_t div) {
  const int64_t ar = static_cast<int16_t>(a), ai = static_cast<int16_t>(a >> 16);
  const int64_t br = static_cast<int16_t>(b), bi = static_cast<int16_t>(b >> 16);
  return static_cast<uint32_t>((ar * br - ai * bi) >> (15 + div)) & 0xffff;
}
inline uint32_t CplxMulIm(uint32_t a, uint32_t b, uint32_t div) {
  const int64_t ar = static_cast<int16_t>(a), ai = static_cast<int16_t>(a >> 16);
  const int64_t br = static_cast<int16_t>(b), bi = static_cast<int16_t>(b >> 16);
  return static_cast<uint32_t>((ar * bi + ai * br) >> (15 + div)) & 0xffff;
}

inline uint32_t ShuffleB(uint32_t a, uint32_t sel0, uint32_t sel1, uint32_t sel2, uint32_t sel3) {
  return Lane(a, static_cast<int>(sel0 & 3), true) |
         (Lane(a, static_cast<int>(sel1 & 3), true) << 8) |
         (Lane(a, static_cast<int>(sel2 & 3), true) << 16) |
         (Lane(a, static_cast<int>(sel3 & 3), true) << 24);
}

}  // namespace etmcu::sim::xpulp
