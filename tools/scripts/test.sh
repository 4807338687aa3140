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
# Each step's header says how long the suite has run (CI's budget is 30 minutes on 2 cores).
step() { printf '\n==== %s  [%d s]\n' "$*" "$SECONDS"; }

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

# pytest's workers: python3-pytest-xdist (tools/deps/debian-packages.txt); serial without it.
XDIST=()
if /usr/bin/python3 -c "import xdist" 2>/dev/null && ((JOBS > 1)); then
  XDIST=(-n "$JOBS" --dist loadfile)
else
  echo "pytest: one process (python3-pytest-xdist is not installed or one core)"
fi

step "host build"
# CI builds the host tree without debug information: the step took 169 s with -g and 129 s
# without on 2 cores (measured); the code is the same (-O2 -DNDEBUG, as RelWithDebInfo). A local
# run keeps the preset's RelWithDebInfo, and the ASan build below keeps its -g (line numbers in a
# sanitizer's report).
host_flags=()
if [[ "${CI:-}" == true ]]; then
  host_flags=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG")
fi
cmake --preset host "${host_flags[@]}" >/dev/null
cmake --build build/host -j "$JOBS"

step "ctest (host)"
ctest --test-dir build/host --output-on-failure -j "$JOBS"

step "ctest (ASan + UBSan)"
cmake --preset host-asan >/dev/null
cmake --build build/host-asan -j "$JOBS"
# (-LE cross: the cross-compile checks use no host code; the host ctest above ran them)
ctest --test-dir build/host-asan --output-on-failure -j "$JOBS" -LE 'slow|cross'

if [[ -d tests/python ]]; then
  step "pytest"
  # -rs: one line per skip, with its reason; the 25 slowest tests are listed at the end.
  # One worker per core (python3-pytest-xdist), a test file's tests on one worker so its module
  # fixtures (exports, firmware builds) run once: 21 -> 12 minutes on 2 cores. Firmware builds
  # the workers share are serialised by etmcu_fw's per-build-directory lock.
  # The per-file sums that order them (tests/python/conftest.py LONGEST_FIRST) follow its summary
  # (the JUnit report: build/pytest-junit.xml; build/ is the host build's).
  /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider --durations=25 --junitxml=build/pytest-junit.xml \
    "${XDIST[@]}" tests/python
  /usr/bin/python3 tools/scripts/pytest_file_times.py build/pytest-junit.xml || true

  step "int8 op tests on the ASan + UBSan builds of the ref, scalar, rv32 and xpulp kernels"
  asan_int8=build/host-asan/tests/kernels/int8
  # (detect_leaks=0: LeakSanitizer's scan at exit took 43 of each runner start's 94 ms, and the step
  # starts a runner for every kernel call of every variant; the kernels allocate nothing, the
  # runner's heap is the test tool's. A subset of the step: 17.4 -> 10.8 s.)
  ASAN_OPTIONS=detect_leaks=0 ETMCU_INT8_RUN_OP=$asan_int8/int8_run_op ETMCU_INT8_RUN_OP_SCALAR=$asan_int8/int8_run_op_scalar \
    ETMCU_INT8_RUN_OP_RV32=$asan_int8/int8_run_op_rv32 \
    ETMCU_INT8_RUN_OP_XPULP=$asan_int8/int8_run_op_xpulp \
    ETMCU_INT8_RUN_OP_RV32_TRUSTED=$asan_int8/int8_run_op_rv32_trusted \
    ETMCU_INT8_RUN_OP_XPULP_TRUSTED=$asan_int8/int8_run_op_xpulp_trusted \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider "${XDIST[@]/loadfile/load}" tests/python/int8/test_int8_ops.py
fi

# torch 2.x: the torch.export front end on Debian 13's torch, in a chroot (tools/torch2/env.sh).
# CI (CI=true, as .ci/run sets) must have it: failing to create it fails the suite. A local run
# creates it when it can (root, the Debian mirror reachable; 1.3 GB, kept in ~/.cache/etmcu) and
# otherwise skips this step with one line; ETMCU_TORCH2=0 skips it on purpose.
# Its tests run in the background beside the fuzz campaign below (each takes one core for about a
# minute; side by side they save that minute of CI's 30); their output follows the campaign's.
step "torch 2.x export tests (Debian 13 chroot)"
torch2_pid=""
if [[ -n "${ETMCU_TORCH2_CREATING:-}" ]]; then
  # .ci/run creates the chroot in the background: wait for its exit code, then show its log (on
  # failure the create below tries once more in the foreground).
  waited=$SECONDS
  while [[ ! -f "$ETMCU_TORCH2_CREATING" ]]; do sleep 2; done
  grep -E '^\[(torch2|ci)\]' "${ETMCU_TORCH2_CREATING%.rc}.log" || true
  echo "waited $((SECONDS - waited)) s for the chroot"
fi
if [[ "${ETMCU_TORCH2:-1}" == 0 && "${CI:-}" != true ]]; then
  echo "skipped: ETMCU_TORCH2=0"
else
  torch2_rc=0
  if [[ "${CI:-}" == true ]]; then
    tools/torch2/env.sh create >/dev/null || torch2_rc=$?
  else
    tools/torch2/env.sh status >/dev/null || echo "(creating the torch 2.x chroot: a few minutes, once a machine)"
    torch2_log=$(tools/torch2/env.sh create 2>&1 >/dev/null) || torch2_rc=$?
  fi
  if ((torch2_rc == 0)); then
    # (one torch thread: beside the campaign's two jobs a second one only contends for the cores;
    # measured here beside the campaign, 88 -> 77 s. One pytest worker, not one per core: with two
    # (python3-pytest-xdist in the chroot) the tests took 101 s instead of 112, but the campaign,
    # which builds its fuzz targets first (191 s of compiler time), ended 30 s later: the step took
    # 158 s instead of 128, one CI run each here; each worker imports torch again.)
    tools/torch2/env.sh run /usr/bin/env OMP_NUM_THREADS=1 /usr/bin/python3 -m pytest -q \
      -p no:cacheprovider tests/python/torch2 tests/python/test_user_errors.py \
      >build/torch2-tests.log 2>&1 &
    torch2_pid=$!
    trap '[[ -n "$torch2_pid" ]] && kill "$torch2_pid" 2>/dev/null; true' EXIT
    echo "running beside the fuzz campaign (output below it; log: build/torch2-tests.log)"
  elif [[ "${CI:-}" == true ]]; then
    echo "the torch 2.x chroot is required in CI (see the [torch2] message above)" >&2
    exit 1
  else
    echo "skipped (CI fails here instead): $(printf '%s\n' "$torch2_log" | grep '^\[torch2\]' | tail -n 1)"
  fi
fi

if [[ -f tools/fuzz/campaign.sh ]]; then
  # The four fast targets (reader, method load, execute, .ptd) share the time; merging and
  # measuring their corpora adds a few seconds each, so the step stays near 60 s in all.
  step "libFuzzer campaign: reader, method, execute, .ptd (${FUZZ_SECONDS}s in all)"
  corpus=$(mktemp -d)
  JOBS="$JOBS" tools/fuzz/campaign.sh --seconds $(( FUZZ_SECONDS * 3 / 4 )) --out "$corpus"
  rm -rf "$corpus"
fi
if [[ -n "$torch2_pid" ]]; then
  step "torch 2.x export tests: their output"
  torch2_tests_rc=0
  wait "$torch2_pid" || torch2_tests_rc=$?
  torch2_pid=""
  cat build/torch2-tests.log
  if ((torch2_tests_rc != 0)); then
    echo "the torch 2.x export tests failed (exit code $torch2_tests_rc)" >&2
    exit 1
  fi
fi
step "all tests passed"
