#!/usr/bin/python3
"""Per-layer and per-function int8 profiles of one program on the Cortex-M targets (QEMU):

* per layer: `./etmcu run MODEL.pte --target T --profile` times every instruction of the program
  with the board's SysTick; the ticks are scaled to instructions by that run's own ratio
  (execute instructions / execute ticks), so a layer's figure is approximate (one tick is ~25-40
  instructions, and the runner's hooks add a few hundred instructions per layer);
* per function: the same firmware without hooks under QEMU with bench/qemu_profile's plugin (exact
  executed instructions per address, summed per ELF function): exact.

    tools/bench/arm_profile.py MODEL.pte [--targets cortex-m4 cortex-m55 ...] [--top N]

prints markdown tables (docs/int8.md). Instruction counts are not cycles."""
import argparse
import bisect
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layer_table import layers  # noqa: E402

# target -> (board, QEMU machine)
TARGETS = {
    "cortex-m4": ("mps2-an386", "mps2-an386"),
    "cortex-m33": ("mps2-an505", "mps2-an505"),
    "cortex-m55": ("mps3-an547", "mps3-an547"),
    "cortex-m0": ("mps2-an385", "mps2-an385"),
}
FW = os.path.join(ROOT, "tools", "firmware", "etmcu_fw.py")
PLUGIN_SRC = os.path.join(ROOT, "bench", "qemu_profile", "qemu_func_plugin.c")


def run_fw(pte, target, extra):
    board, _ = TARGETS[target]
    p = subprocess.run(["/usr/bin/python3", FW, pte, "--target", target, "--board", board, "--json", "--quiet"] +
                       extra, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"arm_profile: {target}: {p.stderr.strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def per_function(elf, machine, work):
    lib = os.path.join(work, "plugin.so")
    if not os.path.exists(lib):
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", PLUGIN_SRC, "-o", lib], check=True)
    p = subprocess.run(["arm-none-eabi-nm", "-S", "--defined-only", "-C", elf], capture_output=True, text=True,
                       check=True)
    spans = []
    for ln in p.stdout.splitlines():
        f = ln.split(None, 3)
        if len(f) == 4 and f[2] in "tTW":
            spans.append((int(f[0], 16) & ~1, int(f[1], 16), f[3]))
    spans.sort()
    base = spans[0][0] & ~0xfff
    size = (max(a + n for a, n, _ in spans) - base + 0xfff) & ~0xfff
    out = os.path.join(work, "prof.txt")
    subprocess.run(["qemu-system-arm", "-M", machine, "-display", "none", "-monitor", "none", "-serial", "none",
                    "-chardev", f"file,id=fwout,path={os.path.join(work, 'console.txt')}", "-semihosting-config",
                    "enable=on,target=native,chardev=fwout", "-icount", "shift=0", "-kernel", elf, "-plugin",
                    f"{lib},base={base:#x},size={size:#x},out={out}"], capture_output=True, timeout=1800, check=True)
    starts = [a for a, _, _ in spans]
    per, total = collections.Counter(), 0
    for ln in open(out):
        f = ln.split()
        if f[0] == "total":
            total = int(f[1])
            continue
        if f[0] == "other":
            continue
        a, n = int(f[0], 16), int(f[1])
        i = bisect.bisect_right(starts, a) - 1
        name = spans[i][2] if i >= 0 and a < spans[i][0] + spans[i][1] else "(outside functions)"
        name = name.replace("(anonymous namespace)::", "").split(" [clone")[0]
        per[name.split("(")[0].replace("etmcu::kernels::", "")] += n
    return per, total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--targets", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    ap.add_argument("--top", type=int, default=8, help="functions listed per target")
    args = ap.parse_args(argv)
    rows = layers(args.program)
    runs = {}
    for t in args.targets:
        plain = run_fw(args.program, t, [])
        prof = run_fw(args.program, t, ["--profile", "--stack-bytes", "4096"])
        scale = prof["instructions"]["execute"] / max(1, prof["systick_ticks"]["execute"])
        ticks = {e["instruction"]: e["ticks"] for e in prof["profile"]}
        with tempfile.TemporaryDirectory(prefix="etmcu-armprof-") as work:
            funcs, total = per_function(plain["firmware"], TARGETS[t][1], work)
        runs[t] = (plain, ticks, scale, funcs, total)
    head = ["#", "layer", "out", "MACs"]
    for t in args.targets:
        head += [f"{t} ({runs[t][0]['int8_kernels']}) ≈ instr.", "MAC/instr."]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    tot = 0
    for n, op, kind, shape, macs, _outputs, _kernel in rows:
        tot += macs
        cells = [str(n), kind or op, shape, f"{macs:,}" if macs else ""]
        for t in args.targets:
            _, ticks, scale, _, _ = runs[t]
            c = round(ticks.get(n, 0) * scale)
            cells += [f"{c:,}", f"{macs / c:.2f}" if macs and c else ""]
        print("| " + " | ".join(cells) + " |")
    cells = ["", "execute (exact, no hooks)", "", f"{tot:,}"]
    for t in args.targets:
        ex = runs[t][0]["instructions"]["execute"]
        cells += [f"{ex:,}", f"{tot / ex:.2f}"]
    print("| " + " | ".join(cells) + " |")
    for t in args.targets:
        plain, _, _, funcs, total = runs[t]
        print(f"\n{t} ({plain['int8_kernels']}), exact instructions per function, whole run "
              f"({total:,}; execute {plain['instructions']['execute']:,}):\n")
        print("| function | instructions | share |")
        print("|---|---|---|")
        for name, n in funcs.most_common(args.top):
            print(f"| `{name}` | {n:,} | {100 * n / total:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
