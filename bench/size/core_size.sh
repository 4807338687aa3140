#!/usr/bin/env bash
# Footprint of the runtime core alone (reader + executor + backend table + a trivial PAL, no
# kernels) for the CV32E40P: rv32imc, -Os, Debian's riscv64-unknown-elf-gcc + picolibc. For each
# build configuration it links a probe that loads, plans and runs a method (bench/size/size_main.cpp)
# and reports the bytes etmcu's own code and data take (libc helpers counted apart).
# Usage: bench/size/core_size.sh [--json]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JSON=0
[[ "${1:-}" == "--json" ]] && JSON=1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SOURCES=(runtime/core/error.cpp runtime/core/scalar_type.cpp runtime/core/diagnostic.cpp runtime/core/tensor.cpp
         runtime/pte/verifier.cpp runtime/pte/pte_file.cpp runtime/pte/ptd_file.cpp
         runtime/backend/backend.cpp runtime/executor/program.cpp runtime/executor/method.cpp
         runtime/executor/method_meta.cpp kernels/api/kernel_lookup.cpp)
NO_FEATURES="-DETMCU_FEATURE_DELEGATES=0 -DETMCU_FEATURE_EXTERNAL_DATA=0 -DETMCU_FEATURE_MUTABLE_DATA=0 -DETMCU_FEATURE_CONTROL_FLOW=0 -DETMCU_FEATURE_CONSTANT_BUFFER=0 -DETMCU_FEATURE_LISTS=0 -DETMCU_FEATURE_STRINGS=0 -DETMCU_FEATURE_ALIAS_CHECK=0 -DETMCU_FEATURE_KERNEL_TEMP=0"
# name | extra compile flags
CONFIGS=(
  "all features, diagnostic text|"
  "all features, no diagnostic text|-DETMCU_DIAGNOSTIC_TEXT=0"
  "all features, no diagnostic text, LTO|-DETMCU_DIAGNOSTIC_TEXT=0 -flto"
  "plain-kernel programs (features off), no diagnostic text, LTO|-DETMCU_DIAGNOSTIC_TEXT=0 -flto $NO_FEATURES"
  "same + -msave-restore|-DETMCU_DIAGNOSTIC_TEXT=0 -flto -msave-restore $NO_FEATURES"
  "plain-kernel, LTO, with instruction hooks (profiler)|-DETMCU_DIAGNOSTIC_TEXT=0 -flto $NO_FEATURES -DETMCU_INSTRUCTION_HOOKS=1"
  "plain-kernel, LTO, Verification::Minimal (firmware's default)|-DETMCU_DIAGNOSTIC_TEXT=0 -flto $NO_FEATURES -DSIZE_MINIMAL_VERIFICATION=1"
  "plain-kernel, LTO, Minimal, no load-time value checks|-DETMCU_DIAGNOSTIC_TEXT=0 -flto $NO_FEATURES -DSIZE_MINIMAL_VERIFICATION=1 -DETMCU_FEATURE_LOAD_VALUE_CHECKS=0"
  "same + kernels by operator index (firmware)|-DETMCU_DIAGNOSTIC_TEXT=0 -flto $NO_FEATURES -DSIZE_MINIMAL_VERIFICATION=1 -DETMCU_FEATURE_LOAD_VALUE_CHECKS=0 -DETMCU_FEATURE_KERNEL_NAMES=0"
)
results=()
for entry in "${CONFIGS[@]}"; do
  name=${entry%%|*}
  read -r -a extra <<<"${entry#*|}"
  dir="$OUT/$(echo "$name" | tr -c 'a-z0-9' '_')"
  mkdir -p "$dir"
  flags=(-march=rv32imc_zicsr -mabi=ilp32 -Os -std=c++17 -fno-exceptions -fno-rtti
         -fno-threadsafe-statics -ffunction-sections -fdata-sections -DETMCU_FREESTANDING
         --specs=picolibc.specs -I"$ROOT" "${extra[@]}")
  objs=()
  for s in "${SOURCES[@]}"; do
    o="$dir/$(basename "${s%.cpp}").o"
    riscv64-unknown-elf-g++ "${flags[@]}" -c "$ROOT/$s" -o "$o"
    objs+=("$o")
  done
  riscv64-unknown-elf-g++ "${flags[@]}" -c "$ROOT/bench/size/size_main.cpp" -o "$dir/size_main.o"
  riscv64-unknown-elf-g++ "${flags[@]}" -c "$ROOT/bench/size/empty_main.cpp" -o "$dir/empty_main.o"
  riscv64-unknown-elf-gcc -march=rv32imc -mabi=ilp32 -Os -c "$ROOT/bench/size/size_model.c" -o "$dir/size_model.o"
  lto=()
  [[ " ${extra[*]} " == *" -flto "* ]] && lto=(-flto -Os)
  [[ " ${extra[*]} " == *" -msave-restore "* ]] && lto+=(-msave-restore)
  link=(riscv64-unknown-elf-gcc -march=rv32imc -mabi=ilp32 "${lto[@]}" --specs=picolibc.specs
        -nostartfiles -e main -Wl,--gc-sections)
  "${link[@]}" -Wl,-Map="$dir/probe.map" "$dir/size_main.o" "${objs[@]}" "$dir/size_model.o" -o "$dir/probe.elf"
  "${link[@]}" -Wl,-Map="$dir/empty.map" "$dir/empty_main.o" "$dir/size_model.o" -o "$dir/empty.elf"
  results+=("$name|$dir/probe.map|$dir/empty.map")
done
/usr/bin/python3 - "$JSON" "${results[@]}" <<'PY'
import json, re, subprocess, sys
as_json, rows = sys.argv[1] == "1", []

def sections(mapfile):
    """Bytes per kind of input section in the link map: etmcu code and data vs libc/libgcc."""
    sizes = {"text": 0, "rodata": 0, "data": 0, "bss": 0, "libc": 0}
    in_map, pending = False, None
    for line in open(mapfile).read().split("\n"):
        if line.startswith("Linker script and memory map"):
            in_map = True
            continue
        if not in_map:
            continue
        m = re.match(r"^ (\.[\w.$]+)\s*$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.match(r"^ (\.[\w.$]+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)", line)
        name = (m.group(1) or pending) if m else None
        pending = None
        if not m or name is None:
            continue
        size, obj = int(m.group(3), 16), m.group(4)
        kind = next((k for p, k in ((".text", "text"), (".rodata", "rodata"), (".srodata", "rodata"),
                                    (".sdata", "data"), (".data", "data"), (".sbss", "bss"), (".bss", "bss"))
                     if name.startswith(p)), None)
        if kind is None or name.startswith(".stack"):
            continue
        if ".a(" in obj or obj.endswith(".a"):
            sizes["libc"] += size
        else:
            sizes[kind] += size
    return sizes

for arg in sys.argv[2:]:
    name, probe, empty = arg.split("|")
    p, e = sections(probe), sections(empty)
    row = {k: p[k] - e[k] for k in p}
    row["bss"] -= 1024 + 256 + 32  # the probe's own pools (caller memory, not the runtime's)
    rows.append({"config": name, **row})
if as_json:
    print(json.dumps({"target": "rv32imc -Os, riscv64-unknown-elf-gcc 12.2 + picolibc", "configs": rows}))
else:
    print("runtime core (reader + executor + backend table, no kernels), rv32imc -Os")
    print("bytes over an empty program with the same start-up; includes the probe's main() (about 200 B:")
    print("load, load_method, set_input, execute); libc/libgcc helpers (memcpy, ...) counted apart")
    print(f"{'configuration':62} {'.text':>7} {'.rodata':>8} {'.data':>6} {'.bss':>5} {'libc':>5}")
    for r in rows:
        print(f"{r['config']:62} {r['text']:7} {r['rodata']:8} {r['data']:6} {r['bss']:5} {r['libc']:5}")
PY
