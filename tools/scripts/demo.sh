#!/usr/bin/env bash
# ./etmcu demo: build everything, export PyTorch models to .pte (fp32 and int8), run one on the host
# runtime, as firmware on the simulated CV32E40P with its exact cycle count, and the int8 keyword
# spotter on a Cortex-M4 board under QEMU. With the shared corpus beside the checkout (../shared),
# it also runs real upstream ExecuTorch programs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
export PYTHONPATH="$ROOT/python:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
UPSTREAM="$ROOT/../shared/pte-corpus/upstream"
OUT="$ROOT/build/demo"
mkdir -p "$OUT"
say() { printf '\n== %s\n' "$*"; }

say "build (host runtime, kernels, tools, simulator)"
./etmcu build

say "export: models/add.py (x + y on two float32[5]) -> $OUT/add.pte"
./etmcu export models/add.py:Model -o "$OUT/add.pte" --input-shape 5 --input-shape 5

say "run it on the host runtime (inputs: all ones)"
./etmcu run "$OUT/add.pte"

say "inspect it"
./etmcu inspect "$OUT/add.pte"

say "the same program as firmware on the simulated CV32E40P (cycle-exact), with cycles, flash and RAM"
./etmcu run "$OUT/add.pte" --target cv32e40p

say "export int8: models/ds_cnn.py (MLPerf Tiny keyword spotting DS-CNN, 49x10 MFCC in, 12 classes)"
./etmcu export models/ds_cnn.py:Model -o "$OUT/ds_cnn_int8.pte" --input-shape 1,1,49,10 \
  --quantize int8 --calibration 16

say "the int8 DS-CNN (cortex_m ops) as firmware on a Cortex-M4 (QEMU mps2-an386, exact instruction counts)"
./etmcu run "$OUT/ds_cnn_int8.pte" --target cortex-m4

if [[ ! -d "$UPSTREAM" ]]; then
  say "upstream ExecuTorch programs: skipped (no corpus at ../shared/pte-corpus beside the checkout)"
  exit 0
fi

say "run a real upstream ExecuTorch program (Arduino AddModel: x + 1) with an input"
/usr/bin/python3 -c "import numpy as np; np.save('$OUT/x.npy', np.array([1, 2, 3], np.float32))"
./etmcu run "$UPSTREAM/examples__arduino__examples__AddModel__model.pte" --input "$OUT/x.npy"

say "upstream's int8 keyword spotter (DS-CNN, cortex_m ops) on the simulated CV32E40P, input: 'yes'"
./etmcu run "$UPSTREAM/examples__arduino__examples__KeywordSpotting__model.pte" \
  --target cv32e40p --input "$UPSTREAM/kws_test_inputs/mfcc_yes.f32.bin"
echo "(labels: silence, unknown, yes, no, up, down, left, right, on, off, stop, go)"
