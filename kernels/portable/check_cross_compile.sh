#!/bin/sh
# Compiles every portable kernel source for the bare-metal targets (RV32 CV32E40P, Cortex-M4F,
# Cortex-M0) with the freestanding flags, so the library keeps to C headers, no exceptions/RTTI.
# Usage: kernels/portable/check_cross_compile.sh [repo root]   (exit 1 if any file fails)
set -eu
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
common="-Os -std=c++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics -ffreestanding \
-DETMCU_FREESTANDING -Wall -Wextra -Werror -I."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
# picolibc.specs provides the C headers (math.h, string.h) for the RISC-V toolchain.
for cc in "riscv64-unknown-elf-g++ -march=rv32imc_zicsr -mabi=ilp32 --specs=picolibc.specs" \
          "arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16" \
          "arm-none-eabi-g++ -mcpu=cortex-m0 -mthumb -mfloat-abi=soft"; do
  tool=${cc%% *}
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "skip: $tool not installed"
    continue
  fi
  for f in kernels/portable/util/*.cpp kernels/portable/op_*.cpp; do
    if ! $cc $common -c "$f" -o "$out/$(basename "$f").o"; then
      echo "FAIL: $tool $f"
      status=1
    fi
  done
  echo "ok: $tool"
done
exit $status
