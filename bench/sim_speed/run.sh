#!/bin/sh
# Builds etmcu-sim standalone and measures simulated cycles/s (timing model on) on loop-heavy
# reference firmwares, each repeated for SECONDS (default 5) of run() time, both configurations.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build/sim-dev}
seconds=${SECONDS_PER_RUN:-5}
cmake -S "$root/sim" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target etmcu-sim-speed >/dev/null
elf=$root/../shared/cv32e40p-ref/elf
for fw in k_conv_O2 k_crc32 k_memcpy t14_xp_mac_simd; do
  "$build/bench_sim_speed/etmcu-sim-speed" "$elf/$fw.elf" "$seconds"
done
for fw in k_conv_O2 k_crc32; do
  "$build/bench_sim_speed/etmcu-sim-speed" "$elf/$fw.elf" --nopulp "$seconds"
done
