#!/usr/bin/env bash
# The whole test suite: host build + CTest (unit, conformance, simulator), the ASan/UBSan build of the
# same tests, pytest (exporter, end-to-end; the int8 op tests once more on the ASan/UBSan kernels),
# and a 60 s libFuzzer campaign over the reader, method load, execute and .ptd targets.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
JOBS=$(nproc)
FUZZ_SECONDS=${ETMCU_FUZZ_SECONDS:-60}
step() { printf '\n==== %s\n' "$*"; }

step "host build"
cmake --preset host >/dev/null
cmake --build build/host -j "$JOBS"

step "ctest (host)"
ctest --test-dir build/host --output-on-failure -j "$JOBS"

step "ctest (ASan + UBSan)"
cmake --preset host-asan >/dev/null
cmake --build build/host-asan -j "$JOBS"
ctest --test-dir build/host-asan --output-on-failure -j "$JOBS" -LE slow

if [[ -d tests/python ]]; then
  step "pytest"
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python

  step "int8 op tests on the ASan + UBSan builds of the ref, fast and xpulp kernels"
  asan_int8=build/host-asan/tests/kernels/int8
  ETMCU_INT8_RUN_OP=$asan_int8/int8_run_op ETMCU_INT8_RUN_OP_FAST=$asan_int8/int8_run_op_fast \
    ETMCU_INT8_RUN_OP_XPULP=$asan_int8/int8_run_op_xpulp \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/int8/test_int8_ops.py
fi

if [[ -f tools/fuzz/campaign.sh ]]; then
  # The four fast targets (reader, method load, execute, .ptd) share the time; merging and
  # measuring their corpora adds a few seconds each, so the step stays near 60 s in all.
  step "libFuzzer campaign: reader, method, execute, .ptd (${FUZZ_SECONDS}s in all)"
  corpus=$(mktemp -d)
  JOBS="$JOBS" tools/fuzz/campaign.sh --seconds $(( FUZZ_SECONDS * 3 / 4 )) --out "$corpus"
  rm -rf "$corpus"
fi
step "all tests passed"
