#!/usr/bin/python3
"""Device verification on every target: program-load cost, code and stack of the three ways the
firmware can hold a program (docs/bare-metal.md, "Verification on the device").

  embedded   the .pte in the image, Verification::Minimal (verified in full at build time)
  full       the .pte in the image, verified in full at every start (--device-verification)
  ram        the .pte handed over at run time in a RAM buffer (--program-in-ram): always verified

  tools/firmware/verification_table.py [PROGRAM.pte ...] [--json]

Without programs: the shared corpus's AddModel and KeywordSpotting. Prints a markdown table;
exit 1 if a mode gives other outputs than the embedded default.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "pte-corpus", "upstream")
DEFAULT = [os.path.join(CORPUS, "examples__arduino__examples__AddModel__model.pte"),
           os.path.join(CORPUS, "examples__arduino__examples__KeywordSpotting__model.pte")]
# (label, ./etmcu run arguments)
TARGETS = [("cv32e40p", ["--target", "cv32e40p"]),
           ("cv32e40p-pulp", ["--target", "cv32e40p", "--board", "cv32e40p-pulp"]),
           ("cortex-m4", ["--target", "cortex-m4"]),
           ("cortex-m55", ["--target", "cortex-m55"]),
           ("cortex-m33", ["--target", "cortex-m33"]),
           ("cortex-m0", ["--target", "cortex-m0", "--board", "mps2-an385"])]
MODES = [("embedded", []), ("full", ["--device-verification"]), ("ram", ["--program-in-ram"])]


def run(pte, args):
    p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "firmware", "etmcu_fw.py"), pte, *args,
                        "--json", "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{os.path.basename(pte)} {' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", default=DEFAULT)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows, bad = [], 0
    for pte in args.programs:
        for label, targs in TARGETS:
            res = {m: run(pte, targs + margs) for m, margs in MODES}
            counts = {m: r.get("cycles", r.get("instructions")) for m, r in res.items()}
            same = all(r["outputs"] == res["embedded"]["outputs"] for r in res.values())
            bad += not same
            rows.append({"program": os.path.basename(pte), "target": label,
                         "unit": "cycles" if "cycles" in res["embedded"] else "instructions", "same_outputs": same,
                         **{f"{m}_program_load": counts[m]["program_load"] for m in res},
                         **{f"{m}_text": res[m]["flash"][".text"] for m in res},
                         **{f"{m}_stack_bound": res[m]["ram"]["stack_bound"] for m in res},
                         **{f"{m}_stack_peak": res[m]["ram"]["stack_peak"] for m in res}})
    if args.json:
        print(json.dumps(rows))
    else:
        print("| program | target | program load: embedded / full / RAM buffer | `.text` B: embedded / full / RAM "
              "| stack bound B (peak): embedded / full / RAM |")
        print("|---|---|---|---|---|")
        for r in rows:
            u = "cyc" if r["unit"] == "cycles" else "insn"
            load = " / ".join(f"{r[m + '_program_load']:,}" for m, _ in MODES)
            text = " / ".join(f"{r[m + '_text']:,}" for m, _ in MODES)
            stack = " / ".join(f"{r[m + '_stack_bound']:,} ({r[m + '_stack_peak']:,})" for m, _ in MODES)
            note = "" if r["same_outputs"] else " **outputs differ**"
            print(f"| {r['program'].replace('examples__arduino__examples__', '')} | {r['target']} | {load} {u} | "
                  f"{text} | {stack} |{note}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
