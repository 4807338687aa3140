// Sim: loading, CSRs, devices and the interpreter loop (pre-decoded slots, switch dispatch,
// inline cycle model). The loop is instantiated per configuration (PULP / non-PULP) and per mode
// (fast, or slow with trace/profile hooks).
#include "core/sim.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>

#include "isa/xpulp_ops.h"

namespace etmcu::sim {
namespace {

constexpr uint32_t kCauseFetchFault = 1;
constexpr uint32_t kCauseIllegal = 2;
constexpr uint32_t kCauseBreakpoint = 3;
constexpr uint32_t kCauseLoadFault = 5;
constexpr uint32_t kCauseStoreFault = 7;
constexpr uint32_t kCauseEcallM = 11;
constexpr uint32_t kNumSlots = kRamSize / 2;

inline uint32_t Sx8(uint32_t v) {
  return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v)));
}
inline uint32_t Sx16(uint32_t v) {
  return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v)));
}
inline uint32_t MulhSS(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(
      (static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b)) >> 32);
}
inline uint32_t MulhSU(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(
      (static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int64_t>(b)) >> 32);
}
inline uint32_t MulhUU(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
}
inline uint32_t Div(uint32_t a, uint32_t b) {
  if (b == 0) return ~0u;
  if (a == 0x80000000u && b == ~0u) return a;
  return static_cast<uint32_t>(static_cast<int32_t>(a) / static_cast<int32_t>(b));
}
inline uint32_t Rem(uint32_t a, uint32_t b) {
  if (b == 0) return a;
  if (a == 0x80000000u && b == ~0u) return 0;
  return static_cast<uint32_t>(static_cast<int32_t>(a) % static_cast<int32_t>(b));
}

}  // namespace

const char* trap_cause_name(uint32_t cause) {
  switch (cause) {
    case 0:
      return "instruction address misaligned";
    case kCauseFetchFault:
      return "instruction access fault";
    case kCauseIllegal:
      return "illegal instruction";
    case kCauseBreakpoint:
      return "breakpoint";
    case kCauseLoadFault:
      return "load access fault";
    case kCauseStoreFault:
      return "store access fault";
    case kCauseEcallM:
      return "environment call from M-mode";
    default:
      return "unknown";
  }
}

Sim::Sim(SimOptions options)
    : options_(std::move(options)),
      pulp_(options_.config == Config::kPulp),
      ram_(static_cast<uint8_t*>(std::calloc(kRamSize, 1))),
      dcache_(static_cast<Decoded*>(std::calloc(kNumSlots, sizeof(Decoded)))) {
  static_assert(std::is_trivially_copyable_v<Decoded>, "Decoded must be memcpy/calloc-able");
  if (!ram_ || !dcache_) throw std::bad_alloc();
  reset();
}

Sim::~Sim() {
  if (trace_) std::fclose(trace_);
}

void Sim::reset() {
  std::memset(x_, 0, sizeof(x_));
  pc_ = kBootAddr;
  instret_ = 0;
  timing_.reset();
  mstatus_ = 0x1800;
  mtvec_ = 0;
  mepc_ = mcause_ = mscratch_ = mie_ = mhpmevent3_ = 0;
  mcountinhibit_ = 0xd;
  mhpmcounter3_ = 0;
  mcycle_frozen_ = mcycle_base_ = minstret_frozen_ = minstret_base_ = 0;
  in_trap_ = false;
  for (int i = 0; i < 2; ++i) lpstart_[i] = lpend_[i] = lpcount_[i] = 0;
  output_.clear();
  prof_cycles_.assign(functions_.size(), 0);
  prof_insns_.assign(functions_.size(), 0);
  prof_other_cycles_ = prof_other_insns_ = 0;
  prof_last_ = 0;
  prof_prev_c_ = 0;
  if (code_hi_ > code_lo_) invalidate_code(code_lo_, code_hi_ - code_lo_);
  code_lo_ = 0xffffffff;
  code_hi_ = 0;
}

std::string Sim::load_file(const std::string& path) {
  LoadResult r = load_firmware_file(path);
  if (!r.ok) return r.error;
  return load_image(r.image);
}

std::string Sim::load_image(const Image& image) {
  for (const Segment& s : image.segments) {
    if (s.addr >= kRamSize || s.bytes.size() > kRamSize - s.addr) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "segment at 0x%08x (+%zu bytes) lies outside RAM [0, 0x%x)",
                    s.addr, s.bytes.size(), kRamSize);
      return buf;
    }
  }
  std::memset(ram_.get(), 0, kRamSize);
  for (const Segment& s : image.segments)
    std::memcpy(ram_.get() + s.addr, s.bytes.data(), s.bytes.size());
  functions_ = image.functions;
  reset();
  return {};
}

bool Sim::write_memory(uint32_t addr, const void* data, size_t n) {
  if (addr >= kRamSize || n > kRamSize - addr) return false;
  std::memcpy(ram_.get() + addr, data, n);
  invalidate_code(addr, static_cast<uint32_t>(n));
  return true;
}

bool Sim::read_memory(uint32_t addr, void* out, size_t n) const {
  if (addr >= kRamSize || n > kRamSize - addr) return false;
  std::memcpy(out, ram_.get() + addr, n);
  return true;
}

void Sim::invalidate_code(uint32_t addr, uint32_t n) {
  uint32_t lo = addr >= 2 ? addr - 2 : 0;
  uint64_t hi = static_cast<uint64_t>(addr) + n;
  if (hi > kRamSize) hi = kRamSize;
  for (uint32_t a = lo & ~1u; a < hi; a += 2) dcache_[a >> 1].op = Op::kInvalid;
}

Decoded& Sim::predecode(uint32_t pc) {
  uint32_t word = 0;
  const uint32_t avail = kRamSize - pc;
  std::memcpy(&word, ram_.get() + pc, avail >= 4 ? 4 : avail);
  // A 32-bit instruction straddling the end of RAM reads its missing upper half as zero.
  Decoded& d = dcache_[pc >> 1];
  d = decode(word, pulp_);
  code_lo_ = std::min(code_lo_, pc);
  code_hi_ = std::max(code_hi_, pc + 4);
  return d;
}

uint64_t Sim::mcycle_value(uint64_t c) const {
  if (mcountinhibit_ & 1) return mcycle_frozen_;
  return mcycle_frozen_ + (c - mcycle_base_);
}
uint64_t Sim::minstret_value() const {
  if (mcountinhibit_ & 4) return minstret_frozen_;
  return minstret_frozen_ + (instret_ - minstret_base_);
}

bool Sim::csr_read(uint32_t csr, uint64_t c, uint32_t& v) {
  const uint64_t cyc = (mcountinhibit_ & 1) ? mcycle_frozen_ : mcycle_frozen_ + (c - mcycle_base_);
  const uint64_t ins =
      (mcountinhibit_ & 4) ? minstret_frozen_ : minstret_frozen_ + (instret_ - minstret_base_);
  switch (csr) {
    case 0x300:
      v = mstatus_;
      return true;
    case 0x301:
      v = pulp_ ? 0x40801104u : 0x40001104u;
      return true;
    case 0x304:
      v = mie_;
      return true;
    case 0x305:
      v = mtvec_;
      return true;
    case 0x320:
      v = mcountinhibit_;
      return true;
    case 0x323:
      v = mhpmevent3_;
      return true;
    case 0x340:
      v = mscratch_;
      return true;
    case 0x341:
      v = mepc_;
      return true;
    case 0x342:
      v = mcause_;
      return true;
    case 0x343:  // mtval: read-only zero on CV32E40P
      v = 0;
      return true;
    case 0x7A0:  // tselect: a single trigger
    case 0x7A2:  // tdata2 (writable from debug mode only)
    case 0x7A3:  // tdata3
    case 0x7A8:  // mcontext
    case 0x7AA:  // scontext
      v = 0;
      return true;
    case 0x7A1:  // tdata1: address-match trigger, debug-mode writable only
      v = 0x28001040u;
      return true;
    case 0x7A4:  // tinfo: only type 2
      v = 4;
      return true;
    case 0x344:
      v = 0;
      return true;
    case 0xB00:
    case 0xC00:
      v = static_cast<uint32_t>(cyc);
      return true;
    case 0xB80:
    case 0xC80:
      v = static_cast<uint32_t>(cyc >> 32);
      return true;
    case 0xB02:
    case 0xC02:
      v = static_cast<uint32_t>(ins);
      return true;
    case 0xB82:
    case 0xC82:
      v = static_cast<uint32_t>(ins >> 32);
      return true;
    case 0xB03:
    case 0xC03:
      v = static_cast<uint32_t>(mhpmcounter3_);
      return true;
    case 0xB83:
    case 0xC83:
      v = static_cast<uint32_t>(mhpmcounter3_ >> 32);
      return true;
    case 0xF11:
      v = 0x602;
      return true;
    case 0xF12:
      v = 4;
      return true;
    case 0xF13:
      v = pulp_ ? 1 : 0;
      return true;
    case 0xF14:
      v = 0;
      return true;
    default:
      break;
  }
  if ((csr >= 0x324 && csr <= 0x33F) || (csr >= 0xB04 && csr <= 0xB1F) ||
      (csr >= 0xB84 && csr <= 0xB9F) || (csr >= 0xC04 && csr <= 0xC1F) ||
      (csr >= 0xC84 && csr <= 0xC9F)) {
    v = 0;
    return true;
  }
  if (pulp_) {
    switch (csr) {
      case 0xCC0:
        v = lpstart_[0];
        return true;
      case 0xCC1:
        v = lpend_[0];
        return true;
      case 0xCC2:
        v = lpcount_[0];
        return true;
      case 0xCC4:
        v = lpstart_[1];
        return true;
      case 0xCC5:
        v = lpend_[1];
        return true;
      case 0xCC6:
        v = lpcount_[1];
        return true;
      default:
        break;
    }
  }
  return false;
}

bool Sim::csr_write(uint32_t csr, uint64_t c, uint32_t v) {
  switch (csr) {
    case 0x300:
      mstatus_ = (v & 0x88) | 0x1800;
      return true;
    case 0x301:
      return true;  // misa: writes ignored
    case 0x304:
      mie_ = v & 0xffff0888u;
      return true;
    case 0x305:
      mtvec_ = (v & 0xffffff00u) | (v & 1);
      return true;
    case 0x320: {
      const uint32_t nv = v & 0xd;
      const uint64_t cyc = mcycle_value(c), ins = minstret_value();
      if ((mcountinhibit_ & 1) && !(nv & 1)) mcycle_base_ = c - 4;
      if (!(mcountinhibit_ & 1) && (nv & 1)) mcycle_frozen_ = cyc;
      if ((mcountinhibit_ & 4) && !(nv & 4)) minstret_base_ = instret_;
      if (!(mcountinhibit_ & 4) && (nv & 4)) minstret_frozen_ = ins;
      mcountinhibit_ = nv;
      return true;
    }
    case 0x323:
      mhpmevent3_ = v;
      return true;
    case 0x340:
      mscratch_ = v;
      return true;
    case 0x341:
      mepc_ = v & ~1u;
      return true;
    case 0x342:
      mcause_ = v & 0x8000001fu;
      return true;
    case 0x343:  // mtval: writes ignored
    case 0x7A0:
    case 0x7A1:
    case 0x7A2:
    case 0x7A3:
    case 0x7A8:
    case 0x7AA:
      return true;  // trigger CSRs: writes from M-mode ignored (dmode = 1)
    case 0x344:
      return true;
    case 0xB00:
    case 0xB80: {
      const uint64_t cur = mcycle_value(c);
      mcycle_frozen_ = csr == 0xB00 ? (cur & ~0xffffffffull) | v
                                    : (static_cast<uint64_t>(v) << 32) | (cur & 0xffffffffu);
      mcycle_base_ = c;
      return true;
    }
    case 0xB02:
    case 0xB82: {
      const uint64_t cur = minstret_value();
      minstret_frozen_ = csr == 0xB02 ? (cur & ~0xffffffffull) | v
                                      : (static_cast<uint64_t>(v) << 32) | (cur & 0xffffffffu);
      minstret_base_ = instret_ + 1;
    }
      return true;
    case 0xB03:
      mhpmcounter3_ = (mhpmcounter3_ & ~0xffffffffull) | v;
      return true;
    case 0xB83:
      mhpmcounter3_ = (mhpmcounter3_ & 0xffffffffull) | (static_cast<uint64_t>(v) << 32);
      return true;
    default:
      break;
  }
  if ((csr >= 0x324 && csr <= 0x33F) || (csr >= 0xB04 && csr <= 0xB1F) ||
      (csr >= 0xB84 && csr <= 0xB9F))
    return true;
  return false;  // read-only or unknown: illegal instruction
}

bool Sim::device_store(uint32_t addr, uint32_t value, uint32_t size, RunResult& stop, uint64_t c) {
  if (addr == kConsoleAddr) {
    const char ch = static_cast<char>(value & 0xff);
    output_.push_back(ch);
    if (options_.echo) std::fputc(ch, options_.echo);
    return true;
  }
  if (addr == kExitAddr && size == 4) {
    stop.reason = StopReason::kExit;
    stop.exit_code = static_cast<int>(value);
    stop.cycles = Cv32e40pTiming::testbench_cycles(c);
    return true;
  }
  return false;
}

void Sim::account(uint32_t pc, uint64_t cycles) {
  const auto& f = functions_;
  size_t idx = prof_last_;
  auto inside = [&](size_t i) {
    return i < f.size() && pc >= f[i].addr &&
           (pc < f[i].addr + std::max<uint32_t>(f[i].size, 2) ||
            (f[i].size == 0 && (i + 1 == f.size() || pc < f[i + 1].addr)));
  };
  if (!inside(idx)) {
    auto it = std::upper_bound(f.begin(), f.end(), pc,
                               [](uint32_t p, const Symbol& s) { return p < s.addr; });
    idx = it == f.begin() ? f.size() : static_cast<size_t>(it - f.begin()) - 1;
    if (idx < f.size() && !inside(idx)) idx = f.size();
  }
  if (idx < f.size()) {
    prof_last_ = idx;
    prof_cycles_[idx] += cycles;
    prof_insns_[idx] += 1;
  } else {
    prof_other_cycles_ += cycles;
    prof_other_insns_ += 1;
  }
}

std::vector<ProfileEntry> Sim::profile() const {
  std::vector<ProfileEntry> out;
  for (size_t i = 0; i < functions_.size() && i < prof_cycles_.size(); ++i)
    if (prof_insns_[i]) out.push_back({functions_[i].name, prof_cycles_[i], prof_insns_[i]});
  if (prof_other_insns_) out.push_back({"<unknown>", prof_other_cycles_, prof_other_insns_});
  std::sort(out.begin(), out.end(), [](const ProfileEntry& a, const ProfileEntry& b) {
    return a.cycles != b.cycles ? a.cycles > b.cycles : a.function < b.function;
  });
  return out;
}

RunResult Sim::run() {
  const bool slow = options_.profile || !options_.trace_path.empty();
  if (!options_.trace_path.empty() && !trace_) {
    trace_ = std::fopen(options_.trace_path.c_str(), "w");
    if (!trace_) {
      RunResult r;
      r.reason = StopReason::kTraceError;
      r.message = "cannot open trace file " + options_.trace_path;
      return r;
    }
  }
  if (prof_cycles_.size() != functions_.size()) {
    prof_cycles_.assign(functions_.size(), 0);
    prof_insns_.assign(functions_.size(), 0);
  }
  RunResult r;
  if (pulp_) {
    r = slow ? run_impl<true, true>() : run_impl<true, false>();
  } else {
    r = slow ? run_impl<false, true>() : run_impl<false, false>();
  }
  if (trace_) std::fflush(trace_);
  return r;
}

}  // namespace etmcu::sim

#include "core/sim_loop.inc"
