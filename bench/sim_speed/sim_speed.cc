// Measures simulated cycles per second of etmcu-sim (timing model on) on a firmware, repeated
// until a minimum wall time is reached. Usage: etmcu-sim-speed FIRMWARE.elf [--nopulp] [seconds]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "core/sim.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FIRMWARE.elf [--nopulp] [min_seconds]\n", argv[0]);
    return 2;
  }
  etmcu::sim::SimOptions opt;
  double min_seconds = 3.0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--nopulp") == 0)
      opt.config = etmcu::sim::Config::kNoPulp;
    else
      min_seconds = std::atof(argv[i]);
  }
  etmcu::sim::Sim sim(opt);
  const etmcu::sim::LoadResult img = etmcu::sim::load_firmware_file(argv[1]);
  if (!img.ok) {
    std::fprintf(stderr, "%s\n", img.error.c_str());
    return 2;
  }
  uint64_t cycles = 0, instret = 0, runs = 0;
  double run_seconds = 0;  // wall time inside run() only (loading/reset excluded)
  double cpu_seconds = 0;  // CPU time of this thread inside run() (less sensitive to other load)
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  };
  while (run_seconds < min_seconds) {
    sim.load_image(img.image);
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_now();
    const etmcu::sim::RunResult r = sim.run();
    cpu_seconds += cpu_now() - c0;
    run_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.reason != etmcu::sim::StopReason::kExit) {
      std::fprintf(stderr, "run failed: %s\n", r.message.c_str());
      return 1;
    }
    cycles += r.cycles;
    instret += r.instret;
    ++runs;
  }
  std::printf("firmware=%s runs=%llu cycles=%llu instret=%llu wall=%.3fs cpu=%.3fs\n", argv[1],
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(cycles),
              static_cast<unsigned long long>(instret), run_seconds, cpu_seconds);
  std::printf(
      "speed: %.1f M simulated cycles/s (wall), %.1f M cycles per CPU-second, "
      "%.1f M instructions/s (wall)\n",
      cycles / run_seconds / 1e6, cycles / cpu_seconds / 1e6, instret / run_seconds / 1e6);
  return 0;
}
