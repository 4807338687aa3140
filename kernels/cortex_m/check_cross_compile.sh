#!/bin/sh
# Compiles every int8 kernel source (kernels/cortex_m, kernels/quantized) for the bare-metal targets
# (RV32 CV32E40P, Cortex-M4F with DSP, Cortex-M55 with MVE) with the freestanding flags: C headers
# only, no exceptions/RTTI.
# Usage: kernels/cortex_m/check_cross_compile.sh [repo root]   (exit 1 if any file fails)
set -eu
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
common="-Os -std=c++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics -ffreestanding \
-DETMCU_FREESTANDING -Wall -Wextra -Werror -I."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
# picolibc.specs provides the C headers (math.h, string.h) for the RISC-V toolchain.
# Each line: the ISA variants whose micro-kernels (kernels/cortex_m/isa/<isa>) the opt/ op files
# are compiled with, then the compiler and its flags.
for line in "scalar,rv32,xpulp riscv64-unknown-elf-g++ -march=rv32imc_zicsr -mabi=ilp32 --specs=picolibc.specs" \
          "scalar,dsp arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16" \
          "mve arm-none-eabi-g++ -mcpu=cortex-m55 -mthumb -mfloat-abi=hard"; do
  isas=${line%% *}
  cc=${line#* }
  tool=${cc%% *}
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "skip: $tool not installed"
    continue
  fi
  n=0
  for f in kernels/cortex_m/ref/op_*.cpp kernels/quantized/op_*.cpp; do
    if ! $cc $common -c "$f" -o "$out/$(basename "$f").o"; then
      echo "FAIL: $tool $f"
      status=1
    fi
    n=$((n + 1))
  done
  for isa in $(echo "$isas" | tr , ' '); do
    for f in kernels/cortex_m/opt/op_*.cpp; do
      if ! $cc $common -Ikernels/cortex_m/isa/"$isa" -c "$f" -o "$out/$isa-$(basename "$f").o"; then
        echo "FAIL: $tool $f ($isa)"
        status=1
      fi
      n=$((n + 1))
    done
  done
  # Kernels must not pull in the C++ runtime (no operator new/delete, __cxa_*, typeinfo).
  if nm -u "$out"/*.o 2>/dev/null | grep -E '_Znw|_Znaj|_Zdl|__cxa_|_ZTI' >/dev/null; then
    echo "FAIL: $tool: C++ runtime symbols referenced"
    status=1
  fi
  rm -f "$out"/*.o
  echo "ok: $tool ($n files)"
done
exit $status
