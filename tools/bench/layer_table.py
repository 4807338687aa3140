#!/usr/bin/python3
"""Per-layer int8 profile on the CV32E40P, with and without its PULP extensions: every instruction
of one execution, timed on the simulated core by the firmware runner's instruction hooks
(`./etmcu run MODEL.pte --target cv32e40p [--board cv32e40p-pulp] --profile`: exact cycles, the
hooks' own ~100 cycles per instruction included), with the layer's kind, output shape and MACs
read from the program (conv: out pixels x Cout x kH x kW x Cin/groups; depthwise: out elements x
kH x kW; linear: out elements x in features), and each convolution's, depthwise and linear
layer's requantization cycles per output: the firmware without the hooks run again under
`etmcu-sim --trace`, its instructions split into layers at each kernel's entry, and the cycles
of the instructions in the micro-kernels' requantization code (the ranges their assembly marks,
kernels/cortex_m/isa/rv32/requant_range.inc, read from the ELF's .debug_etmcu_requant section)
divided by the layer's outputs. Where the marked code stored fewer bytes than the layer has
outputs, the rest were requantized by C (border windows, small layers), which no range covers:
the share the marked code stored follows in parentheses.

    tools/bench/layer_table.py MODEL.pte [MODEL.pte ...] [--input X.bin] [--markdown]
                               [--no-requant]

prints one table per program (markdown with --markdown, as in docs/int8.md)."""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from etmcu.serialize.pte import decode_json  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opprof  # noqa: E402  (kernel_symbol: an operator's kernel function)

BOARDS = [("cv32e40p", "plain"), ("cv32e40p-pulp", "Xpulp")]


def layers(pte_path):
    """[(instruction, op, kind, out shape, MACs, outputs, kernel)] of the program's first method:
    kernel is a KernelCall's operator with its overload ("cortex_m::pad.out"), else None."""
    doc = decode_json(open(pte_path, "rb").read())
    plan = doc["execution_plan"][0]
    values, ops = plan["values"], plan["operators"]

    def tensor(i):
        v = values[i]
        return v["val"] if v.get("val_type") == "Tensor" else None

    def ints(i):  # an IntList holds the indices of its Int values
        v = values[i]
        if v.get("val_type") != "IntList":
            return None
        return [values[k]["val"].get("int_val", 0) for k in v["val"].get("items", [])]

    rows = []
    for n, ins in enumerate(plan["chains"][0]["instructions"]):
        if ins.get("instr_args_type") != "KernelCall":
            rows.append((n, ins.get("instr_args_type", "?"), "", "", 0, 0, None))
            continue
        a = ins["instr_args"]
        op = ops[a["op_index"]]["name"]
        args = a["args"]
        out = tensor(args[-2]) if len(args) >= 2 else None
        shape = out["sizes"] if out else []
        numel = 1
        for s in shape:
            numel *= s
        kind, macs = op.split("::")[-1], 0
        if op == "cortex_m::quantized_conv2d":
            w = tensor(args[1])["sizes"]  # [Cout, kH, kW, Cin/groups]
            stride = ints(args[3]) or [1, 1]
            kind = ("pointwise" if w[1] == w[2] == 1 else f"conv {w[1]}x{w[2]}") + \
                (f" /{stride[0]}" if stride[0] > 1 else "") + f", {w[3]} -> {w[0]} ch"
            macs = numel * w[1] * w[2] * w[3]
        elif op == "cortex_m::quantized_depthwise_conv2d":
            w = tensor(args[1])["sizes"]  # [1, kH, kW, Cout]
            x = tensor(args[0])["sizes"]
            stride = ints(args[3]) or [1, 1]
            kind = f"depthwise {w[1]}x{w[2]}" + (f" /{stride[0]}" if stride[0] > 1 else "") + \
                f", {x[1]} -> {w[3]} ch"
            macs = numel * w[1] * w[2]
        elif op == "cortex_m::quantized_linear":
            w = tensor(args[1])["sizes"]  # [out, in]
            kind = f"linear {w[1]} -> {w[0]}"
            macs = numel * w[1]
        overload = ops[a["op_index"]].get("overload", "")
        rows.append((n, op, kind, "x".join(str(s) for s in shape), macs, numel,
                     f"{op}.{overload}" if overload else op))
    return rows


def profile(pte, board, inputs):
    cmd = ["/usr/bin/python3", os.path.join(ROOT, "tools", "firmware", "etmcu_fw.py"), pte, "--target",
           "cv32e40p", "--board", board, "--profile", "--json", "--quiet",
           "--stack-bytes", "4096"]  # (the instruction hooks' frames need more than the board's 3 KiB)
    for i in inputs:
        cmd += ["--input", i]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"layer_table: {board}: {p.stderr.strip()}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    return {e["instruction"]: e["ticks"] for e in r["profile"]}, r["cycles"]["execute"], r["int8_kernels"]


def requant_ranges(elf):
    """[(begin, end)] of the .debug_etmcu_requant section (pairs of little-endian words; a function
    --gc-sections dropped reads 0, 0), or None when the file is no little-endian ELF32 or has no
    such section (a firmware built before the kernels marked their requantization)."""
    blob = open(elf, "rb").read()
    if blob[:4] != b"\x7fELF" or blob[4] != 1 or blob[5] != 1:
        return None
    shoff, = struct.unpack_from("<I", blob, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x2E)
    secs = [struct.unpack_from("<10I", blob, shoff + k * shentsize) for k in range(shnum)]
    names = secs[shstrndx][4]
    for sh in secs:
        if blob[names + sh[0]:blob.index(b"\0", names + sh[0])] == b".debug_etmcu_requant":
            words = struct.unpack_from(f"<{sh[5] // 4}I", blob, sh[4])
            return [(b, e) for b, e in zip(words[0::2], words[1::2]) if 0 < b < e]
    return None


def kernel_entries(elf, kernels):
    """{entry address: (start, end)} of the kernel functions of the program's operators (entered
    once per KernelCall; a jump to the entry from inside the function, a loop whose head is its
    first instruction, is not a call)."""
    names = {opprof.kernel_symbol(k) for k in kernels}
    p = subprocess.run(["riscv64-unknown-elf-nm", "-C", "-S", elf], capture_output=True, text=True, check=True)
    entries = {}
    for line in p.stdout.splitlines():
        f = line.split(" ", 3)
        # the kernel function itself: not its lambdas (name::{lambda...}) or GCC's clones
        # (.part, .cold: called from the kernel)
        m = re.match(r"etmcu::kernels::(\w+)\([^()]*\)$", f[3].strip()) if len(f) == 4 else None
        if m and f[2] in "tT" and m.group(1) in names:
            a = int(f[0], 16)
            entries[a] = (a, a + int(f[1], 16))
    return entries


def requant_cycles(pte, board, inputs, kernels):
    """Per KernelCall (in execution order): (cycles in the marked requantization code, bytes it
    stored), from one run of the board's firmware without hooks under etmcu-sim --trace."""
    work = tempfile.mkdtemp(prefix="etmcu-rq-")
    try:
        cmd = ["/usr/bin/python3", os.path.join(ROOT, "tools", "firmware", "etmcu_fw.py"), pte, "--target",
               "cv32e40p", "--board", board, "--json", "--quiet", "--keep", os.path.join(work, "fw")]
        for i in inputs:
            cmd += ["--input", i]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"layer_table: {board}: {p.stderr.strip()}")
        elf = os.path.join(work, "fw", "run", "firmware.elf")
        config = json.load(open(os.path.join(work, "fw", "board.json")))["sim_config"]
        ranges = requant_ranges(elf)
        if not ranges:
            sys.exit(f"layer_table: {board}: {elf} has no .debug_etmcu_requant section (kernels built before "
                     "their requantization was marked?)")
        marked = {f"{a:08x}" for b, e in ranges for a in range(b, e, 2)}
        entries = {f"{a:08x}": span for a, span in kernel_entries(elf, kernels).items()}
        fifo = os.path.join(work, "trace")
        os.mkfifo(fifo)
        sim = subprocess.Popen([os.path.join(ROOT, "build", "host", "sim", "etmcu-sim"), "--config", config,
                                "--trace", fifo, elf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        cyc, stores = [], []
        try:
            with open(fifo) as f:
                seg, in_rq, prev, last_pc = -1, False, 0, ""
                for line in f:
                    w = line.split(" ", 4)
                    if in_rq:
                        cyc[seg] += int(w[0]) - prev
                    if w[1] in marked and seg >= 0:
                        in_rq, prev = True, int(w[0])
                        if w[3].startswith(("sb", "cv.sb")):
                            stores[seg] += 1
                    else:
                        in_rq = False
                        span = entries.get(w[1])
                        if span is not None and not (last_pc and span[0] <= int(last_pc, 16) < span[1]):
                            seg += 1
                            cyc.append(0)
                            stores.append(0)
                    last_pc = w[1]
        finally:
            rc = sim.wait()
        if rc != 0:
            sys.exit(f"layer_table: {board}: etmcu-sim exited with {rc}: {sim.stderr.read().decode()[-500:]}")
        return list(zip(cyc, stores))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(pte, inputs, markdown, requant=True):
    rows = layers(pte)
    prof = [profile(pte, b, inputs) for b, _ in BOARDS]
    calls = [r for r in rows if r[6]]
    rq = [requant_cycles(pte, b, inputs, {r[6] for r in calls}) for b, _ in BOARDS] if requant else None
    if rq:
        for b, per in zip(BOARDS, rq):
            if len(per) != len(calls):
                sys.exit(f"layer_table: {b[0]}: {len(per)} kernel entries in the trace, {len(calls)} KernelCalls")
    head = ["#", "layer", "out", "MACs"]
    for (b, label), (_, _, variant) in zip(BOARDS, prof):
        head += [f"{label} ({variant}) cycles", "MAC/cycle"] + (["requant cycles/output"] if rq else [])
    lines = []
    tot_macs = 0
    k = 0
    for n, op, kind, shape, macs, outputs, kernel in rows:
        if not kind:
            kind = op
        tot_macs += macs
        cells = [str(n), kind, shape, f"{macs:,}" if macs else ""]
        for i, (t, _, _) in enumerate(prof):
            c = t.get(n, 0)
            cells += [f"{c:,}", f"{macs / c:.2f}" if macs and c else ""]
            if rq:
                cell = ""
                if kernel and macs:
                    cy, st = rq[i][k]
                    cell = f"{cy / outputs:.1f}" + (f" ({100 * st / outputs:.0f} %)" if st < outputs else "")
                cells.append(cell)
        k += 1 if kernel else 0
        lines.append(cells)
    total = ["", "execute (no hooks)", "", f"{tot_macs:,}"]
    for _, ex, _ in prof:
        total += [f"{ex:,}", f"{tot_macs / ex:.2f}"] + ([""] if rq else [])
    lines.append(total)
    name = os.path.basename(pte)
    if markdown:
        print(f"\n{name}\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for c in lines:
            print("| " + " | ".join(c) + " |")
    else:
        print(name)
        for c in [head] + lines:
            print("  ".join(f"{x:>14}" if i != 1 else f"{x:<32}" for i, x in enumerate(c)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="+")
    ap.add_argument("--input", action="append", default=[], help="input file(s), as ./etmcu run takes them")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--no-requant", action="store_true", help="leave out the requantization columns (no traced run)")
    args = ap.parse_args(argv)
    for pte in args.programs:
        table(pte, args.input, args.markdown, requant=not args.no_requant)
    return 0


if __name__ == "__main__":
    sys.exit(main())
