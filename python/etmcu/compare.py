"""`etmcu compare FP32.pte INT8.pte --input DIR`: where int8 loses accuracy, layer by layer.

Both programs run in the reference interpreter (reference.py) on the user's samples. Each int8
instruction that computes a layer carries, in the program (Frame.context, written by the
exporter), the layer of the fp32 model its output approximates and its (scale, zero point); its
dequantized output is compared with the output of that layer's last instruction in the fp32
program. Per layer: SNR = 10 log10(sum ref^2 / sum (ref - int8)^2) over all samples, and the
mean cosine similarity. Then the programs' outputs: SNR, cosine, top-1 agreement between the two
programs, and, when the samples are labelled (DIR/<label>/*.npy), each program's accuracy.

Layers are named by module path ("net.0"), or "@file.py:line" for top-level operations.
"""

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from .layers import program_layers
from .reference import ReferenceProgram


class CompareError(Exception):
    pass


def _keys(rows):
    return [r["layer"] or (f"@{r['source']}" if r["source"] else "") for r in rows]


def _refs(pte_bytes):
    """{instruction: (layer key, scale, zero point)} from the int8 program's frames."""
    from .serialize.pte import decode_json
    chain = decode_json(pte_bytes)["execution_plan"][0]["chains"][0]
    out = {}
    for n, fl in enumerate(chain.get("stacktrace") or []):
        items = (fl or {}).get("items") or []
        ctx = items[0].get("context", "") if items else ""
        if not ctx.startswith("ref="):
            continue
        f = dict(kv.split("=", 1) for kv in ctx.split(";") if "=" in kv)
        out[n] = (f["ref"], float(f["scale"]), int(f["zero_point"]))
    return out


def _input_shapes(pte_bytes):
    from .serialize.pte import decode_json
    plan = decode_json(pte_bytes)["execution_plan"][0]
    return [tuple(plan["values"][i]["val"]["sizes"]) for i in plan["inputs"]]


def _squeezed(shape):
    return [int(d) for d in shape if d != 1]


def load_samples(path, shapes):
    """[(inputs tuple, label or None, file name)] from a .npy/.npz file or a directory of them;
    a directory of subdirectories is a labelled set: DIR/<label>/*.npy (label = the folder's
    name if every name is an integer, else its index in sorted order)."""
    p = Path(path)
    if not p.exists():
        raise CompareError(f"--input {path}: no such file or directory")
    if p.is_file():
        groups = [(None, [p])]
    else:
        subdirs = sorted(d for d in p.iterdir() if d.is_dir())
        if subdirs:
            ints = all(d.name.lstrip("-").isdigit() for d in subdirs)
            groups = [(int(d.name) if ints else i,
                       sorted(f for f in d.iterdir() if f.suffix in (".npy", ".npz")))
                      for i, d in enumerate(subdirs)]
        else:
            groups = [(None, sorted(f for f in p.iterdir() if f.suffix in (".npy", ".npz")))]
    samples = []
    for label, files in groups:
        for f in files:
            if f.suffix == ".npz":
                with np.load(f) as z:
                    arrays = [z[k] for k in z.files]
            else:
                arrays = [np.load(f)]
            if len(arrays) != len(shapes):
                raise CompareError(f"{f}: {len(arrays)} arrays, the program takes {len(shapes)} "
                                   "inputs (use .npz files for several inputs)")
            inputs = []
            for i, (a, s) in enumerate(zip(arrays, shapes)):
                if _squeezed(a.shape) != _squeezed(s):
                    raise CompareError(f"{f}: input {i} has shape {list(a.shape)}, the program "
                                       f"expects {list(s)}")
                inputs.append(a.astype(np.float32).reshape(s))
            samples.append((tuple(inputs), label, f.name))
    if not samples:
        raise CompareError(f"--input {path}: no .npy/.npz samples")
    return samples


class _Stat:
    def __init__(self):
        self.signal = self.noise = self.cos = 0.0
        self.n = 0

    def add(self, ref, got):
        ref = np.asarray(ref, np.float64).reshape(-1)
        got = np.asarray(got, np.float64).reshape(-1)
        self.signal += float(ref @ ref)
        self.noise += float((ref - got) @ (ref - got))
        den = math.sqrt(float(ref @ ref) * float(got @ got))
        self.cos += float(ref @ got) / den if den > 0 else (1.0 if not ref.any() and not got.any()
                                                               else 0.0)
        self.n += 1

    @property
    def snr(self):
        if self.noise == 0:
            return math.inf
        return 10 * math.log10(self.signal / self.noise) if self.signal > 0 else -math.inf

    @property
    def cosine(self):
        return self.cos / self.n if self.n else float("nan")


def compare(fp32_bytes, int8_bytes, samples):
    """Returns {"layers": [{layer, op, snr_db, cosine}], "output": {...}, "samples": n,
    "top1_agreement": k, "accuracy_fp32"/"accuracy_int8": k or None, "labelled": m}."""
    f_rows, q_rows = program_layers(fp32_bytes), program_layers(int8_bytes)
    f_keys = _keys(f_rows)
    last = {}
    for n, k in enumerate(f_keys):
        if k:
            last[k] = n
    refs = _refs(int8_bytes)
    if not refs:
        raise CompareError("the int8 program carries no layer references (export it again with "
                           "this etmcu: its frames name the fp32 layers)")
    order, stats = [], {}
    for n in sorted(refs):
        key = refs[n][0]
        if key in last and key not in stats:
            order.append((key, n))
            stats[key] = _Stat()
    fp, qp = ReferenceProgram(fp32_bytes), ReferenceProgram(int8_bytes)
    out_stat = _Stat()
    wanted = set(last.values())
    agree = labelled = right_f = right_q = 0
    for inputs, label, _ in samples:
        f_vals = {}
        fouts = fp.run(inputs, on_instruction=lambda n, v: f_vals.__setitem__(n, v.copy())
                       if n in wanted else None)
        q_vals = {}
        qouts = qp.run(inputs, on_instruction=lambda n, v: q_vals.__setitem__(n, v.copy())
                       if n in refs else None)
        for key, n in order:
            ref = f_vals[last[key]]
            _, scale, zp = refs[n]
            got = (q_vals[n].astype(np.float64) - zp) * scale
            if ref.size == got.size:
                stats[key].add(ref, got)
        fo, qo = np.asarray(fouts[0], np.float64), np.asarray(qouts[0], np.float64)
        out_stat.add(fo, qo)
        tf, tq = int(np.argmax(fo.reshape(-1))), int(np.argmax(qo.reshape(-1)))
        agree += tf == tq
        if label is not None:
            labelled += 1
            right_f += tf == label
            right_q += tq == label
    op_of = {r["instruction"]: r["op"] for r in q_rows}
    own = dict(zip(range(len(q_rows)), _keys(q_rows)))
    return {
        "samples": len(samples),
        "layers": [{"layer": key if own.get(n) in (key, "") else f"{own[n]} + {key}",
                    "op": op_of.get(n, ""), "snr_db": stats[key].snr,
                    "cosine": stats[key].cosine} for key, n in order if stats[key].n],
        "output": {"snr_db": out_stat.snr, "cosine": out_stat.cosine},
        "top1_agreement": agree,
        "labelled": labelled,
        "accuracy_fp32": right_f if labelled else None,
        "accuracy_int8": right_q if labelled else None,
    }


def format_report(r):
    lines = [f"per-layer error of the int8 program against the fp32 program "
             f"({r['samples']} samples):"]
    w = max([5] + [len(x["layer"]) for x in r["layers"]])
    wo = max([2] + [len(x["op"]) for x in r["layers"]])
    lines.append(f"  {'layer':<{w}}  {'int8 op':<{wo}}  {'SNR dB':>8}  {'cosine':>8}")
    for x in r["layers"]:
        lines.append(f"  {x['layer']:<{w}}  {x['op']:<{wo}}  {x['snr_db']:>8.2f}  "
                     f"{x['cosine']:>8.5f}")
    o = r["output"]
    lines.append(f"  {'output':<{w}}  {'':<{wo}}  {o['snr_db']:>8.2f}  {o['cosine']:>8.5f}")
    n = r["samples"]
    lines.append(f"top-1 agreement int8 vs fp32: {r['top1_agreement']}/{n} "
                 f"({100.0 * r['top1_agreement'] / n:.1f} %)")
    if r["labelled"]:
        m = r["labelled"]
        lines.append(f"accuracy on the labelled samples: fp32 {r['accuracy_fp32']}/{m} "
                     f"({100.0 * r['accuracy_fp32'] / m:.1f} %), int8 {r['accuracy_int8']}/{m} "
                     f"({100.0 * r['accuracy_int8'] / m:.1f} %)")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="etmcu compare",
                                 description="Per-layer error (SNR, cosine) between an fp32 and an "
                                             "int8 program of the same model, top-1 agreement and "
                                             "accuracy on labelled samples.")
    ap.add_argument("fp32", help="the fp32 program (.pte)")
    ap.add_argument("int8", help="the int8 program of the same model (.pte, --quantize int8)")
    ap.add_argument("--input", required=True, metavar="DIR|FILE",
                    help="a .npy/.npz sample, a directory of them, or a labelled directory "
                         "DIR/<label>/*.npy")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        fb, qb = Path(args.fp32).read_bytes(), Path(args.int8).read_bytes()
        shapes = _input_shapes(fb)
        if [_squeezed(s) for s in _input_shapes(qb)] != [_squeezed(s) for s in shapes]:
            raise CompareError(f"the programs take different inputs: {args.fp32} "
                               f"{[list(s) for s in shapes]}, {args.int8} "
                               f"{[list(s) for s in _input_shapes(qb)]}")
        r = compare(fb, qb, load_samples(args.input, shapes))
    except (CompareError, OSError) as e:
        print(f"etmcu compare: error: {e}", file=sys.stderr)
        return 1
    if args.json:
        import json
        print(json.dumps(r))
    else:
        print(format_report(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
