#!/usr/bin/python3
"""Runs .pte programs on the host runtime and as firmware on every target, compares the outputs
(bit-exact for integers, 1e-6 relative for floats) and prints a markdown table of
cycles (CV32E40P) / instructions (QEMU), .text and RAM per program and target.

Usage: tools/firmware/corpus_table.py [--targets cv32e40p,cortex-m55,...] [--m0-board mps2-an385] [--json]
                                      [--stack] [PROGRAM.pte ...]
--stack: the cells give the static stack bound, the painted peak and the reserve instead (exit 1 also
when a peak exceeds its bound).
(default programs: the shared corpus files that run on the host).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "pte-corpus")
TARGETS = ["cv32e40p", "cortex-m55", "cortex-m4", "cortex-m0"]
# Shared-corpus programs that run on the host (docs/runtime.md, "Corpus outcomes").
DEFAULT_PROGRAMS = [
    ("AddModel", "upstream/examples__arduino__examples__AddModel__model.pte"),
    ("HelloExecuTorch", "upstream/examples__arduino__examples__HelloExecuTorch__model.pte"),
    ("apple add", "upstream/extension__apple__ExecuTorch____tests____resources__add.pte"),
    ("hist add", "upstream-history/hist-8f6de2cd__extension__module__test__resources__add.pte"),
    ("bundled embedded program (int32)",
     "upstream/extension__module__test__resources__bundled_program.bpte.embedded-program.pte"),
    ("ModuleLinear-no-constant-segment", "upstream/test__models__deprecated__ModuleLinear-no-constant-segment.pte"),
    ("hist model.pte (mean/eq/clone/where)", "upstream-history/hist-89829b5f__extension__module__test__resources__model.pte"),
    ("KeywordSpotting (int8, cortex_m ops)", "upstream/examples__arduino__examples__KeywordSpotting__model.pte"),
]
# Extra arguments per (program, target): KWS needs 28 KiB of RAM, the micro:bit has 16 KiB.
EXTRA_ARGS = {("KeywordSpotting (int8, cortex_m ops)", "cortex-m0"): ["--board", "mps2-an385"]}


def host_run(pte, inputs=(), method="forward"):
    cmd = [os.path.join(ROOT, "build", "host", "tools", "etmcu-cli"), "run", pte, "--method", method, "--json"]
    for f in inputs:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"host run failed: {p.stderr.strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def fw_run(pte, target, inputs=(), method="forward", extra=()):
    cmd = ["/usr/bin/python3", os.path.join(ROOT, "tools", "firmware", "etmcu_fw.py"), pte, "--target", target,
           "--method", method, "--json", "--quiet", *extra]
    for f in inputs:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return json.loads(p.stdout.strip().splitlines()[-1])


def compare(host, fw, rel=1e-6):
    """Returns None when the outputs agree, else a description of the first difference."""
    ho, fo = host["outputs"], fw["outputs"]
    if len(ho) != len(fo):
        return f"{len(fo)} outputs, host has {len(ho)}"
    for i, (h, f) in enumerate(zip(ho, fo)):
        if h["kind"] != f["kind"]:
            return f"output {i}: kind {f['kind']} vs host {h['kind']}"
        if h["kind"] != "tensor":
            if h.get("value") != f.get("value"):
                return f"output {i}: {f.get('value')} vs host {h.get('value')}"
            continue
        if h["dtype"] != f["dtype"] or h["shape"] != f["shape"]:
            return f"output {i}: {f['dtype']}{f['shape']} vs host {h['dtype']}{h['shape']}"
        for k, (a, b) in enumerate(zip(h["values"], f["values"])):
            if isinstance(a, float) and isinstance(b, float):
                if abs(a - b) > rel * max(abs(a), abs(b)):
                    return f"output {i}[{k}]: {b} vs host {a}"
            elif a != b:
                return f"output {i}[{k}]: {b} vs host {a}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("programs", nargs="*")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--m0-board", help="board for every cortex-m0 run (e.g. mps2-an385 for large models)")
    ap.add_argument("--stack", action="store_true", help="cells: stack bound / painted peak / reserved bytes")
    args = ap.parse_args()
    programs = [(os.path.basename(p), p) for p in args.programs] or \
               [(name, os.path.join(CORPUS, rel)) for name, rel in DEFAULT_PROGRAMS]
    targets = args.targets.split(",")
    rows, results, failures = [], {}, 0
    for name, pte in programs:
        host = host_run(pte)
        cells = []
        for t in targets:
            try:
                extra = EXTRA_ARGS.get((name, t), ())
                if t == "cortex-m0" and args.m0_board:
                    extra = ("--board", args.m0_board)
                fw = fw_run(pte, t, extra=extra)
            except RuntimeError as e:
                cells.append(f"error: {str(e).splitlines()[0][:80]}")
                failures += 1
                continue
            diff = compare(host, fw)
            count = fw["cycles"]["total"] if "cycles" in fw else fw["instructions"]["total"]
            unit = "cyc" if "cycles" in fw else "insn"
            board = f" ({fw['board']})" if fw["board"] == "mps2-an385" else ""
            if args.stack:
                ram = fw["ram"]
                over = ram["stack_bound"] is None or ram["stack_peak"] > ram["stack_bound"]
                cells.append(("same" if diff is None else f"DIFF {diff}") + board +
                             f", {ram['stack_bound']:,} / {ram['stack_peak']:,} / {ram['stack_reserved']:,}" +
                             (" **peak above bound**" if over else ""))
                failures += over
            else:
                cells.append(("same" if diff is None else f"DIFF {diff}") + board +
                             f", {count:,} {unit}, .text {fw['flash']['.text']:,}, RAM {fw['ram']['total']:,}")
            failures += diff is not None
            results[f"{name}|{t}"] = fw
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        print(json.dumps(results))
    else:
        print("| program | " + " | ".join(targets) + " |")
        print("|---|" + "---|" * len(targets))
        print("\n".join(rows))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
