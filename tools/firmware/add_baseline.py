#!/usr/bin/python3
"""The add baseline of docs/bare-metal.md: exports models/add.py (x + y, two f32[5]) and prints the
cycle/instruction tables by phase for every target (CV32E40P with the runtime at -Os and -O2).

Usage: tools/firmware/add_baseline.py [ADD.pte]
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_table import ROOT, fw_run  # noqa: E402

SEED_CYCLES = 11333312
PHASES = [("startup", "start-up (reset → main: counters, .bss, stack paint)"),
          ("program_load", "program load (`Program::load`, verification)"), ("method_load", "method load"),
          ("set_inputs", "set inputs"), ("execute", "execute (`aten::add.out`)"),
          ("print_outputs", "print the five outputs (hex bits)"),
          ("report_and_exit", "report (tick stamps, memory, stack scan) and exit")]


def main():
    if len(sys.argv) > 1:
        pte = sys.argv[1]
    else:
        pte = os.path.join(tempfile.mkdtemp(prefix="etmcu-add-"), "add.pte")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        subprocess.run(["/usr/bin/python3", "-m", "etmcu.cli", "export", "models/add.py:Model", "-o", pte,
                        "--input-shape", "5", "--input-shape", "5"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
    os_, o2 = fw_run(pte, "cv32e40p"), fw_run(pte, "cv32e40p", extra=["--runtime-opt=-O2"])
    print("| phase (cycles) | runtime `-Os` (default) | runtime `-O2` |")
    print("|---|---|---|")
    for key, label in PHASES:
        print(f"| {label} | {os_['cycles'][key]:,} | {o2['cycles'][key]:,} |")
    print(f"| **total, reset to exit** | **{os_['cycles']['total']:,}** | **{o2['cycles']['total']:,}** |")
    print(f"\nspeed-up over the seed: {SEED_CYCLES / os_['cycles']['total']:.0f}x (-Os), "
          f"{SEED_CYCLES / o2['cycles']['total']:.0f}x (-O2)")
    print(f"| `.text` B (shipped: without the runner's report code) | {os_['flash']['.text']:,} "
          f"({os_['flash']['shipped_text']:,}) | {o2['flash']['.text']:,} ({o2['flash']['shipped_text']:,}) |")
    for name, r in (("-Os", os_), ("-O2", o2)):
        print(f"{name}: flash {r['flash']}; ram {r['ram']}")
    print("\n| | " + " | ".join(k.replace("_", " ") for k, _ in PHASES) + " | total | .text | shipped |")
    print("|---|" + "---|" * (len(PHASES) + 3))
    for t, board in (("cortex-m55", "mps3-an547"), ("cortex-m4", "mps2-an386"), ("cortex-m0", "microbit")):
        r = fw_run(pte, t)
        c = r["instructions"]
        print(f"| {t} ({board}) | " + " | ".join(f"{c[k]:,}" for k, _ in PHASES) +
              f" | {c['total']:,} | {r['flash']['.text']:,} | {r['flash']['shipped_text']:,} |")


if __name__ == "__main__":
    main()
