// The simulator object: one CV32E40P hart, the core-v-verif testbench memory map (4 MiB RAM,
// console and exit devices) and the cycle model. No globals; tests and tools drive it directly.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/loader.h"
#include "isa/isa.h"
#include "timing/cv32e40p_timing.h"

namespace etmcu::sim {

constexpr uint32_t kRamSize = 4u << 20;
constexpr uint32_t kBootAddr = 0x80;
constexpr uint32_t kConsoleAddr = 0x10000000;
constexpr uint32_t kExitAddr = 0x20000004;

enum class Config { kPulp, kNoPulp };

struct SimOptions {
  Config config = Config::kPulp;
  uint64_t max_cycles = 0;  // 0 = unlimited
  bool profile = false;     // per-function cycle accounting (slower loop)
  std::string trace_path;   // per-instruction trace file (slower loop); empty = off
  FILE* echo = nullptr;     // if set, program output is also written here as it is produced
};

enum class StopReason { kExit, kUnhandledTrap, kMaxCycles, kTraceError };

struct TrapInfo {
  uint32_t pc = 0;
  uint32_t insn = 0;
  uint32_t cause = 0;
  uint32_t tval = 0;  // faulting address of an access fault (the core's mtval itself reads 0)
};

struct RunResult {
  StopReason reason = StopReason::kExit;
  int exit_code = 0;     // value stored to the exit device (kExit)
  uint64_t cycles = 0;   // testbench cycles: reset release to the exit store (+5 latency)
  uint64_t instret = 0;  // instructions retired (trapping ones excluded)
  TrapInfo trap;         // kUnhandledTrap
  std::string message;   // human-readable reason when not kExit
};

struct ProfileEntry {
  std::string function;
  uint64_t cycles = 0;
  uint64_t instructions = 0;
};

const char* trap_cause_name(uint32_t cause);

class Sim {
 public:
  explicit Sim(SimOptions options = {});
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  // Loading resets the hart. Returns an error message, empty on success.
  std::string load_file(const std::string& path);
  std::string load_image(const Image& image);
  // Raw bytes into RAM (tests). Returns false when outside RAM.
  bool write_memory(uint32_t addr, const void* data, size_t n);
  bool read_memory(uint32_t addr, void* out, size_t n) const;

  void reset();  // hart, CSRs, counters and timing; memory is kept
  RunResult run();

  uint32_t reg(int i) const { return x_[i & 31]; }
  void set_reg(int i, uint32_t v) {
    if ((i & 31) != 0) x_[i & 31] = v;
  }
  uint32_t pc() const { return pc_; }
  void set_pc(uint32_t pc) { pc_ = pc; }
  uint64_t instret() const { return instret_; }
  // Reads a CSR as the firmware would see it now (counters at the last instruction's cycle).
  // Returns false for CSRs that do not exist in this configuration.
  bool read_csr(uint32_t csr, uint32_t& value) {
    return csr_read(csr, timing_.last_cycle(), value);
  }
  uint64_t cycle() const { return timing_.last_cycle(); }
  const std::string& output() const { return output_; }
  void clear_output() { output_.clear(); }
  const std::vector<Symbol>& functions() const { return functions_; }
  std::vector<ProfileEntry> profile() const;  // sorted by cycles, descending
  const SimOptions& options() const { return options_; }

 private:
  template <bool kPulp, bool kSlow>
  RunResult run_impl();
  Decoded& predecode(uint32_t pc);
  void invalidate_code(uint32_t addr, uint32_t n);
  bool csr_read(uint32_t csr, uint64_t c, uint32_t& value);
  bool csr_write(uint32_t csr, uint64_t c, uint32_t value);
  uint64_t mcycle_value(uint64_t c) const;
  uint64_t minstret_value() const;
  bool device_store(uint32_t addr, uint32_t value, uint32_t size, RunResult& stop, uint64_t c);
  void account(uint32_t pc, uint64_t cycles);

  SimOptions options_;
  bool pulp_ = true;
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  // calloc'd: the OS hands out zero pages lazily, so a Sim is cheap to create.
  std::unique_ptr<uint8_t[], FreeDeleter> ram_;
  std::unique_ptr<Decoded[], FreeDeleter> dcache_;
  uint32_t code_lo_ = 0xffffffff, code_hi_ = 0;  // range of decoded slots (byte addresses)

  uint32_t x_[32] = {};
  uint32_t pc_ = kBootAddr;
  uint64_t instret_ = 0;
  Cv32e40pTiming timing_;

  // CSRs
  uint32_t mstatus_ = 0x1800, mtvec_ = 0, mepc_ = 0, mcause_ = 0, mscratch_ = 0;
  uint32_t mie_ = 0, mcountinhibit_ = 0xd, mhpmevent3_ = 0;
  uint64_t mhpmcounter3_ = 0;
  uint64_t mcycle_frozen_ = 0, mcycle_base_ = 0;  // mcycle = frozen + (c - base) when counting
  uint64_t minstret_frozen_ = 0, minstret_base_ = 0;
  bool in_trap_ = false;
  // hardware loops
  uint32_t lpstart_[2] = {}, lpend_[2] = {}, lpcount_[2] = {};

  std::string output_;
  std::vector<Symbol> functions_;
  // profiling
  std::vector<uint64_t> prof_cycles_, prof_insns_;
  uint64_t prof_other_cycles_ = 0, prof_other_insns_ = 0;
  size_t prof_last_ = 0;
  uint64_t prof_prev_c_ = 0;
  FILE* trace_ = nullptr;
};

}  // namespace etmcu::sim
