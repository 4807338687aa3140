#!/usr/bin/env bash
# ./etmcu demo: build everything, export a PyTorch model to .pte, run it on the host runtime, run a
# real upstream program, and run firmware on the simulated CV32E40P with its exact cycle count.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
export PYTHONPATH="$ROOT/python:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
SHARED="$ROOT/../shared"
OUT="$ROOT/build/demo"
mkdir -p "$OUT"
say() { printf '\n== %s\n' "$*"; }

say "build (host runtime, kernels, tools, simulator)"
./etmcu build

say "export: models/add.py (x + y on two float32[5]) -> $OUT/add.pte"
./etmcu export models/add.py:Model -o "$OUT/add.pte" --input-shape 5 --input-shape 5

say "run it on the host runtime (inputs: all ones)"
./etmcu run "$OUT/add.pte"

say "run a real upstream ExecuTorch program (Arduino AddModel: x + 1) with an input"
/usr/bin/python3 -c "import numpy as np; np.save('$OUT/x.npy', np.array([1, 2, 3], np.float32))"
./etmcu run "$SHARED/pte-corpus/upstream/examples__arduino__examples__AddModel__model.pte" --input "$OUT/x.npy"

say "inspect it"
./etmcu inspect "$SHARED/pte-corpus/upstream/examples__arduino__examples__AddModel__model.pte"

say "simulated CV32E40P: a reference dot-product kernel, cycle-exact against the RTL"
./etmcu sim "$SHARED/cv32e40p-ref/elf/k_dot_O2.elf" || true
echo
echo "(Running an exported model as CV32E40P firmware is the bare-metal work, issue 5: not built yet.)"
