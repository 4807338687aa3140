"""Export every zoo model with both front ends on this torch and compare (docs/exporter.md table).

    tools/torch2/env.sh run python3 tools/torch2/compare.py        # torch 2.6 (chroot)
    PYTHONPATH=python /usr/bin/python3 tools/torch2/compare.py      # torch 1.13 (host; export = make_fx)

Per model and mode (fp32, int8): the wall time of each export (median of --repeat runs, including
the exporter's own verification run), whether the instruction sequences and the files are
identical, the max |fx - export| of the reference interpreter's outputs on 3 seeded inputs
(x output scale; int8: count of differing values), and a short sha256 of each file so runs on two
torch versions can be compared.
"""

import argparse
import hashlib
import importlib
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "python")]

import etmcu  # noqa: E402
from etmcu.reference import run_pte  # noqa: E402

ZOO = ["add", "mlp", "cnn", "ds_cnn", "mobilenet_v1", "resnet8", "autoencoder"]


def inputs(mod, seed):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(s, generator=g) for s in mod.INPUT_SHAPES)


def op_sequence(prog):
    m = prog.method
    return [".".join(x for x in m.operators[i] if x) for i, _ in m.instructions]


def timed(model, xs, frontend, quantize, repeat):
    times, prog = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        prog = etmcu.export(model, xs, frontend=frontend, quantize=quantize)
        times.append(time.perf_counter() - t)
    return prog, statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(ZOO))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"torch {torch.__version__}; export front end = "
          f"{'torch.export' if hasattr(torch, 'export') else 'make_fx (no torch.export)'}")
    print("| model | mode | fx s | export s | same ops | same file | max out diff | sha256 fx | sha256 export |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        mod = importlib.import_module(f"models.{name}")
        model = mod.Model().eval()
        xs = inputs(mod, 0)
        for quantize in (None, "int8"):
            fx, t_fx = timed(model, xs, "fx", quantize, args.repeat)
            ex, t_ex = timed(model, xs, "export", quantize, args.repeat)
            diff = 0.0
            for seed in (11, 12, 13):
                feed = [x.numpy() for x in inputs(mod, seed)]
                for a, b in zip(run_pte(fx.buffer, feed), run_pte(ex.buffer, feed)):
                    if quantize:
                        diff += int(np.count_nonzero(a != b))
                    else:
                        scale = max(float(np.abs(a).max()), 1e-12)
                        diff = max(diff, float(np.abs(a.astype(np.float64) - b).max()) / scale)
            sha = lambda p: hashlib.sha256(p.buffer).hexdigest()[:12]  # noqa: E731
            print(f"| {name} | {quantize or 'fp32'} | {t_fx:.2f} | {t_ex:.2f} | "
                  f"{op_sequence(fx) == op_sequence(ex)} | {fx.buffer == ex.buffer} | "
                  f"{diff:.1e}{' values' if quantize else ''} | {sha(fx)} | {sha(ex)} |",
                  flush=True)


if __name__ == "__main__":
    main()
