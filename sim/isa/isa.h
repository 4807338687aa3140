// Instruction set description shared by decoder, hart and timing model: op enum generated from
// instructions.def, operand formats, timing classes and the pre-decoded instruction slot.
#pragma once

#include <cstdint>

namespace etmcu::sim {

// Operand extraction formats (see instructions.def).
enum class Fmt : uint8_t {
  kNone,
  kR,
  kR1,
  kRdSrc,
  kRs3,
  kI,
  kS,
  kB,
  kU,
  kJ,
  kShamt,
  kCsr,
  kCsrI,
  kHwl,
  kBImm,
  kR1Imm,
  kR1Is3,
  kRdSrcIs3,
  kRIs3,
  kRIs3Rd,
  kSimd,
  kSimdU,
  kSimdRd,
  kSimdURd,
  kSimdIdx,
  kSimdIdxRd,
  kSimdImm,
  kRdSrcDiv,
  kRDiv
};

// Timing classes: the only thing the cycle model knows about an instruction besides its registers.
enum class Cls : uint8_t {
  kAlu,
  kMulh,
  kDiv,
  kDivU,
  kLoad,
  kStore,
  kBranch,
  kJal,
  kJalr,
  kCsr,
  kFence,
  kMret,
  kTrap
};

enum class Op : uint16_t {
  kInvalid = 0,  // slot not decoded yet
  kIllegal,      // decoded, but not a legal instruction in this configuration
#define INSN(name, mn, mask, match, fmt, cls, pulp) name,
#include "isa/instructions.def"
#undef INSN
  kCount
};

struct InsnInfo {
  const char* mnemonic;
  uint32_t mask;
  uint32_t match;
  Fmt fmt;
  Cls cls;
  bool pulp_only;
};

// Table row for an op (kInvalid/kIllegal have a placeholder row).
const InsnInfo& insn_info(Op op);

// Flags of a decoded slot.
enum : uint8_t {
  kFlagCompressed = 1,  // 16-bit encoding
  kFlagWritesAlu = 2,   // writes rd through the ALU/mul/CSR write port (load WAW hazard)
  kFlagSlowCsr = 4,     // CSR access of the 4-cycle class (status/counter CSRs)
};

// One pre-decoded instruction slot (16 bytes). Registers are indices 0..31.
struct Decoded {
  Op op = Op::kInvalid;
  uint8_t rd = 0;
  uint8_t rs1 = 0;
  uint8_t rs2 = 0;
  uint8_t aux = 0;  // Is3 / hwloop index / SIMD variant (0 vv, 2 sc, 3 sci) / divN shift
  uint8_t flags = 0;
  Cls cls = Cls::kAlu;
  int32_t imm = 0;        // immediate, CSR number, branch offset
  uint32_t src_mask = 0;  // bit r set when register r (r != 0) is read
};
static_assert(sizeof(Decoded) == 16, "Decoded must stay compact");

inline uint32_t insn_length(uint32_t low_half) { return (low_half & 3) == 3 ? 4 : 2; }

// Expands a 16-bit RVC instruction to its 32-bit equivalent; returns 0 when illegal.
uint32_t expand_rvc(uint16_t c);

// Decodes one instruction word (32-bit, or 16-bit in the low half when compressed).
Decoded decode(uint32_t word, bool pulp);

// "mnemonic" of the op, for traces and messages.
const char* mnemonic(Op op);

}  // namespace etmcu::sim
