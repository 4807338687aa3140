// etmcu-sim: command-line front end of the CV32E40P simulator (run firmware, print its output,
// the final cycle/instret line, optional trace and per-function profile).
#include <cxxabi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/sim.h"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitTrap = 3;
constexpr int kExitMaxCycles = 124;

// "_ZN5etmcu7kernels3fooEv" -> "etmcu::kernels::foo()"; C names and unknown forms unchanged.
std::string demangle(const std::string& name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string result(out);
  std::free(out);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  using etmcu::sim::Config;
  CLI::App app{"etmcu-sim: CV32E40P instruction-set simulator with a cycle-exact timing model"};
  std::string firmware, config = "pulp", trace;
  std::vector<std::string> loads;
  uint64_t max_cycles = 0;
  bool profile = false;
  bool mangled = false;
  app.add_option("firmware", firmware, "ELF32 or Verilog hex (objcopy -O verilog) firmware")
      ->required();
  app.add_option("--config", config, "core configuration: pulp (COREV_PULP=1) or nopulp")
      ->check(CLI::IsMember({"pulp", "nopulp"}));
  app.add_option("--max-cycles", max_cycles, "stop after N cycles (exit code 124); 0 = no limit");
  app.add_option("--trace", trace, "write one line per executed instruction to FILE");
  app.add_flag("--profile", profile, "print cycles per function (ELF symbols), sorted");
  app.add_option(
      "--load", loads,
      "FILE@ADDR: write FILE's bytes to memory at ADDR before the run (a loader handing the "
      "firmware data at run time, e.g. a program: ./etmcu run --program-in-ram)");
  app.add_flag("--mangled", mangled,
               "--profile prints the ELF's symbol names as they are (default: demangled C++)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }

  etmcu::sim::SimOptions opt;
  opt.config = config == "nopulp" ? Config::kNoPulp : Config::kPulp;
  opt.max_cycles = max_cycles;
  opt.profile = profile;
  opt.trace_path = trace;
  opt.echo = stdout;
  etmcu::sim::Sim sim(opt);
  const std::string err = sim.load_file(firmware);
  if (!err.empty()) {
    std::fprintf(stderr, "etmcu-sim: %s: %s\n", firmware.c_str(), err.c_str());
    return kExitUsage;
  }
  for (const std::string& spec : loads) {
    const size_t at = spec.rfind('@');
    std::ifstream f(spec.substr(0, at), std::ios::binary);
    const std::string addr_text = at == std::string::npos ? "" : spec.substr(at + 1);
    char* end = nullptr;
    const unsigned long addr = std::strtoul(addr_text.c_str(), &end, 0);
    if (at == std::string::npos || !f || addr_text.empty() || *end != '\0') {
      std::fprintf(stderr, "etmcu-sim: --load %s: expected FILE@ADDR with a readable FILE\n",
                   spec.c_str());
      return kExitUsage;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
    if (!sim.write_memory(static_cast<uint32_t>(addr), bytes.data(), bytes.size())) {
      std::fprintf(stderr, "etmcu-sim: --load %s: %zu bytes at 0x%lx are outside memory\n",
                   spec.c_str(), bytes.size(), addr);
      return kExitUsage;
    }
  }
  const etmcu::sim::RunResult r = sim.run();
  std::fflush(stdout);
  int rc = 0;
  switch (r.reason) {
    case etmcu::sim::StopReason::kExit:
      rc = r.exit_code & 0xff;
      break;
    case etmcu::sim::StopReason::kUnhandledTrap:
      std::fprintf(stderr, "etmcu-sim: %s\n", r.message.c_str());
      rc = kExitTrap;
      break;
    case etmcu::sim::StopReason::kMaxCycles:
      std::fprintf(stderr, "etmcu-sim: stopped at --max-cycles %llu (pc=0x%08x)\n",
                   static_cast<unsigned long long>(max_cycles), sim.pc());
      rc = kExitMaxCycles;
      break;
    case etmcu::sim::StopReason::kTraceError:
      std::fprintf(stderr, "etmcu-sim: %s\n", r.message.c_str());
      return kExitUsage;
  }
  std::printf("cycles=%llu instret=%llu\n", static_cast<unsigned long long>(r.cycles),
              static_cast<unsigned long long>(r.instret));
  if (profile) {
    std::printf("profile: cycles instructions function\n");
    for (const auto& e : sim.profile())
      std::printf("%12llu %12llu %s\n", static_cast<unsigned long long>(e.cycles),
                  static_cast<unsigned long long>(e.instructions),
                  (mangled ? e.function : demangle(e.function)).c_str());
  }
  return rc;
}
