// ISA checks against QEMU: each firmware in tests/isa is built for the testbench map and for QEMU
// virt; results (register-value hashes) and the instret of the compute region must match.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/sim.h"

namespace etmcu::sim {
namespace {

bool FileExists(const std::string& p) { return std::ifstream(p).good(); }

bool RunQemu(const std::string& elf, std::string& out, int& status) {
  // Semihosting console output goes to stderr; QEMU's own stdout is discarded.
  const std::string cmd =
      "timeout 60 qemu-system-riscv32 -M virt -cpu rv32,a=false,f=false,d=false -bios none "
      "-nographic -semihosting-config enable=on,target=native -icount shift=0 -kernel '" +
      elf + "' 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = pclose(p);
  return true;
}

class IsaQemuTest : public ::testing::TestWithParam<const char*> {};

TEST_P(IsaQemuTest, MatchesQemu) {
  const std::string dir = ETMCU_SIM_ISA_DIR;
  const std::string name = GetParam();
  const std::string tb = dir + "/" + name + "_tb.elf", qemu = dir + "/" + name + "_qemu.elf";
  if (!FileExists(tb) || !FileExists(qemu))
    GTEST_SKIP() << "ISA firmware not built (no riscv64-unknown-elf-gcc)";
  if (std::system("command -v qemu-system-riscv32 >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "qemu-system-riscv32 not installed";

  for (Config cfg : {Config::kPulp, Config::kNoPulp}) {
    SimOptions opt;
    opt.config = cfg;
    opt.max_cycles = 20'000'000;
    Sim sim(opt);
    ASSERT_EQ(sim.load_file(tb), "");
    const RunResult r = sim.run();
    ASSERT_EQ(r.reason, StopReason::kExit) << r.message;
    EXPECT_EQ(r.exit_code, 0);

    std::string qout;
    int status = -1;
    ASSERT_TRUE(RunQemu(qemu, qout, status));
    EXPECT_EQ(status, 0) << qout;
    EXPECT_EQ(sim.output(), qout);
    EXPECT_NE(sim.output().find("instret="), std::string::npos);
  }
}

// The same firmware loaded from ELF and from `objcopy -O verilog` hex runs identically.
TEST(IsaHex, HexMatchesElf) {
  const std::string dir = ETMCU_SIM_ISA_DIR;
  if (!FileExists(dir + "/isa_ctrl_tb.hex")) GTEST_SKIP() << "hex firmware not built";
  Sim from_elf, from_hex;
  ASSERT_EQ(from_elf.load_file(dir + "/isa_ctrl_tb.elf"), "");
  ASSERT_EQ(from_hex.load_file(dir + "/isa_ctrl_tb.hex"), "");
  const RunResult a = from_elf.run(), b = from_hex.run();
  ASSERT_EQ(a.reason, StopReason::kExit);
  ASSERT_EQ(b.reason, StopReason::kExit);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.instret, b.instret);
  EXPECT_EQ(from_elf.output(), from_hex.output());
}

INSTANTIATE_TEST_SUITE_P(Rv32imc, IsaQemuTest,
                         ::testing::Values("isa_alu", "isa_mem", "isa_ctrl", "isa_csr"));

}  // namespace
}  // namespace etmcu::sim
