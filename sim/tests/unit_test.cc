// Unit tests: loaders (bad ELF / hex give clean errors), trap handling policy, max-cycles stop,
// RVC expansion, self-modifying code, counters and the CSR/timing basics.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "core/loader.h"
#include "isa/isa.h"
#include "test_util.h"

namespace etmcu::sim::test {
namespace {

std::vector<uint8_t> MinimalElf(uint32_t paddr, uint32_t filesz, uint32_t memsz) {
  std::vector<uint8_t> f(52 + 32 + filesz, 0);
  auto w16 = [&](size_t o, uint16_t v) {
    f[o] = v & 0xff;
    f[o + 1] = v >> 8;
  };
  auto w32 = [&](size_t o, uint32_t v) {
    for (int i = 0; i < 4; ++i) f[o + i] = (v >> (8 * i)) & 0xff;
  };
  f[0] = 0x7f;
  f[1] = 'E';
  f[2] = 'L';
  f[3] = 'F';
  f[4] = 1;
  f[5] = 1;
  f[6] = 1;
  w16(16, 2);
  w16(18, 243);
  w32(20, 1);
  w32(24, 0x80);
  w32(28, 52);
  w16(40, 52);
  w16(42, 32);
  w16(44, 1);
  w32(52, 1);
  w32(56, 84);
  w32(60, paddr);
  w32(64, paddr);
  w32(68, filesz);
  w32(72, memsz);
  w32(76, 5);
  return f;
}

TEST(Loader, ValidMinimalElf) {
  LoadResult r = parse_elf(MinimalElf(0x80, 8, 16));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.image.segments.size(), 1u);
  EXPECT_EQ(r.image.segments[0].bytes.size(), 16u);
}

TEST(Loader, BadElfsGiveErrors) {
  EXPECT_FALSE(parse_elf({}).ok);
  EXPECT_FALSE(parse_elf(std::vector<uint8_t>(10, 0x7f)).ok);
  auto bad_magic = MinimalElf(0x80, 4, 4);
  bad_magic[1] = 'X';
  EXPECT_NE(parse_elf(bad_magic).error.find("magic"), std::string::npos);
  auto elf64 = MinimalElf(0x80, 4, 4);
  elf64[4] = 2;
  EXPECT_NE(parse_elf(elf64).error.find("32-bit"), std::string::npos);
  auto arm = MinimalElf(0x80, 4, 4);
  arm[18] = 40;
  EXPECT_NE(parse_elf(arm).error.find("RISC-V"), std::string::npos);
  auto truncated = MinimalElf(0x80, 64, 64);
  truncated.resize(100);
  EXPECT_FALSE(parse_elf(truncated).ok);
  auto bad_phoff = MinimalElf(0x80, 4, 4);
  bad_phoff[28] = 0xff;
  bad_phoff[29] = 0xff;
  EXPECT_FALSE(parse_elf(bad_phoff).ok);
  auto bigger_file = MinimalElf(0x80, 8, 4);  // filesz > memsz
  EXPECT_FALSE(parse_elf(bigger_file).ok);
}

TEST(Loader, SegmentOutsideRamIsRejected) {
  LoadResult r = parse_elf(MinimalElf(0x00400000 - 4, 8, 8));
  ASSERT_TRUE(r.ok);
  Sim sim;
  EXPECT_NE(sim.load_image(r.image).find("outside RAM"), std::string::npos);
}

TEST(Loader, VerilogHex) {
  LoadResult r = parse_verilog_hex("@00000080\n13 00 00 00 73 00\n00 00\n@00000100\nAA\n");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.image.segments.size(), 2u);
  EXPECT_EQ(r.image.segments[0].addr, 0x80u);
  EXPECT_EQ(r.image.segments[0].bytes.size(), 8u);
  EXPECT_EQ(r.image.segments[1].bytes[0], 0xaa);
  Sim sim;
  ASSERT_EQ(sim.load_image(r.image), "");
  const RunResult rr = sim.run();  // nop; ecall with mtvec == 0
  EXPECT_EQ(rr.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(rr.trap.cause, 11u);
}

TEST(Loader, BadHexGivesErrors) {
  EXPECT_FALSE(parse_verilog_hex("").ok);
  EXPECT_FALSE(parse_verilog_hex("13 00\n").ok);           // data before address
  EXPECT_FALSE(parse_verilog_hex("@zz\n13\n").ok);         // bad address
  EXPECT_FALSE(parse_verilog_hex("@80\n1G\n").ok);         // bad digit
  EXPECT_FALSE(parse_verilog_hex("@80\n123\n").ok);        // not a byte
  EXPECT_FALSE(parse_verilog_hex("@123456789\n12\n").ok);  // address too long
  EXPECT_FALSE(parse_verilog_hex(std::string("@80\n12\0\n", 8)).ok);
  LoadResult far = parse_verilog_hex("@00500000\n12\n");
  ASSERT_TRUE(far.ok);
  Sim sim;
  EXPECT_FALSE(sim.load_image(far.image).empty());
}

TEST(Loader, MissingFile) {
  EXPECT_FALSE(load_firmware_file("/nonexistent/firmware.elf").ok);
  Sim sim;
  EXPECT_FALSE(sim.load_file("/nonexistent/firmware.elf").empty());
}

TEST(Traps, IllegalWithoutHandlerStops) {
  ProgramRun r = RunProgram({kNop, 0xffffffff});
  EXPECT_EQ(r.result.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(r.result.trap.cause, 2u);
  EXPECT_EQ(r.result.trap.pc, kBootAddr + 4);
  EXPECT_EQ(r.result.trap.insn, 0xffffffffu);
  EXPECT_NE(r.result.message.find("illegal instruction"), std::string::npos);
  EXPECT_EQ(r.result.instret, 1u);
}

TEST(Traps, LoadOutsideMemoryStops) {
  // lui x5, 0x30000 ; lw x6, 0(x5)
  ProgramRun r = RunProgram({Lui(5, 0x30000), I(0x03, 2, 6, 5, 0)});
  EXPECT_EQ(r.result.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(r.result.trap.cause, 5u);
  EXPECT_EQ(r.result.trap.tval, 0x30000000u);
  EXPECT_NE(r.result.message.find("load access fault"), std::string::npos);
  EXPECT_NE(r.result.message.find("addr=0x30000000"), std::string::npos);
}

TEST(Traps, FetchOutsideMemoryStops) {
  // lui x5, 0x40000 ; jalr x0, 0(x5)
  ProgramRun r = RunProgram({Lui(5, 0x40000), I(0x67, 0, 0, 5, 0)});
  EXPECT_EQ(r.result.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(r.result.trap.cause, 1u);
  EXPECT_EQ(r.result.trap.pc, 0x40000000u);
}

TEST(Traps, HandlerRunsAndMretReturns) {
  // 0x80: lui t0,0x1 ; csrw mtvec,t0 ; ecall ; addi x6,x0,7 ; sw x6 -> exit
  // 0x1000: csrr t1,mepc ; addi t1,t1,4 ; csrw mepc,t1 ; addi x7,x0,1 ; mret
  std::vector<uint32_t> prog = {Lui(5, 1),     I(0x73, 1, 0, 5, 0x305), kEcall,
                                Addi(6, 0, 7), Lui(8, 0x20000),         S(0x23, 2, 8, 6, 4)};
  const std::vector<uint32_t> handler = {I(0x73, 2, 6, 0, 0x341), Addi(6, 6, 4),
                                         I(0x73, 1, 0, 6, 0x341), Addi(7, 0, 1), 0x30200073};
  Sim sim;
  ASSERT_TRUE(sim.write_memory(kBootAddr, prog.data(), prog.size() * 4));
  ASSERT_TRUE(sim.write_memory(0x1000, handler.data(), handler.size() * 4));
  const RunResult r = sim.run();
  ASSERT_EQ(r.reason, StopReason::kExit) << r.message;
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(sim.reg(7), 1u);
}

TEST(Traps, MaxCyclesStopsRunaway) {
  ProgramRun r = RunProgram({0x0000006f}, {}, Config::kPulp, 500);  // j .
  EXPECT_EQ(r.result.reason, StopReason::kMaxCycles);
  EXPECT_GE(r.result.cycles, 500u);
}

TEST(Decode, RvcExpansion) {
  EXPECT_EQ(expand_rvc(0x0001), 0x00000013u);  // c.nop
  EXPECT_EQ(expand_rvc(0x0000), 0u);           // illegal all-zero
  EXPECT_EQ(expand_rvc(0x8082), 0x00008067u);  // c.jr ra
  EXPECT_EQ(expand_rvc(0x9002), 0x00100073u);  // c.ebreak
  EXPECT_EQ(expand_rvc(0x4501), 0x00000513u);  // c.li a0,0
  EXPECT_EQ(expand_rvc(0x1141), 0xff010113u);  // c.addi sp,-16
  EXPECT_EQ(expand_rvc(0xc606), 0x00112623u);  // c.swsp ra,12(sp)
  EXPECT_EQ(expand_rvc(0x40b2), 0x00c12083u);  // c.lwsp ra,12(sp)
  Decoded d = decode(0x0001, true);
  EXPECT_EQ(d.op, Op::kAddi);
  EXPECT_TRUE(d.flags & kFlagCompressed);
  EXPECT_EQ(decode(0xffffffff, true).op, Op::kIllegal);
}

TEST(Core, SelfModifyingCodeIsRedecoded) {
  // 0x80: lui x5,0x0 ; addi x5,x5,0x98 (address of slot) ; lw x6,0(x7) (new insn) ; sw x6,0(x5) ;
  //       fence.i ; addi x10,x0,1 (0x94) ; [0x98] addi x10,x0,2 -> replaced by addi x10,x0,3 ;
  //       ecall
  const uint32_t replacement = Addi(10, 0, 3);
  std::vector<uint32_t> prog = {
      Lui(5, 0),  Addi(5, 5, 0x98), I(0x03, 2, 6, 7, 0), S(0x23, 2, 5, 6, 0),
      0x0000100f, Addi(10, 0, 1),   Addi(10, 0, 2),      kEcall};
  Sim sim;
  ASSERT_TRUE(sim.write_memory(kBootAddr, prog.data(), prog.size() * 4));
  ASSERT_TRUE(sim.write_memory(0x2000, &replacement, 4));
  sim.set_reg(7, 0x2000);
  // Pre-decode the slot first by running once up to it is not needed: the store must invalidate.
  const RunResult r = sim.run();
  EXPECT_EQ(r.trap.cause, 11u);
  EXPECT_EQ(sim.reg(10), 3u);
}

TEST(Core, CountersInhibitedAtResetThenCount) {
  // csrr x5,minstret ; csrw mcountinhibit,x0 ; nop ; nop ; csrr x6,minstret ; csrr x7,misa ; ecall
  ProgramRun r = RunProgram({I(0x73, 2, 5, 0, 0xB02), I(0x73, 1, 0, 0, 0x320), kNop, kNop,
                             I(0x73, 2, 6, 0, 0xB02), I(0x73, 2, 7, 0, 0x301), kEcall});
  EXPECT_EQ(r.sim->reg(5), 0u);
  EXPECT_EQ(r.sim->reg(6), 3u);  // csrw itself + 2 nops
  EXPECT_EQ(r.sim->reg(7), 0x40801104u);
  uint32_t minstret = 0, misa = 0;
  ASSERT_TRUE(r.sim->read_csr(0xB02, minstret));
  EXPECT_EQ(minstret, 5u);  // csrw + 2 nops + 2 csrr (the final ecall traps)
  ASSERT_TRUE(r.sim->read_csr(0x301, misa));
  EXPECT_EQ(misa, 0x40801104u);
  EXPECT_FALSE(r.sim->read_csr(0x7B0, misa));  // dcsr: debug mode only
  ProgramRun n = RunProgram({I(0x73, 2, 7, 0, 0x301), kEcall}, {}, Config::kNoPulp);
  EXPECT_EQ(n.sim->reg(7), 0x40001104u);
}

TEST(Core, CounterWrites) {
  // csrw mcountinhibit,x0 ; csrw mcycle,x10 ; csrr x5,mcycle ; csrw minstret,x11 ; csrr x6,minstret
  ProgramRun r = RunProgram(
      {I(0x73, 1, 0, 0, 0x320), I(0x73, 1, 0, 10, 0xB00), I(0x73, 2, 5, 0, 0xB00),
       I(0x73, 1, 0, 11, 0xB02), I(0x73, 2, 6, 0, 0xB02), I(0x73, 2, 7, 0, 0xB80), kEcall},
      {{10, 1000}, {11, 500}});
  EXPECT_EQ(r.sim->reg(5), 1004u);  // written value + the 4 cycles of the status-CSR write
  EXPECT_EQ(r.sim->reg(6), 500u);
  EXPECT_EQ(r.sim->reg(7), 0u);
}

TEST(Core, ExitAndConsoleDevices) {
  // addi x6,x0,'A' ; lui x5,0x10000 ; sw x6,0(x5) ; addi x6,x0,42 ; lui x5,0x20000 ; sw x6,4(x5)
  ProgramRun r = RunProgram({Addi(6, 0, 'A'), Lui(5, 0x10000), S(0x23, 2, 5, 6, 0), Addi(6, 0, 42),
                             Lui(5, 0x20000), S(0x23, 2, 5, 6, 4)});
  ASSERT_EQ(r.result.reason, StopReason::kExit);
  EXPECT_EQ(r.result.exit_code, 42);
  EXPECT_EQ(r.sim->output(), "A");
  EXPECT_EQ(r.result.cycles, 6u + 5u);  // N single-cycle instructions + 5
  EXPECT_EQ(r.result.instret, 6u);
}

TEST(Core, RandomProgramsNeverCrash) {
  // Random words (and random compressed halves) as code: every run must end cleanly.
  uint32_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return seed ^ (seed >> 15);
  };
  for (int prog = 0; prog < 200; ++prog) {
    std::vector<uint32_t> words(64);
    for (auto& w : words) w = next();
    for (Config cfg : {Config::kPulp, Config::kNoPulp}) {
      std::vector<std::pair<int, uint32_t>> regs;
      for (int r = 1; r < 32; ++r) regs.push_back({r, (r & 1) ? next() : (next() & 0x3ffffc)});
      ProgramRun run = RunProgram(words, regs, cfg, 20000);
      EXPECT_TRUE(run.result.reason == StopReason::kExit ||
                  run.result.reason == StopReason::kUnhandledTrap ||
                  run.result.reason == StopReason::kMaxCycles);
    }
  }
}

TEST(Timing, DividerLatencyDependsOnDivisor) {
  EXPECT_EQ(DivCycles(0, false), 35u);
  EXPECT_EQ(DivCycles(1, false), 34u);
  EXPECT_EQ(DivCycles(10, false), 31u);
  EXPECT_EQ(DivCycles(0x80000000u, false), 3u);
  EXPECT_EQ(DivCycles(0xffffffffu, true), 34u);
  EXPECT_EQ(DivCycles(static_cast<uint32_t>(-256), true), 26u);
  EXPECT_EQ(DivCycles(0x80000000u, true), 3u);
}

}  // namespace
}  // namespace etmcu::sim::test
