#!/usr/bin/env bash
# Exports the model zoo as fuzz seeds into DIR (fp32 and int8 programs, one with external
# constants and its .ptd). Needs Debian's torch (./etmcu export); skips what fails to export.
# Usage: tools/fuzz/zoo_seeds.sh DIR
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: zoo_seeds.sh DIR}
mkdir -p "$out"
cd "$ROOT"
export_one() {  # file label, model name, extra args...
  local label=$1 name=$2; shift 2
  local dst="$out/zoo_${label}.pte"
  [[ -s "$dst" ]] && return 0
  ./etmcu export "models/${name}.py:Model" -o "$dst" "$@" >/dev/null 2>&1 ||
    { echo "zoo_seeds: ${name} $* did not export (skipped)"; rm -f "$dst"; }
}
for m in add mlp cnn ds_cnn autoencoder; do export_one "$m" "$m"; done
for m in mlp cnn ds_cnn; do export_one "${m}_int8" "$m" --quantize int8 --calibration 4; done
export_one mlp_external mlp --external-constants
ls "$out"
