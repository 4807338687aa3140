// Xpulp semantics with hand-computed expected values (hardware loops, post-increment memory
// ops, bit manipulation, MAC, packed SIMD) and the illegal-instruction behaviour without PULP.
#include <gtest/gtest.h>
#include <string.h>

#include "test_util.h"

namespace etmcu::sim::test {
namespace {

// Runs one instruction with x10 = a, x11 = b, x12 = rd_in; returns x12.
uint32_t One(uint32_t insn, uint32_t a, uint32_t b, uint32_t rd_in = 0) {
  ProgramRun r = RunProgram({insn, kEcall}, {{10, a}, {11, b}, {12, rd_in}});
  EXPECT_EQ(r.result.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(r.result.trap.cause, 11u) << r.result.message;
  return r.sim->reg(12);
}

TEST(Xpulp, GeneralAlu) {
  EXPECT_EQ(One(CvAlu(0x28, 12, 10, 0), static_cast<uint32_t>(-7), 0), 7u);  // cv.abs
  EXPECT_EQ(One(CvAlu(0x2b, 12, 10, 11), static_cast<uint32_t>(-3), 2),
            static_cast<uint32_t>(-3));                                       // min
  EXPECT_EQ(One(CvAlu(0x2c, 12, 10, 11), static_cast<uint32_t>(-3), 2), 2u);  // minu
  EXPECT_EQ(One(CvAlu(0x2d, 12, 10, 11), static_cast<uint32_t>(-3), 2), 2u);  // max
  EXPECT_EQ(One(CvAlu(0x29, 12, 10, 11), 5, 5), 1u);                          // sle
  EXPECT_EQ(One(CvAlu(0x30, 12, 10, 0), 0x00018000, 0), 0xffff8000u);         // exths
  EXPECT_EQ(One(CvAlu(0x33, 12, 10, 0), 0x12345681, 0), 0x81u);               // extbz
  EXPECT_EQ(One(CvAlu(0x38, 12, 10, 8), 300, 0), 127u);                       // clip 8
  EXPECT_EQ(One(CvAlu(0x38, 12, 10, 8), static_cast<uint32_t>(-300), 0),
            static_cast<uint32_t>(-128));
  EXPECT_EQ(One(CvAlu(0x39, 12, 10, 8), static_cast<uint32_t>(-5), 0), 0u);      // clipu 8
  EXPECT_EQ(One(CvAlu(0x3a, 12, 10, 11), 1000, 99), 99u);                        // clipr
  EXPECT_EQ(One(CvAlu(0x48, 12, 10, 11), 3, 4, 10), 22u);                        // cv.mac
  EXPECT_EQ(One(CvAlu(0x49, 12, 10, 11), 3, 4, 10), static_cast<uint32_t>(-2));  // cv.msu
  EXPECT_EQ(One(CvAlu(0x40, 12, 10, 11), 4, 3, 20), 3u);                         // addNr
}

TEST(Xpulp, BitManipulation) {
  EXPECT_EQ(One(CvAlu(0x21, 12, 10, 0), 0x100, 0), 8u);                            // ff1
  EXPECT_EQ(One(CvAlu(0x21, 12, 10, 0), 0, 0), 32u);                               // ff1(0)
  EXPECT_EQ(One(CvAlu(0x22, 12, 10, 0), 0x00f00000, 0), 23u);                      // fl1
  EXPECT_EQ(One(CvAlu(0x23, 12, 10, 0), 0x0000ffff, 0), 15u);                      // clb
  EXPECT_EQ(One(CvAlu(0x23, 12, 10, 0), 0, 0), 0u);                                // clb(0)
  EXPECT_EQ(One(CvAlu(0x24, 12, 10, 0), 0xf0f0, 0), 8u);                           // cnt
  EXPECT_EQ(One(CvAlu(0x20, 12, 10, 11), 1, 1), 0x80000000u);                      // ror
  EXPECT_EQ(One(Cv5b(0, 0, 7, 12, 10, 4), 0x00000f80, 0), 0xfffffff8u);            // extract 7,4
  EXPECT_EQ(One(Cv5b(0, 1, 7, 12, 10, 4), 0x00000f80, 0), 0xf8u);                  // extractu 7,4
  EXPECT_EQ(One(Cv5b(0, 2, 3, 12, 10, 8), 0xf, 0, 0xffff0000u), 0xffff0f00u);      // insert 3,8
  EXPECT_EQ(One(Cv5b(1, 1, 2, 12, 10, 29), 0, 0), 0xe0000000u);                    // bset 2,29
  EXPECT_EQ(One(Cv5b(1, 0, 5, 12, 10, 3), 0xffffffff, 0), 0xfffffe07u);            // bclr 5,3
  EXPECT_EQ(One(CvAlu(0x18, 12, 10, 11), 0x00000f80, (7 << 5) | 4), 0xfffffff8u);  // extractr
  // cv.bitrev (RTL behaviour: reverse (rs1 << Is2) in radix-2/4/8 digits)
  EXPECT_EQ(One(Cv5b(1, 3, 0, 12, 10, 0), 0x00000001, 0), 0x80000000u);   // radix 2, Is2 0
  EXPECT_EQ(One(Cv5b(1, 3, 0, 12, 10, 24), 0x00000001, 0), 0x00000080u);  // radix 2, Is2 24
  EXPECT_EQ(One(Cv5b(1, 3, 1, 12, 10, 0), 0x00000001, 0), 0x40000000u);   // radix 4
  EXPECT_EQ(One(Cv5b(1, 3, 2, 12, 10, 0), 0xc0000000, 0),
            0x00000006u);  // radix 8: bits 31:29 = 110
}

TEST(Xpulp, ShiftedArithmeticAndMul16) {
  EXPECT_EQ(One(Cv5b(2, 0, 3, 12, 10, 11), 20, 4), 3u);                        // addN 3
  EXPECT_EQ(One(Cv5b(2, 2, 3, 12, 10, 11), 20, 5), 3u);                        // addRN 3: 29>>3
  EXPECT_EQ(One(Cv5b(3, 0, 2, 12, 10, 11), 0, 8), static_cast<uint32_t>(-2));  // subN 2
  EXPECT_EQ(One(Cv5b(4, 0, 0, 12, 10, 11), 0xffff, 3), static_cast<uint32_t>(-3));  // mulsN
  EXPECT_EQ(One(Cv5b(5, 1, 1, 12, 10, 11), 0x00040000, 0x00060000), 12u);           // mulhhuN 1
  EXPECT_EQ(One(Cv5b(6, 0, 0, 12, 10, 11), 2, 3, 100), 106u);                       // macsN 0
}

TEST(Xpulp, Simd) {
  EXPECT_EQ(One(CvSimd(0x00, 0, 12, 10, 11), 0x00010002, 0x0003ffff), 0x00040001u);  // add.h
  EXPECT_EQ(One(CvSimd(0x01, 1, 12, 10, 11), 0x01020304, 0x01010101), 0x00010203u);  // sub.b
  EXPECT_EQ(One(CvSimd(0x00, 4, 12, 10, 11), 0x00010002, 0x00000003), 0x00040005u);  // add.sc.h
  EXPECT_EQ(One(CvSimdI(0x00, 6, 12, 10, 0x3f), 0x00010001, 0), 0u);                 // add.sci.h -1
  EXPECT_EQ(One(CvSimd(0x12, 1, 12, 10, 11), 0x01ff0203, 0x02030405), 22u);          // dotsp.b
  EXPECT_EQ(One(CvSimd(0x13, 0, 12, 10, 11), 0x00020003, 0x00040005, 100), 123u);    // sdotup.h
  EXPECT_EQ(One(CvSimd(0x10, 1, 12, 10, 11), 0xff000001, 0x02000003), 513u);         // dotup.b
  EXPECT_EQ(One(CvSimd(0x02, 0, 12, 10, 11, 1), 0x0001ffff, 0), 0xffff0000u);        // cmpgt.h
  EXPECT_EQ(One(CvSimd(0x0e, 1, 12, 10, 0), 0x80ff7f01, 0), 0x80017f01u);            // abs.b
  EXPECT_EQ(One(CvSimd(0x18, 1, 12, 10, 11), 0x44332211, 0x00010203), 0x11223344u);  // shuffle.b
  EXPECT_EQ(One(CvSimd(0x18, 0, 12, 10, 11), 0x22221111, 0x00000001), 0x11112222u);  // shuffle.h
  EXPECT_EQ(One(CvSimd(0x1e, 0, 12, 10, 11), 0x1234abcd, 0x5678ef01), 0xabcdef01u);  // pack
  EXPECT_EQ(One(R(0x7b, 1, (0x17 << 2), 12, 10, 1), 0x80ff7f01, 0), 0xffffffffu);    // extract.b 2
  EXPECT_EQ(One(R(0x7b, 2, (0x17 << 2) | 1, 12, 10, 0), 0x80ff7f01, 0), 0x80ffu);    // extractu.h 1
  EXPECT_EQ(One(R(0x7b, 5, (0x17 << 2) | 1, 12, 10, 0), 0x55, 0, 0xaaaaaaaa),
            0xaaaa55aau);  // insert.b 1
  // insert.b 2: the lane's high bit in the rs2 field (isa/xpulp/depthwise_rows.S TAPS)
  EXPECT_EQ(One(R(0x7b, 5, (0x17 << 2), 12, 10, 1), 0x55, 0, 0xaaaaaaaa), 0xaa55aaaau);
  // shuffle2.b: lane i from rs1 when bit 2 of selector byte i is set, else from the old rd; the
  // depthwise quads' selector 0x05040302 gives rd's bytes 2, 3 then rs1's bytes 0, 1
  EXPECT_EQ(One(CvSimd(0x1c, 1, 12, 10, 11), 0xa3a2a1a0, 0x05040302, 0xb3b2b1b0), 0xa1a0b3b2u);
  EXPECT_EQ(One(CvSimd(0x08, 0, 12, 10, 11), 0x80008000, 0x00040004), 0x08000800u);  // srl.h
  EXPECT_EQ(One(CvSimd(0x09, 0, 12, 10, 11), 0x80008000, 0x00040004), 0xf800f800u);  // sra.h
}

TEST(Xpulp, ComplexAndHalfDiv) {
  // cplxmul.r: (0.5 + 0.5i) * (0.5 - 0.5i) in Q15: re = (0x4000*0x4000 - 0x4000*(-0x4000)) >> 15
  EXPECT_EQ(One(CvSimd(0x0a, 0, 12, 10, 11, 1), 0x40004000, 0xc0004000, 0xabcd0000), 0xabcd4000u);
  // cplxmul.i: im = (0x4000*(-0x4000) + 0x4000*0x4000) >> 15 = 0, low half of rd kept
  EXPECT_EQ(One(R(0x7b, 0, (0x0a << 2) | 3, 12, 10, 11), 0x40004000, 0xc0004000, 0x1234), 0x1234u);
  EXPECT_EQ(One(CvSimd(0x0b, 0, 12, 10, 0, 1), 0x00050007, 0), 0xfffb0007u);  // cplxconj
  // add.div2: ((0x7fff + 1) & 0xffff) >>> 1 = 0xc000 ; (2 + 4) >> 1 = 3
  EXPECT_EQ(One(CvSimd(0x0d, 2, 12, 10, 11, 1), 0x00027fff, 0x00040001), 0x0003c000u);
  // sub.div4: (8 - 4) >> 2 = 1 ; (0 - 8) >>> 2 = -2
  EXPECT_EQ(One(CvSimd(0x0e, 4, 12, 10, 11, 1), 0x00000008, 0x00080004), 0xfffe0001u);
  // subrotmj: rd[1] = b[0] - a[0] = 5 - 2 = 3 ; rd[0] = a[1] - b[1] = 9 - 4 = 5
  EXPECT_EQ(One(CvSimd(0x0c, 0, 12, 10, 11, 1), 0x00090002, 0x00040005), 0x00030005u);
}

TEST(Xpulp, HardwareLoop) {
  // cv.setupi L0, 5, end ; 3 x addi x5,x5,1 ; end: ecall
  const uint32_t setupi = (5u << 20) | (4u << 15) | (4u << 12) | (12u << 7) | 0x2b;
  ProgramRun r = RunProgram({setupi, Addi(5, 5, 1), Addi(5, 5, 1), Addi(5, 5, 1), kEcall});
  EXPECT_EQ(r.result.trap.cause, 11u);
  EXPECT_EQ(r.sim->reg(5), 15u);
  EXPECT_EQ(r.result.instret, 1u + 15u);
}

TEST(Xpulp, HardwareLoopSetupOffAWordTraps) {
  // c.nop, then the loop of HardwareLoop at a half-word address: its start and end would not be
  // words, which the core's loop registers cannot hold; an illegal instruction at that address.
  const uint32_t setupi = (5u << 20) | (4u << 15) | (4u << 12) | (12u << 7) | 0x2b;
  const uint32_t insns[] = {setupi, Addi(5, 5, 1), Addi(5, 5, 1), Addi(5, 5, 1), kEcall};
  uint8_t bytes[2 + sizeof(insns)] = {0x01, 0x00};  // c.nop
  memcpy(bytes + 2, insns, sizeof(insns));
  SimOptions opt;
  Sim sim(opt);
  ASSERT_TRUE(sim.write_memory(kBootAddr, bytes, sizeof(bytes)));
  const RunResult r = sim.run();
  EXPECT_EQ(r.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(r.trap.cause, 2u) << r.message;
  EXPECT_EQ(r.trap.pc, kBootAddr + 2);
  EXPECT_EQ(sim.reg(5), 0u);
}

TEST(Xpulp, PostIncrementAndRegisterOffset) {
  const uint32_t word = 0xdeadbeef;
  SimOptions opt;
  Sim sim(opt);
  ASSERT_TRUE(sim.write_memory(0x1000, &word, 4));
  const std::vector<uint32_t> prog = {
      I(0x0b, 2, 6, 7, 4),         // cv.lw x6, (x7), 4
      S(0x2b, 2, 8, 6, -4),        // cv.sw x6, (x8), -4
      R(0x2b, 3, 0x0c, 9, 7, 11),  // cv.lbu x9, x11(x7)  (rr: 0x1004 + (-4))
      B(0x0b, 6, 9, 0x0f, 8),      // cv.beqimm x9, 15, +8  (0xef != 15: not taken)
      kEcall,
  };
  ASSERT_TRUE(sim.write_memory(kBootAddr, prog.data(), prog.size() * 4));
  sim.set_reg(7, 0x1000);
  sim.set_reg(8, 0x2000);
  sim.set_reg(11, static_cast<uint32_t>(-4));
  const RunResult r = sim.run();
  EXPECT_EQ(r.trap.cause, 11u);
  EXPECT_EQ(sim.reg(6), word);
  EXPECT_EQ(sim.reg(7), 0x1004u);
  EXPECT_EQ(sim.reg(8), 0x1ffcu);
  EXPECT_EQ(sim.reg(9), 0xefu);
  uint32_t stored = 0;
  ASSERT_TRUE(sim.read_memory(0x2000, &stored, 4));
  EXPECT_EQ(stored, word);
}

TEST(Xpulp, ImmediateBranchTaken) {
  // cv.bneimm x10, -1, +8 ; addi x5,x0,1 ; ecall
  ProgramRun r = RunProgram({B(0x0b, 7, 10, 31, 8), Addi(5, 0, 1), kEcall}, {{10, 3}});
  EXPECT_EQ(r.result.trap.cause, 11u);
  EXPECT_EQ(r.sim->reg(5), 0u);
}

TEST(Xpulp, IllegalWithoutPulp) {
  ProgramRun r = RunProgram({CvAlu(0x28, 12, 10, 0), kEcall}, {}, Config::kNoPulp);
  EXPECT_EQ(r.result.reason, StopReason::kUnhandledTrap);
  EXPECT_EQ(r.result.trap.cause, 2u);
  EXPECT_EQ(r.result.trap.pc, kBootAddr);
  EXPECT_EQ(r.result.trap.insn, CvAlu(0x28, 12, 10, 0));
}

}  // namespace
}  // namespace etmcu::sim::test
