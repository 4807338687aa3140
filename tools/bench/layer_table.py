#!/usr/bin/python3
"""Per-layer int8 profile on the CV32E40P, with and without its PULP extensions: every instruction
of one execution, timed on the simulated core by the firmware runner's instruction hooks
(`./etmcu run MODEL.pte --target cv32e40p [--board cv32e40p-pulp] --profile`: exact cycles, the
hooks' own ~100 cycles per instruction included), with the layer's kind, output shape and MACs
read from the program (conv: out pixels x Cout x kH x kW x Cin/groups; depthwise: out elements x
kH x kW; linear: out elements x in features).

    tools/bench/layer_table.py MODEL.pte [MODEL.pte ...] [--input X.bin] [--markdown]

prints one table per program (markdown with --markdown, as in docs/int8.md)."""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from etmcu.serialize.pte import decode_json  # noqa: E402

BOARDS = [("cv32e40p", "plain"), ("cv32e40p-pulp", "Xpulp")]


def layers(pte_path):
    """[(instruction, op, kind, out shape, MACs)] of the program's first method."""
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
            rows.append((n, ins.get("instr_args_type", "?"), "", "", 0))
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
        rows.append((n, op, kind, "x".join(str(s) for s in shape), macs))
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


def table(pte, inputs, markdown):
    rows = layers(pte)
    prof = [profile(pte, b, inputs) for b, _ in BOARDS]
    head = ["#", "layer", "out", "MACs"]
    for (b, label), (_, _, variant) in zip(BOARDS, prof):
        head += [f"{label} ({variant}) cycles", "MAC/cycle"]
    lines = []
    tot_macs = 0
    for n, op, kind, shape, macs in rows:
        if not kind:
            kind = op
        tot_macs += macs
        cells = [str(n), kind, shape, f"{macs:,}" if macs else ""]
        for t, _, _ in prof:
            c = t.get(n, 0)
            cells += [f"{c:,}", f"{macs / c:.2f}" if macs and c else ""]
        lines.append(cells)
    total = ["", "execute (no hooks)", "", f"{tot_macs:,}"]
    for _, ex, _ in prof:
        total += [f"{ex:,}", f"{tot_macs / ex:.2f}"]
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
    args = ap.parse_args(argv)
    for pte in args.programs:
        table(pte, args.input, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
