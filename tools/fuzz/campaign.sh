#!/usr/bin/env bash
# A fuzz campaign over the fast libFuzzer targets (tests/fuzz: reader, method, execute, ptd; also
# kernel_args, hostile kernel arguments, when named with --targets):
# builds them (fuzz preset, ASan+UBSan), replays tests/fuzz/regressions, runs each target for its
# share of the time on its persistent corpus (seeded with ../shared/pte-corpus, the regressions
# and, when exported, the model zoo), merges (minimises) each corpus, and reports executions,
# edges covered and findings per target.
#
# Usage: tools/fuzz/campaign.sh --minutes N | --seconds S [--workers W] [--out DIR]
#                               [--targets "reader ..."] [--zoo]
#   --minutes N / --seconds S   fuzzing time in all, shared equally by the targets (merging and
#                 measuring the corpora come on top: a few seconds per target)
#   --workers W   libFuzzer processes per target (-fork=W when W > 1; default 1)
#   --out DIR     corpora, findings and logs (default build/fuzz/campaign; kept across campaigns)
#   --zoo         also seed with the model zoo exported by tools/fuzz/zoo_seeds.sh (needs torch)
# Exit code: 0 when there are no findings, 1 otherwise. The last line is a JSON summary.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

minutes=""
seconds=""
workers=1
out=build/fuzz/campaign
targets="reader method execute ptd"
zoo=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --zoo) zoo=1; shift ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) echo "campaign.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$minutes" || -n "$seconds" ]] || { echo "campaign.sh: --minutes N or --seconds S is required" >&2; exit 2; }
[[ -n "$seconds" ]] || seconds=$(( minutes * 60 ))

JOBS=${JOBS:-2}
bin=build/fuzz/tests/fuzz
cmake --preset fuzz >/dev/null
# shellcheck disable=SC2046
cmake --build build/fuzz -j "$JOBS" --target $(printf 'fuzz_%s ' $targets) fuzz_kernel_args >/dev/null

shared=../shared/pte-corpus
seeds="$out/seeds"
mkdir -p "$seeds/pte" "$seeds/ptd"
if [[ -d "$shared" ]]; then
  cp "$shared"/upstream/*.pte "$shared"/upstream-history/*.pte "$seeds/pte/" 2>/dev/null || true
  cp "$shared"/upstream-history/*.ptd "$seeds/ptd/" 2>/dev/null || true
else
  echo "campaign.sh: $shared missing: seeding with tests/fuzz/regressions only"
fi
cp tests/fuzz/regressions/*.pte "$seeds/pte/"
cp tests/fuzz/regressions/*.ptd "$seeds/ptd/"
if [[ $zoo == 1 ]]; then
  tools/fuzz/zoo_seeds.sh "$out/zoo" >/dev/null || true
  cp "$out"/zoo/*.pte "$seeds/pte/" 2>/dev/null || true
  cp "$out"/zoo/*.ptd "$seeds/ptd/" 2>/dev/null || true
fi
ptd_program=tests/fuzz/regressions/small_linear_external.pte

touch "$out/.start"
total_findings=0
# Past findings first: every regression seed must run cleanly through whole-program execution
# (fuzz_kernel_args: pools up to 1 MiB, so KWS-sized seeds execute too) and each target below.
if [[ " $targets " != *" kernel_args "* ]]; then
  if ! ETMCU_FUZZ_PTD_PROGRAM="$ROOT/$ptd_program" "$bin/fuzz_kernel_args" -rss_limit_mb=2048 \
      tests/fuzz/regressions/*.pte >"$out/regressions.log" 2>&1; then
    echo "campaign.sh: a regression seed fails in fuzz_kernel_args (see $out/regressions.log)"
    total_findings=1
  fi
fi
n_targets=$(wc -w <<<"$targets")
per_target=$(( seconds / n_targets ))
(( per_target >= 5 )) || per_target=5

total_execs=0
json_targets=""
printf '%-8s %8s %12s %9s %7s %8s %7s %8s\n' target seconds executions exec/s edges features corpus findings
for t in $targets; do
  dir="$out/$t"
  mkdir -p "$dir/corpus" "$dir/findings"
  log="$dir/log.txt"
  : >"$log"
  kind=pte; [[ $t == ptd ]] && kind=ptd
  export ETMCU_FUZZ_PTD_PROGRAM="$ROOT/$ptd_program"
  max_len=65536; [[ $t == kernel_args ]] && max_len=1200000  # whole zoo programs
  flags=(-max_len=$max_len -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
         -artifact_prefix="$dir/findings/")
  # Past findings first: each regression seed must run cleanly.
  regressions=(tests/fuzz/regressions/*."$kind")
  if ! "$bin/fuzz_$t" "${flags[@]}" "${regressions[@]}" >>"$log" 2>&1; then
    echo "campaign.sh: fuzz_$t fails on a regression seed (see $log)"
    total_findings=$(( total_findings + 1 ))
  fi
  execs=0
  start=$(date +%s)
  deadline=$(( start + per_target ))
  restarts=0
  while :; do
    left=$(( deadline - $(date +%s) ))
    (( left >= 2 )) || break
    fork=(); (( workers > 1 )) && fork=(-fork="$workers" -ignore_crashes=1)
    "$bin/fuzz_$t" "${flags[@]}" "${fork[@]}" -max_total_time="$left" \
      "$dir/corpus" "$seeds/$kind" >>"$log" 2>&1 && rc=0 || rc=$?
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$' || echo 0)
    execs=$(( execs + ${n:-0} ))
    # A finding stops a non-fork run: record it and go on with the rest of the time.
    (( rc == 0 )) && break
    restarts=$(( restarts + 1 ))
    (( restarts < 10 )) || break
  done
  elapsed=$(( $(date +%s) - start ))
  # Minimise the corpus (keeps every feature), then measure what it covers.
  rm -rf "$dir/merged"; mkdir -p "$dir/merged"
  "$bin/fuzz_$t" -merge=1 -max_len=$max_len -rss_limit_mb=2048 -timeout=10 \
    "$dir/merged" "$dir/corpus" "$seeds/$kind" >>"$log" 2>&1 || true
  rm -rf "$dir/corpus"; mv "$dir/merged" "$dir/corpus"
  inited=$("$bin/fuzz_$t" -runs=0 -max_len=$max_len -rss_limit_mb=2048 "$dir/corpus" 2>&1 |
    grep -m1 'INITED' || true)
  edges=$(grep -o 'cov: [0-9]*' <<<"$inited" | grep -o '[0-9]*' || echo 0)
  features=$(grep -o 'ft: [0-9]*' <<<"$inited" | grep -o '[0-9]*' || echo 0)
  files=$(find "$dir/corpus" -type f | wc -l)
  # This campaign's findings (older ones stay in the folder until someone files them).
  findings=$(find "$dir/findings" -type f -newer "$out/.start" | wc -l)
  rate=$(( elapsed > 0 ? execs / elapsed : 0 ))
  printf '%-8s %8d %12d %9d %7s %8s %7d %8d\n' "$t" "$elapsed" "$execs" "$rate" "${edges:-0}" \
    "${features:-0}" "$files" "$findings"
  total_execs=$(( total_execs + execs ))
  total_findings=$(( total_findings + findings ))
  json_targets+="${json_targets:+,}\"$t\":{\"seconds\":$elapsed,\"executions\":$execs,\"exec_per_s\":$rate,\"edges\":${edges:-0},\"features\":${features:-0},\"corpus\":$files,\"findings\":$findings}"
done
echo "total executions: $total_execs; findings: $total_findings (in $out/<target>/findings)"
echo "{\"seconds\":$seconds,\"workers\":$workers,\"executions\":$total_execs,\"findings\":$total_findings,\"targets\":{$json_targets}}"
(( total_findings == 0 ))
