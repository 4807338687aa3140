"""What each instruction of a .pte computes, for profiles: its op, the layer (module path) it came
from, the user's source line, the output shape and its multiply-accumulates.

The layer comes from the program itself (Chain.stacktrace, one frame per instruction written by
the exporter: Frame.name = module path "net.0", filename and line of the source), so a profile of
a program on any target can be printed with the names the user gave the layers. Programs without
stack traces (upstream's, older exports) get empty layer names.

MACs: conv = output elements x kH x kW x Cin/groups; depthwise = output elements x kH x kW;
linear / addmm / mm = output elements x input features; every other op 0.
"""

from .serialize.pte import decode_json


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def program_layers(pte_bytes, method=None):
    """[{instruction, op, kind, shape, macs, layer, source}] for one method (default the first;
    `method` is its name)."""
    doc = decode_json(pte_bytes)
    plans = doc["execution_plan"]
    plan = plans[0] if method is None else next((p for p in plans if p["name"] == method), None)
    if plan is None:
        raise ValueError(f"no method '{method}' in the program")
    values, ops = plan["values"], plan["operators"]
    chain = plan["chains"][0]
    traces = chain.get("stacktrace") or []

    def tensor(i):
        v = values[i]
        return v["val"] if v.get("val_type") == "Tensor" else None

    def ints(i):  # an IntList holds the indices of its Int values
        v = values[i]
        if v.get("val_type") != "IntList":
            return None
        return [values[k]["val"].get("int_val", 0) for k in v["val"].get("items", [])]

    rows = []
    for n, ins in enumerate(chain["instructions"]):
        frame = {}
        if n < len(traces) and (traces[n] or {}).get("items"):
            frame = traces[n]["items"][0]
        layer = frame.get("name", "")
        source = f"{frame['filename']}:{frame.get('lineno', 0)}" if frame.get("filename") else ""
        if ins.get("instr_args_type") != "KernelCall":
            rows.append(dict(instruction=n, op=ins.get("instr_args_type", "?"), kind="", shape=[],
                             macs=0, layer=layer, source=source))
            continue
        a = ins["instr_args"]
        o = ops[a["op_index"]]
        op = o["name"] + (f".{o['overload']}" if o.get("overload") else "")
        name = o["name"]
        args = a["args"]
        out = tensor(args[-2]) if len(args) >= 2 else None
        shape = list(out["sizes"]) if out else []
        numel = _numel(shape)
        kind, macs = name.split("::")[-1], 0
        try:
            if name == "cortex_m::quantized_conv2d":
                w = tensor(args[1])["sizes"]  # [Cout, kH, kW, Cin/groups]
                stride = ints(args[3]) or [1, 1]
                kind = ("pointwise" if w[1] == w[2] == 1 else f"conv {w[1]}x{w[2]}") + \
                    (f" /{max(stride)}" if max(stride) > 1 else "") + f", {w[3]} -> {w[0]} ch"
                macs = numel * w[1] * w[2] * w[3]
            elif name == "cortex_m::quantized_depthwise_conv2d":
                w = tensor(args[1])["sizes"]  # [1, kH, kW, Cout]
                x = tensor(args[0])["sizes"]
                stride = ints(args[3]) or [1, 1]
                kind = f"depthwise {w[1]}x{w[2]}" + \
                    (f" /{max(stride)}" if max(stride) > 1 else "") + f", {x[1]} -> {w[3]} ch"
                macs = numel * w[1] * w[2]
            elif name == "cortex_m::quantized_linear":
                w = tensor(args[1])["sizes"]  # [out, in]
                kind = f"linear {w[1]} -> {w[0]}"
                macs = numel * w[1]
            elif name == "aten::convolution":
                w = tensor(args[1])["sizes"]  # [Cout, Cin/groups, k...]
                kind = "conv " + "x".join(str(k) for k in w[2:]) + f", -> {w[0]} ch"
                macs = numel * _numel(w[1:])
            elif name in ("aten::addmm", "aten::mm", "aten::bmm"):
                x = tensor(args[1] if name == "aten::addmm" else args[0])["sizes"]
                kind = f"linear {x[-1]} -> {shape[-1]}"
                macs = numel * x[-1]
        except (TypeError, IndexError, KeyError):
            pass              # an argument that is not what the op's schema says: no MACs
        rows.append(dict(instruction=n, op=op, kind=kind, shape=shape, macs=macs, layer=layer,
                         source=source))
    return rows


def _n(v):
    return f"{v:,}" if v else "-"


def format_profile(rows, unit, note=""):
    """A text table: one row per instruction with layer, op, `unit` (cycles or instructions),
    MACs and MACs per unit, then the total."""
    lines = []
    if note:
        lines.append(note)
    for r in rows:
        r["name"] = r.get("layer") or (f"({r['source']})" if r.get("source") else "-")
    w_layer = max([5] + [len(r["name"]) for r in rows])
    w_op = max([2] + [len(r["op"]) for r in rows])
    lines.append(f"{'#':>4}  {'layer':<{w_layer}}  {'op':<{w_op}}  {unit:>12}  {'MACs':>10}  "
                 f"{'MAC/' + unit[:5]:>10}")
    total = macs = 0
    for r in rows:
        count = r["count"]
        total += count
        macs += r["macs"]
        rate = f"{r['macs'] / count:.3f}" if r["macs"] and count else "-"
        lines.append(f"{r['instruction']:>4}  {r['name']:<{w_layer}}  "
                     f"{r['op']:<{w_op}}  {count:>12,}  {_n(r['macs']):>10}  {rate:>10}")
    rate = f"{macs / total:.3f}" if macs and total else "-"
    lines.append(f"{'':>4}  {'total':<{w_layer}}  {'':<{w_op}}  {total:>12,}  {_n(macs):>10}  "
                 f"{rate:>10}")
    return "\n".join(lines)
