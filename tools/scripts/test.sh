#!/usr/bin/env bash
# The whole test suite: host build + CTest (unit, conformance, simulator), the ASan/UBSan build of the
# same tests, pytest (exporter, end-to-end; the int8 op tests once more on the ASan/UBSan kernels),
# and a 60 s libFuzzer run over the .pte loader.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
JOBS=$(nproc)
FUZZ_SECONDS=${ETMCU_FUZZ_SECONDS:-60}
step() { printf '\n==== %s\n' "$*"; }

# The shared .pte corpus beside the checkout: tests that read it skip without it (one line naming
# it), unless ETMCU_REQUIRE_CORPUS is set (CI: .ci/run), which makes its absence an error.
CORPUS="$ROOT/../shared/pte-corpus"
if [[ -d "$CORPUS/upstream" ]]; then
  echo "corpus: $CORPUS"
elif [[ -n "${ETMCU_REQUIRE_CORPUS:-}" && "${ETMCU_REQUIRE_CORPUS}" != 0 ]]; then
  echo "error: ETMCU_REQUIRE_CORPUS is set and the .pte corpus is missing: $CORPUS" >&2
  exit 1
else
  echo "corpus: none at $CORPUS; the tests that read it skip"
fi

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
  /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider tests/python  # -rs: one line per skip, with its reason

  step "int8 op tests on the ASan + UBSan builds of the ref, fast and xpulp kernels"
  asan_int8=build/host-asan/tests/kernels/int8
  ETMCU_INT8_RUN_OP=$asan_int8/int8_run_op ETMCU_INT8_RUN_OP_FAST=$asan_int8/int8_run_op_fast \
    ETMCU_INT8_RUN_OP_XPULP=$asan_int8/int8_run_op_xpulp \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/int8/test_int8_ops.py
fi

if [[ -f tests/fuzz/CMakeLists.txt ]]; then
  step "libFuzzer: .pte load + method load + execute, ${FUZZ_SECONDS}s"
  cmake --preset fuzz >/dev/null
  cmake --build build/fuzz -j "$JOBS" --target fuzz_program
  corpus=$(mktemp -d)
  cp tests/fuzz/regressions/* "$corpus"/
  if [[ -d "$CORPUS/upstream" ]]; then
    cp "$CORPUS"/upstream/*.pte "$CORPUS"/upstream-history/*.pte "$corpus"/
  fi
  build/fuzz/tests/fuzz/fuzz_program -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 "$corpus" 2>&1 | tail -n 15
  rm -rf "$corpus"
fi
step "all tests passed"
