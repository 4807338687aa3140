#!/usr/bin/env bash
# Checks of target-only properties that a 64-bit host cannot show (run by CTest):
#  1. abi32.cpp compiles for rv32 (64-bit diagnostic numbers, 64-bit method layout size);
#  2. fb::read compiled for Cortex-M0 does no word/halfword load straight from its pointer.
# A missing cross compiler skips its check with a message.
set -u
src=$(cd "$(dirname "$0")/../../.." && pwd)
here="$src/tests/runtime/target_checks"
status=0
if command -v riscv64-unknown-elf-g++ >/dev/null; then
  if riscv64-unknown-elf-g++ -march=rv32imc -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs \
      -DETMCU_FREESTANDING -std=c++17 -fno-exceptions -fno-rtti \
      -ffreestanding -fsyntax-only -I"$src" "$here/abi32.cpp"; then
    echo "rv32: diagnostic numbers and method layout size are 64-bit"
  else
    echo "FAIL: abi32.cpp does not compile for rv32"; status=1
  fi
else
  echo "skip: riscv64-unknown-elf-g++ not installed"
fi
if command -v arm-none-eabi-g++ >/dev/null; then
  asm=$(arm-none-eabi-g++ -mcpu=cortex-m0 -mthumb -Os -std=c++17 -fno-exceptions -fno-rtti \
        -I"$src" -S -o - "$here/m0_read.cpp")
  # r0 holds the pointer on entry: a direct ldr/ldrh/ldm from it is an aligned access.
  if grep -Eq $'^\t(ldr|ldrh|ldm(ia)?)\tr[0-9]+!?, \\[r0(, #[0-9]+)?\\]|^\tldm(ia)?\tr0' <<<"$asm"; then
    echo "FAIL: fb::read for Cortex-M0 loads words straight from an unverified pointer:"
    grep -E $'^\t(ldr|ldrh|ldm)' <<<"$asm"; status=1
  else
    echo "cortex-m0: fb::read uses no word or halfword load from its pointer"
  fi
else
  echo "skip: arm-none-eabi-g++ not installed"
fi
exit $status
