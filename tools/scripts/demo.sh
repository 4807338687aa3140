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

say "the same program as firmware on the simulated CV32E40P (cycle-exact), with cycles, flash and RAM"
./etmcu run "$OUT/add.pte" --target cv32e40p

say "upstream's int8 keyword spotter (DS-CNN, cortex_m ops) on the simulated CV32E40P, input: 'yes'"
./etmcu run "$SHARED/pte-corpus/upstream/examples__arduino__examples__KeywordSpotting__model.pte" \
  --target cv32e40p --input "$SHARED/pte-corpus/upstream/kws_test_inputs/mfcc_yes.f32.bin"
echo "(labels: silence, unknown, yes, no, up, down, left, right, on, off, stop, go)"
