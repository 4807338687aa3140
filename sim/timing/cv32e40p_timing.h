// Cycle model of the CV32E40P pipeline (rules of shared/cv32e40p-ref/REFERENCE.md), driven by
// retire events. Tracks c = the cycle each instruction leaves ID; everything is inline, no
// virtuals.
#pragma once

#include <algorithm>
#include <cstdint>

#include "isa/isa.h"

namespace etmcu::sim {

// Divider occupancy: depends only on the divisor.
inline uint32_t DivCycles(uint32_t b, bool is_signed) {
  if (is_signed && static_cast<int32_t>(b) < 0) {
    const uint32_t nb = ~b;
    return 2 + (nb ? static_cast<uint32_t>(__builtin_clz(nb)) : 32u);
  }
  return 3 + (b ? static_cast<uint32_t>(__builtin_clz(b)) : 32u);
}

class Cv32e40pTiming {
 public:
  static constexpr uint8_t kNoReg = 0xff;

  void reset() { *this = Cv32e40pTiming(); }

  // Cycle in which the instruction d at pc leaves ID (without committing anything).
  uint64_t issue_cycle(const Decoded& d, uint32_t pc) const {
    uint64_t fetch = fetch_ready_;
    if (refetch_ && !(d.flags & kFlagCompressed) && (pc & 2)) {
      fetch += 1 + (rd_eq_rs1_hidden_ ? 1 : 0);  // misaligned 32-bit target
    }
    uint64_t c = std::max(next_min_, fetch);
    if (ld_rd_ != kNoReg &&
        (((d.src_mask >> ld_rd_) & 1) || ((d.flags & kFlagWritesAlu) && d.rd == ld_rd_))) {
      c = std::max(c, ld_done_ + 1);  // load-use or load WAW: +1
    }
    return c;
  }

  // Single-issue instruction (ALU, mul/mulh, CSR of the 1-cycle class, hwloop setup, ...).
  void retire_simple(const Decoded& d, uint64_t c) {
    retire_occ(d, c, d.cls == Cls::kMulh ? 5 : 1);
  }
  // div/rem: EX occupancy depends only on the divisor.
  void retire_div(const Decoded& d, uint64_t c, uint32_t divisor) {
    retire_occ(d, c, DivCycles(divisor, d.cls == Cls::kDiv));
  }
  void retire_store(const Decoded& d, uint64_t c, uint32_t addr, uint32_t size) {
    retire_occ(d, c, AccessCycles(addr, size));
  }
  // ptr_rd: register updated by a post-increment (ALU port), kNoReg otherwise.
  void retire_load(const Decoded& d, uint64_t c, uint32_t addr, uint32_t size, uint8_t ptr_rd) {
    const uint32_t occ = AccessCycles(addr, size);
    commit(c, occ);
    ld2_rd_ = ld_rd_;
    ld2_done_ = ld_done_;
    ld_rd_ = d.rd;
    ld_done_ = c + occ;
    prod_rd_ = ptr_rd;
    prod_done_ = c + occ;
  }
  // Taken branch: resolved in EX, target in ID 3 cycles after the branch left ID.
  void retire_branch_taken(uint64_t c) {
    commit(c, 1);
    redirect(c + 3, true);
  }
  // jal / jalr: performed in ID as soon as there is no jr stall; overlaps a busy EX stage.
  void retire_jump(const Decoded& d, uint64_t c, uint32_t pc, bool is_jalr) {
    uint64_t fetch = fetch_ready_;
    if (refetch_ && !(d.flags & kFlagCompressed) && (pc & 2))
      fetch += 1 + (rd_eq_rs1_hidden_ ? 1 : 0);
    uint64_t t = std::max(last_c_ + 1, fetch);  // first ID cycle of the jump
    if (is_jalr && d.rs1 != 0) {
      if (prod_rd_ == d.rs1) t = std::max(t, prod_done_ + 1);
      if (ld_rd_ == d.rs1) t = std::max(t, ld_done_ + 2);
      if (ld2_rd_ == d.rs1) t = std::max(t, ld2_done_ + 2);
    }
    uint64_t target = std::max(t + 2, c + 1);
    // jalr rd == rs1: +1, hidden when the target was already fetched while the jalr waited,
    // unless the target is a misaligned 32-bit instruction (t16 b_mulh_jalr_rd_eq_rs1_misal).
    const bool rd_eq_rs1 = is_jalr && d.rd == d.rs1 && d.rd != 0;
    const bool hidden = rd_eq_rs1 && target <= c + 1;
    if (rd_eq_rs1 && !hidden) ++target;
    commit(c, 1);
    redirect(target, true);
    rd_eq_rs1_hidden_ = hidden;
    prod_rd_ = d.rd != 0 ? d.rd : kNoReg;
    prod_done_ = c + 1;
  }
  // Status/counter CSRs: 4 cycles, flush without re-fetch.
  void retire_slow_csr(const Decoded& d, uint64_t c) {
    commit(c, 1);
    redirect(c + 4, false);
    prod_rd_ = (d.flags & kFlagWritesAlu) ? d.rd : kNoReg;
    prod_done_ = c + 1;
  }
  void retire_fence(uint64_t c) {
    commit(c, 1);
    redirect(c + 4, true);
  }
  void retire_mret(uint64_t c) {
    commit(c, 1);
    redirect(c + 5, true);
  }
  // ecall/ebreak/illegal instruction: first handler instruction 4 cycles later.
  void retire_trap(uint64_t c) {
    commit(c, 1);
    redirect(c + 4, true);
  }

  uint64_t last_cycle() const { return last_c_; }

  // Testbench CYCLES for an instruction (the exit store) leaving ID at c, the first instruction
  // being at c = 0: reset-to-fetch latency plus the store reaching the bus (REFERENCE.md).
  static uint64_t testbench_cycles(uint64_t c) { return c + 6; }

 private:
  // A word access at offset 1-3 or a halfword crossing a word takes two bus transactions.
  static uint32_t AccessCycles(uint32_t addr, uint32_t size) {
    return ((addr & 3) + size > 4) ? 2 : 1;
  }
  void retire_occ(const Decoded& d, uint64_t c, uint32_t occ) {
    commit(c, occ);
    shift_loads();
    prod_rd_ = (d.flags & kFlagWritesAlu) ? d.rd : kNoReg;
    prod_done_ = c + occ;
  }
  void commit(uint64_t c, uint32_t occ) {
    last_c_ = c;
    next_min_ = c + occ;
    refetch_ = false;
    rd_eq_rs1_hidden_ = false;
    fetch_ready_ = 0;
  }
  void shift_loads() {
    ld2_rd_ = ld_rd_;
    ld2_done_ = ld_done_;
    ld_rd_ = kNoReg;
  }
  void redirect(uint64_t target, bool refetch) {
    fetch_ready_ = target;
    refetch_ = refetch;
    ld_rd_ = kNoReg;
    ld2_rd_ = kNoReg;
    prod_rd_ = kNoReg;
  }

  uint64_t last_c_ = 0;            // c of the previous instruction
  uint64_t next_min_ = 0;          // earliest c of the next instruction (EX occupancy)
  uint64_t fetch_ready_ = 0;       // earliest c after a redirect
  bool refetch_ = false;           // next instruction is a fetched target (+1 if misaligned 32-bit)
  bool rd_eq_rs1_hidden_ = false;  // a jalr rd==rs1 penalty that only shows on a misaligned target
  uint8_t ld_rd_ = kNoReg;         // rd of the immediately preceding load
  uint8_t ld2_rd_ = kNoReg;        // rd of a load two instructions back
  uint8_t prod_rd_ = kNoReg;       // rd of the preceding non-load producer (jalr dependency)
  uint64_t ld_done_ = 0, ld2_done_ = 0, prod_done_ = 0;
};

}  // namespace etmcu::sim
