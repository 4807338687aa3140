#!/usr/bin/env bash
# Footprint of the runtime core alone (reader + executor + backend table + a trivial PAL, no
# kernels) for the CV32E40P: rv32imc, -Os, Debian's riscv64-unknown-elf-gcc + picolibc.
# Prints the sections of the linked probe and the bytes that come from etmcu's own objects.
# Usage: bench/size/core_size.sh [--diagnostic-text 0|1] [--json]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIAG=1
JSON=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --diagnostic-text) DIAG=$2; shift 2 ;;
    --json) JSON=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
CXX=riscv64-unknown-elf-g++
CFLAGS=(-march=rv32imc_zicsr -mabi=ilp32 -Os -std=c++17 -fno-exceptions -fno-rtti
        -fno-threadsafe-statics -ffunction-sections -fdata-sections -DETMCU_FREESTANDING
        -DETMCU_DIAGNOSTIC_TEXT="$DIAG" --specs=picolibc.specs -I"$ROOT")
SOURCES=(runtime/core/error.cpp runtime/core/scalar_type.cpp runtime/core/diagnostic.cpp
         runtime/pte/verifier.cpp runtime/pte/pte_file.cpp runtime/pte/ptd_file.cpp
         runtime/backend/backend.cpp runtime/executor/program.cpp runtime/executor/method.cpp
         runtime/executor/method_meta.cpp kernels/api/kernel_lookup.cpp)
objs=()
for s in "${SOURCES[@]}"; do
  o="$OUT/$(basename "${s%.cpp}").o"
  "$CXX" "${CFLAGS[@]}" -c "$ROOT/$s" -o "$o"
  objs+=("$o")
done
"$CXX" "${CFLAGS[@]}" -c "$ROOT/bench/size/size_main.cpp" -o "$OUT/size_main.o"
riscv64-unknown-elf-gcc -march=rv32imc -mabi=ilp32 --specs=picolibc.specs -nostartfiles -e main \
  -Wl,--gc-sections -Wl,-Map="$OUT/probe.map" "$OUT/size_main.o" "${objs[@]}" -o "$OUT/probe.elf"
# Bytes per output section contributed by etmcu objects (from the link map).
/usr/bin/python3 - "$OUT/probe.map" "$OUT/probe.elf" "$JSON" "$DIAG" <<'PY'
import re, subprocess, sys, json
mapfile, elf, as_json, diag = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
ours = {".text": 0, ".rodata": 0, ".data": 0, ".bss": 0}
libc = {".text": 0, ".rodata": 0, ".data": 0, ".bss": 0}
lines = open(mapfile).read().split("\n")
in_memory_map = False
pending = None
for line in lines:
    if line.startswith("Linker script and memory map"):
        in_memory_map = True
        continue
    if not in_memory_map:
        continue
    m = re.match(r"^ (\.[\w.]+)\s*$", line)
    if m:
        pending = m.group(1)
        continue
    m = re.match(r"^ (\.[\w.]+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)", line)
    if not m:
        pending = None
        continue
    name = m.group(1) or pending
    pending = None
    if name is None:
        continue
    size, obj = int(m.group(3), 16), m.group(4)
    kind = next((k for k in (".text", ".rodata", ".sdata", ".srodata", ".data", ".sbss", ".bss") if name.startswith(k)), None)
    if kind is None:
        continue
    kind = {".sdata": ".data", ".srodata": ".rodata", ".sbss": ".bss"}.get(kind, kind)
    target = ours if obj.endswith(".o") and "size_main" not in obj else (libc if ".a(" in obj else None)
    if target is not None:
        target[kind] += size
result = {"target": "rv32imc -Os (riscv64-unknown-elf-gcc 12.2, picolibc)", "diagnostic_text": int(diag),
          "etmcu_core": ours, "libc_helpers": libc}
if as_json:
    print(json.dumps(result))
else:
    print(f"runtime core (reader + executor + backend table), rv32imc -Os, diagnostic text {'on' if diag == '1' else 'off'}")
    print("  etmcu objects: " + ", ".join(f"{k} {v} B" for k, v in ours.items()))
    print("  libc helpers pulled in (memcpy, memcmp, strlen, ...): " + ", ".join(f"{k} {v} B" for k, v in libc.items()))
PY
