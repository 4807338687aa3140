"""int8 accuracy evaluation of the zoo, shared by tests/python/quantize and the docs table.

`PYTHONPATH=python /usr/bin/python3 -m etmcu.quant_eval [--runtime build/host/tools/etmcu-cli]
[--n 200]` (from the repo root) prints the table of docs/quantization.md.

Criteria (docs/quantization.md):
  * classifiers (and `add`, `mlp`): top-1 of the int8 program == top-1 of the fp32 eager model,
    on N = 200 seeded standard-normal inputs (seed 2024; calibration uses seed 1000, tracing 0);
  * autoencoder (no classes): the anomaly score, mean((x - AE(x))^2), of the int8 program is
    within 10 % of the fp32 score on >= 95 % of the inputs, and the two scores rank the inputs
    alike (Spearman rank correlation >= 0.99: anomaly detection thresholds / ranks the score);
    the table also gives the median relative reconstruction difference
    ||AE8(x) - AE32(x)|| / ||AE32(x)||.
Runtime vs reference: the host runtime's outputs must equal the Python reference interpreter's
bit for bit. Where a program ends with fp32 ops (mlp's log_softmax), those are computed by two
different float libraries (torch here, the portable C++ kernels there) and may differ in the
last bits; then the int8 part is also compared exactly on the "trunk" program (the model
without its final softmax / log_softmax, ending with cortex_m::dequantize_per_tensor).
"""

import argparse
import copy
import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

from . import export
from .reference import ReferenceProgram

ZOO = ["add", "mlp", "cnn", "ds_cnn", "mobilenet_v1", "resnet8", "autoencoder"]
EVAL_SEED = 2024
SCORE_TOL = 0.10


def zoo_model(name):
    mod = importlib.import_module(f"models.{name}")
    return mod, mod.Model().eval()


def example_inputs(mod):
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(s, generator=g) for s in mod.INPUT_SHAPES)


def eval_inputs(mod, n, seed=EVAL_SEED):
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(s, generator=g).numpy() for s in mod.INPUT_SHAPES)
            for _ in range(n)]


class _MlpLogits(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        m = self.m
        return m.fc3(torch.tanh(m.fc2(torch.relu(m.fc1(x)))))


def trunk(name, model):
    """The model without its final fp32-only softmax (the int8 part of the program)."""
    if name == "mlp":
        return _MlpLogits(model).eval()
    if isinstance(getattr(model, "softmax", None), nn.Softmax):
        m = copy.deepcopy(model)
        m.softmax = nn.Identity()
        return m.eval()
    return model


def eager(model, xs):
    with torch.no_grad():
        return [model(*[torch.from_numpy(v) for v in x]).numpy() for x in xs]


def run_reference(prog, xs):
    rp = ReferenceProgram(prog.buffer)
    return [rp.run(list(x))[0] for x in xs]


def run_runtime(cli, pte, xs, tmp):
    """Outputs of the host runtime CLI for every input (raises on a failing run)."""
    outs = []
    tmp = Path(tmp)
    for k, x in enumerate(xs):
        cmd = [str(cli), "run", str(pte)]
        for i, v in enumerate(x):
            p = tmp / f"in{i}.npy"
            np.save(p, v)
            cmd += ["--input", str(p)]
        od = tmp / "out"
        cmd += ["--output-dir", str(od), "--json"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n"
                               f"{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}")
        json.loads(proc.stdout.strip().splitlines()[-1])
        outs.append(np.load(od / "output_0.npy"))
    return outs


def top1_agreement(ref, outs):
    return sum(int(np.argmax(r) == np.argmax(o)) for r, o in zip(ref, outs))


def ae_scores(xs, ys):
    return np.array([float(np.mean((x[0].reshape(-1).astype(np.float64)
                                    - y.reshape(-1).astype(np.float64)) ** 2))
                     for x, y in zip(xs, ys)])


def ae_agreement(xs, ref, outs):
    """(# inputs whose int8 anomaly score is within SCORE_TOL of fp32, median relative
    reconstruction difference)."""
    s32, s8 = ae_scores(xs, ref), ae_scores(xs, outs)
    ok = int(np.sum(np.abs(s8 - s32) <= SCORE_TOL * s32))
    rel = [float(np.linalg.norm(o - r) / max(np.linalg.norm(r), 1e-30)) for r, o in zip(ref, outs)]
    return ok, float(np.median(rel))


def spearman(a, b):
    ra = np.argsort(np.argsort(a)).astype(np.float64)
    rb = np.argsort(np.argsort(b)).astype(np.float64)
    return float(np.corrcoef(ra, rb)[0, 1])


def ae_rank_correlation(xs, ref, outs):
    return spearman(ae_scores(xs, ref), ae_scores(xs, outs))


def agreement(name, xs, ref, outs):
    if name == "autoencoder":
        return ae_agreement(xs, ref, outs)[0]
    return top1_agreement(ref, outs)


def export_pair(name, model=None, calibration=None):
    mod, m = zoo_model(name)
    model = model if model is not None else m
    ex = example_inputs(mod)
    return (export(model, ex), export(model, ex, quantize="int8", calibration=calibration))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", help="etmcu-cli: also run every input on the host runtime")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--models", default=",".join(ZOO))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path.cwd()))
    rows = ["| model | int8 ops / all | ops left in fp32 | agreement (ref interp) | "
            "agreement (host runtime) | runtime == reference | constant bytes "
            "int8 / fp32 | planned bytes int8 / fp32 |",
            "|---|---|---|---|---|---|---|---|"]
    notes = []
    for name in args.models.split(","):
        mod, model = zoo_model(name)
        p32, p8 = export_pair(name)
        xs = eval_inputs(mod, args.n)
        ref = eager(model, xs)
        o8 = run_reference(p8, xs)
        agree = agreement(name, xs, ref, o8)
        extra = ""
        if name == "autoencoder":
            extra = (f" (score rank corr. {ae_rank_correlation(xs, ref, o8):.4f}, median rel. "
                     f"reconstruction diff {ae_agreement(xs, ref, o8)[1]:.3f})")
        rt_agree, same = "n/a", "n/a"
        if args.runtime:
            with tempfile.TemporaryDirectory() as tmp:
                pte = p8.save(Path(tmp) / "m.pte")
                try:
                    rt = run_runtime(args.runtime, pte, xs, tmp)
                    rt_agree = f"{agreement(name, xs, ref, rt)}/{args.n}"
                    full_same = sum(int(a.tobytes() == b.tobytes()) for a, b in zip(rt, o8))
                    full_diff = max(float(np.abs(a - b).max()) for a, b in zip(rt, o8))
                    tm = trunk(name, model)
                    if full_same == args.n or tm is model:
                        same = f"{full_same}/{args.n}"
                    else:
                        pt = export(tm, example_inputs(mod), quantize="int8")
                        ptp = pt.save(Path(tmp) / "t.pte")
                        ts = sum(int(a.tobytes() == b.tobytes()) for a, b in
                                 zip(run_runtime(args.runtime, ptp, xs, tmp), run_reference(pt, xs)))
                        same = (f"{full_same}/{args.n} (max diff {full_diff:.1e}); int8 trunk "
                                f"{ts}/{args.n}")
                except RuntimeError as e:
                    rt_agree = same = "FAIL"
                    notes.append(f"{name}: {str(e).splitlines()[-1][:300]}")
        n8 = sum(v for k, v in p8.ops.items() if k.startswith("cortex_m::") and
                 "quantize_per_tensor" not in k)
        fp32 = sorted({op.split("::")[1] for op, _ in p8.fp32_ops})
        rows.append(f"| {name} | {n8}/{len(p8.method.instructions)} | "
                    f"{', '.join(fp32) or '-'} | {agree}/{args.n}{extra} | {rt_agree} | {same} | "
                    f"{p8.constant_bytes:,} / {p32.constant_bytes:,} | "
                    f"{p8.plan.planned_bytes:,} / {p32.plan.planned_bytes:,} |")
        print(rows[-1], file=sys.stderr)
    print("\n".join(rows))
    for n in notes:
        print(f"- {n}")


if __name__ == "__main__":
    main()
