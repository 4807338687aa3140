// Helpers for simulator unit tests: encode instructions and run small programs placed at the
// boot address; programs end with ecall, which stops the run as an unhandled trap (mtvec == 0).
#pragma once

#include <cstdint>
#include <vector>

#include "core/sim.h"

namespace etmcu::sim::test {

inline uint32_t R(uint32_t op, uint32_t f3, uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
inline uint32_t I(uint32_t op, uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) {
  return ((static_cast<uint32_t>(imm) & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
inline uint32_t S(uint32_t op, uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 31) << 7) | op;
}
inline uint32_t B(uint32_t op, uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
         (f3 << 12) | (((u >> 1) & 0xf) << 8) | (((u >> 11) & 1) << 7) | op;
}
inline uint32_t Addi(uint32_t rd, uint32_t rs1, int32_t imm) { return I(0x13, 0, rd, rs1, imm); }
inline uint32_t Lui(uint32_t rd, uint32_t imm20) { return (imm20 << 12) | (rd << 7) | 0x37; }
constexpr uint32_t kEcall = 0x00000073;
constexpr uint32_t kNop = 0x00000013;

// Xpulp encodings (same field layout as the reference suite's xpulp.h).
inline uint32_t CvAlu(uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return R(0x2b, 3, f7, rd, rs1, rs2);
}
inline uint32_t Cv5b(uint32_t f3, uint32_t f2, uint32_t is3, uint32_t rd, uint32_t rs1,
                     uint32_t rs2) {
  return R(0x5b, f3, (f2 << 5) | is3, rd, rs1, rs2);
}
inline uint32_t CvSimd(uint32_t f5, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2,
                       uint32_t f = 0) {
  return R(0x7b, f3, (f5 << 2) | (f << 1), rd, rs1, rs2);
}
inline uint32_t CvSimdI(uint32_t f5, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t imm6) {
  return R(0x7b, f3, (f5 << 2) | (imm6 & 1), rd, rs1, (imm6 >> 1) & 31);
}

struct ProgramRun {
  RunResult result;
  std::unique_ptr<Sim> sim;
};

// Places 32-bit words at the boot address, presets registers, runs to the final ecall.
inline ProgramRun RunProgram(const std::vector<uint32_t>& words,
                             const std::vector<std::pair<int, uint32_t>>& regs = {},
                             Config config = Config::kPulp, uint64_t max_cycles = 100000) {
  SimOptions opt;
  opt.config = config;
  opt.max_cycles = max_cycles;
  ProgramRun run{{}, std::make_unique<Sim>(opt)};
  run.sim->write_memory(kBootAddr, words.data(), words.size() * 4);
  for (const auto& [r, v] : regs) run.sim->set_reg(r, v);
  run.result = run.sim->run();
  return run;
}

}  // namespace etmcu::sim::test
