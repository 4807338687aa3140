// Table-driven decoder: RVC expansion to 32-bit forms, lookup in instructions.def, operand
// extraction into the compact Decoded slot (register sources, ALU-port writes, CSR class).
#include <array>
#include <cstddef>

#include "isa/isa.h"

namespace etmcu::sim {
using std::size_t;
namespace {

constexpr InsnInfo kTable[] = {
    {"<invalid>", 0, 1, Fmt::kNone, Cls::kTrap, false},
    {"<illegal>", 0, 1, Fmt::kNone, Cls::kTrap, false},
#define INSN(name, mn, mask, match, fmt, cls, pulp) \
  {mn, mask, match, Fmt::fmt, Cls::cls, pulp != 0},
#include "isa/instructions.def"
#undef INSN
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<size_t>(Op::kCount));

constexpr uint32_t Bits(uint32_t w, int hi, int lo) {
  return (w >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr int32_t Sext(uint32_t v, int bits) {
  return static_cast<int32_t>(v << (32 - bits)) >> (32 - bits);
}

// 32-bit encoders used by the RVC expansion.
constexpr uint32_t EncI(uint32_t op, uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) {
  return (static_cast<uint32_t>(imm) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
constexpr uint32_t EncS(uint32_t op, uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (Bits(u, 11, 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (Bits(u, 4, 0) << 7) |
         op;
}
constexpr uint32_t EncB(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (Bits(u, 12, 12) << 31) | (Bits(u, 10, 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) |
         (Bits(u, 4, 1) << 8) | (Bits(u, 11, 11) << 7) | 0x63;
}
constexpr uint32_t EncJ(uint32_t rd, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (Bits(u, 20, 20) << 31) | (Bits(u, 10, 1) << 21) | (Bits(u, 11, 11) << 20) |
         (Bits(u, 19, 12) << 12) | (rd << 7) | 0x6f;
}
constexpr uint32_t EncR(uint32_t f7, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | 0x33;
}

bool IsSlowCsr(uint32_t csr) {
  switch (csr) {
    case 0x300:
    case 0x305:
    case 0x341:
    case 0x342:
    case 0x320:
    case 0xB00:
    case 0xB02:
    case 0xB80:
    case 0xB82:
    case 0xC00:
    case 0xC02:
    case 0xC80:
    case 0xC82:
      return true;
    default:
      break;
  }
  return (csr >= 0xB03 && csr <= 0xB1F) || (csr >= 0xB83 && csr <= 0xB9F) ||
         (csr >= 0x323 && csr <= 0x33F) || (csr >= 0xC03 && csr <= 0xC1F) ||
         (csr >= 0xC83 && csr <= 0xC9F);
}

}  // namespace

const InsnInfo& insn_info(Op op) { return kTable[static_cast<size_t>(op)]; }
const char* mnemonic(Op op) { return kTable[static_cast<size_t>(op)].mnemonic; }

uint32_t expand_rvc(uint16_t c) {
  const uint32_t w = c;
  const uint32_t q = Bits(w, 1, 0);
  const uint32_t f3 = Bits(w, 15, 13);
  const uint32_t rd = Bits(w, 11, 7);
  const uint32_t rs2 = Bits(w, 6, 2);
  const uint32_t rdp = 8 + Bits(w, 4, 2);   // rd' / rs2'
  const uint32_t rs1p = 8 + Bits(w, 9, 7);  // rs1' / rd'
  if (q == 0) {
    const int32_t lw_imm =
        static_cast<int32_t>((Bits(w, 12, 10) << 3) | (Bits(w, 6, 6) << 2) | (Bits(w, 5, 5) << 6));
    switch (f3) {
      case 0: {
        const int32_t imm = static_cast<int32_t>((Bits(w, 12, 11) << 4) | (Bits(w, 10, 7) << 6) |
                                                 (Bits(w, 6, 6) << 2) | (Bits(w, 5, 5) << 3));
        return imm == 0 ? 0 : EncI(0x13, 0, rdp, 2, imm);
      }
      case 2:
        return EncI(0x03, 2, rdp, rs1p, lw_imm);
      case 6:
        return EncS(0x23, 2, rs1p, rdp, lw_imm);
      default:
        return 0;
    }
  }
  if (q == 1) {
    const int32_t imm6 = Sext((Bits(w, 12, 12) << 5) | Bits(w, 6, 2), 6);
    const int32_t jimm =
        Sext((Bits(w, 12, 12) << 11) | (Bits(w, 11, 11) << 4) | (Bits(w, 10, 9) << 8) |
                 (Bits(w, 8, 8) << 10) | (Bits(w, 7, 7) << 6) | (Bits(w, 6, 6) << 7) |
                 (Bits(w, 5, 3) << 1) | (Bits(w, 2, 2) << 5),
             12);
    const int32_t bimm =
        Sext((Bits(w, 12, 12) << 8) | (Bits(w, 11, 10) << 3) | (Bits(w, 6, 5) << 6) |
                 (Bits(w, 4, 3) << 1) | (Bits(w, 2, 2) << 5),
             9);
    switch (f3) {
      case 0:
        return EncI(0x13, 0, rd, rd, imm6);
      case 1:
        return EncJ(1, jimm);
      case 2:
        return EncI(0x13, 0, rd, 0, imm6);
      case 3:
        if (rd == 2) {
          const int32_t imm =
              Sext((Bits(w, 12, 12) << 9) | (Bits(w, 6, 6) << 4) | (Bits(w, 5, 5) << 6) |
                       (Bits(w, 4, 3) << 7) | (Bits(w, 2, 2) << 5),
                   10);
          return imm == 0 ? 0 : EncI(0x13, 0, 2, 2, imm);
        }
        if (imm6 == 0) return 0;
        return (static_cast<uint32_t>(imm6) << 12) | (rd << 7) | 0x37;
      case 4: {
        const uint32_t sub = Bits(w, 11, 10);
        if (sub == 0 || sub == 1) {
          if (Bits(w, 12, 12)) return 0;  // shamt[5] must be 0 on RV32
          return EncI(0x13, 5, rs1p, rs1p, static_cast<int32_t>(Bits(w, 6, 2) | (sub << 10)));
        }
        if (sub == 2) return EncI(0x13, 7, rs1p, rs1p, imm6);
        if (Bits(w, 12, 12)) return 0;
        switch (Bits(w, 6, 5)) {
          case 0:
            return EncR(0x20, 0, rs1p, rs1p, rdp);
          case 1:
            return EncR(0, 4, rs1p, rs1p, rdp);
          case 2:
            return EncR(0, 6, rs1p, rs1p, rdp);
          default:
            return EncR(0, 7, rs1p, rs1p, rdp);
        }
      }
      case 5:
        return EncJ(0, jimm);
      case 6:
        return EncB(0, rs1p, 0, bimm);
      default:
        return EncB(1, rs1p, 0, bimm);
    }
  }
  if (q == 2) {
    switch (f3) {
      case 0:
        if (Bits(w, 12, 12)) return 0;
        return EncI(0x13, 1, rd, rd, static_cast<int32_t>(rs2));
      case 2: {
        if (rd == 0) return 0;
        const int32_t imm = static_cast<int32_t>((Bits(w, 12, 12) << 5) | (Bits(w, 6, 4) << 2) |
                                                 (Bits(w, 3, 2) << 6));
        return EncI(0x03, 2, rd, 2, imm);
      }
      case 4:
        if (!Bits(w, 12, 12)) {
          if (rs2 == 0) return rd == 0 ? 0 : EncI(0x67, 0, 0, rd, 0);
          return EncR(0, 0, rd, 0, rs2);
        }
        if (rd == 0 && rs2 == 0) return 0x00100073;  // c.ebreak
        if (rs2 == 0) return EncI(0x67, 0, 1, rd, 0);
        return EncR(0, 0, rd, rd, rs2);
      case 6: {
        const int32_t imm = static_cast<int32_t>((Bits(w, 12, 9) << 2) | (Bits(w, 8, 7) << 6));
        return EncS(0x23, 2, 2, rs2, imm);
      }
      default:
        return 0;
    }
  }
  return 0;
}

Decoded decode(uint32_t word, bool pulp) {
  Decoded d;
  const bool compressed = (word & 3) != 3;
  uint32_t w = word;
  if (compressed) {
    w = expand_rvc(static_cast<uint16_t>(word));
    d.flags |= kFlagCompressed;
  }
  d.op = Op::kIllegal;
  d.cls = Cls::kTrap;
  d.imm = static_cast<int32_t>(compressed ? (word & 0xffff) : word);
  if (w == 0) return d;
  size_t idx = 0;
  for (size_t i = 2; i < static_cast<size_t>(Op::kCount); ++i) {
    if ((w & kTable[i].mask) == kTable[i].match) {
      idx = i;
      break;
    }
  }
  if (idx == 0) return d;
  const InsnInfo& info = kTable[idx];
  if (info.pulp_only && !pulp) return d;

  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), rs2 = Bits(w, 24, 20);
  uint32_t src = 0;
  auto use = [&src](uint32_t r) { src |= (1u << r); };
  d.rd = static_cast<uint8_t>(rd);
  d.rs1 = static_cast<uint8_t>(rs1);
  d.rs2 = static_cast<uint8_t>(rs2);
  d.imm = 0;
  bool writes_rd = true;
  switch (info.fmt) {
    case Fmt::kNone:
      writes_rd = false;
      break;
    case Fmt::kR:
      use(rs1);
      use(rs2);
      break;
    case Fmt::kR1:
      use(rs1);
      break;
    case Fmt::kRdSrc:
      use(rs1);
      use(rs2);
      use(rd);
      break;
    case Fmt::kRs3:
      use(rs1);
      use(rs2);
      use(rd);
      writes_rd = false;
      break;
    case Fmt::kI:
      use(rs1);
      d.imm = Sext(Bits(w, 31, 20), 12);
      break;
    case Fmt::kS:
      use(rs1);
      use(rs2);
      writes_rd = false;
      d.imm = Sext((Bits(w, 31, 25) << 5) | Bits(w, 11, 7), 12);
      break;
    case Fmt::kB:
    case Fmt::kBImm:
      use(rs1);
      if (info.fmt == Fmt::kB) use(rs2);
      writes_rd = false;
      d.imm = Sext((Bits(w, 31, 31) << 12) | (Bits(w, 7, 7) << 11) | (Bits(w, 30, 25) << 5) |
                       (Bits(w, 11, 8) << 1),
                   13);
      break;
    case Fmt::kU:
      d.imm = static_cast<int32_t>(w & 0xfffff000u);
      break;
    case Fmt::kJ:
      d.imm = Sext((Bits(w, 31, 31) << 20) | (Bits(w, 19, 12) << 12) | (Bits(w, 20, 20) << 11) |
                       (Bits(w, 30, 21) << 1),
                   21);
      break;
    case Fmt::kShamt:
      use(rs1);
      d.imm = static_cast<int32_t>(rs2);
      break;
    case Fmt::kCsr:
      use(rs1);
      d.imm = static_cast<int32_t>(Bits(w, 31, 20));
      break;
    case Fmt::kCsrI:
      d.imm = static_cast<int32_t>(Bits(w, 31, 20));
      break;
    case Fmt::kHwl: {
      writes_rd = false;
      d.aux = static_cast<uint8_t>(Bits(w, 7, 7));
      d.imm = static_cast<int32_t>(Bits(w, 31, 20));
      const uint32_t f4 = Bits(w, 11, 8);
      if (f4 == 1 || f4 == 3 || f4 == 5 || f4 == 7) use(rs1);
      break;
    }
    case Fmt::kR1Imm:
      use(rs1);
      break;
    case Fmt::kR1Is3:
      use(rs1);
      d.aux = static_cast<uint8_t>(Bits(w, 29, 25));
      break;
    case Fmt::kRdSrcIs3:
      use(rs1);
      use(rd);
      d.aux = static_cast<uint8_t>(Bits(w, 29, 25));
      break;
    case Fmt::kRIs3:
      use(rs1);
      use(rs2);
      d.aux = static_cast<uint8_t>(Bits(w, 29, 25));
      break;
    case Fmt::kRIs3Rd:
      use(rs1);
      use(rs2);
      use(rd);
      d.aux = static_cast<uint8_t>(Bits(w, 29, 25));
      break;
    case Fmt::kSimd:
    case Fmt::kSimdU:
    case Fmt::kSimdRd:
    case Fmt::kSimdURd: {
      const uint32_t variant = Bits(w, 14, 13);
      if (variant == 1) return d;
      if (variant != 3 && Bits(w, 25, 25)) return d;
      d.aux = static_cast<uint8_t>(variant);
      use(rs1);
      if (variant != 3) use(rs2);
      if (info.fmt == Fmt::kSimdRd || info.fmt == Fmt::kSimdURd) use(rd);
      const uint32_t imm6 = (rs2 << 1) | Bits(w, 25, 25);
      const bool zext = info.fmt == Fmt::kSimdU || info.fmt == Fmt::kSimdURd;
      d.imm = zext ? static_cast<int32_t>(imm6) : Sext(imm6, 6);
      break;
    }
    case Fmt::kSimdIdx:
    case Fmt::kSimdIdxRd:
      use(rs1);
      if (info.fmt == Fmt::kSimdIdxRd) use(rd);
      d.imm = static_cast<int32_t>(Bits(w, 25, 25) | (Bits(w, 20, 20) << 1));
      break;
    case Fmt::kSimdImm:
      use(rs1);
      d.imm = static_cast<int32_t>((rs2 << 1) | Bits(w, 25, 25));
      break;
    case Fmt::kRdSrcDiv:
      use(rs1);
      use(rs2);
      use(rd);
      d.aux = static_cast<uint8_t>(Bits(w, 14, 13));
      break;
    case Fmt::kRDiv:
      use(rs1);
      use(rs2);
      d.aux = static_cast<uint8_t>(Bits(w, 14, 13));
      break;
  }
  if (static_cast<Op>(idx) == Op::kCvBitrev && d.aux >= 4) return d;  // Is3[4:2] must be 0
  d.op = static_cast<Op>(idx);
  d.cls = info.cls;
  if (info.cls == Cls::kCsr) {
    if (IsSlowCsr(static_cast<uint32_t>(d.imm))) d.flags |= kFlagSlowCsr;
  }
  const bool alu_port = info.cls == Cls::kAlu || info.cls == Cls::kMulh || info.cls == Cls::kDiv ||
                        info.cls == Cls::kDivU || info.cls == Cls::kCsr;
  if (alu_port && writes_rd && d.op != Op::kWfi) d.flags |= kFlagWritesAlu;
  d.src_mask = src & ~1u;
  return d;
}

}  // namespace etmcu::sim
