"""Per-zoo-model table for docs/exporter.md: `PYTHONPATH=python python3 -m etmcu.report [--runtime CLI]`.

Run from the repository root (imports `models.<name>`). For every model: exported ops,
constant bytes, planned bytes vs the lower bound, MACs/params, and the max |error| against
PyTorch eager over 3 random inputs - through the Python reference interpreter, and through the
host runtime CLI when `--runtime build/host/tools/etmcu-cli` is given.
"""

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from . import export
from .reference import run_pte

ZOO = ["add", "mlp", "cnn", "ds_cnn", "mobilenet_v1", "resnet8", "autoencoder"]


def _runtime_outputs(cli, pte, xs, tmp):
    cmd = [cli, "run", str(pte)]
    for i, x in enumerate(xs):
        p = Path(tmp) / f"in{i}.npy"
        np.save(p, x)
        cmd += ["--input", str(p)]
    cmd += ["--output-dir", tmp, "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, (proc.stderr or proc.stdout).strip().splitlines()[-1:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return [np.load(Path(tmp) / f"output_{i}.npy") for i in range(len(report["outputs"]))], None


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", help="path of etmcu-cli to also measure the host runtime error")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path.cwd()))
    from models._counting import count_macs_params
    rows = ["| model | instr | ops | constant bytes | planned bytes | lower bound | planned/LB "
            "| MACs | params | max err (ref interp) | max err (host runtime) |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for name in ZOO:
        mod = importlib.import_module(f"models.{name}")
        model = mod.Model().eval()
        g = torch.Generator().manual_seed(0)
        prog = export(model, tuple(torch.randn(s, generator=g) for s in mod.INPUT_SHAPES))
        macs, params = count_macs_params(model, *[torch.zeros(s) for s in mod.INPUT_SHAPES])
        ops = ", ".join(f"{k.split('::')[1]}x{v}" if v > 1 else k.split("::")[1]
                        for k, v in sorted(prog.ops.items()))
        ref_err, rt_err = 0.0, 0.0
        with tempfile.TemporaryDirectory() as tmp:
            pte = prog.save(Path(tmp) / f"{name}.pte")
            for seed in (11, 12, 13):
                g = torch.Generator().manual_seed(seed)
                xs = [torch.randn(s, generator=g) for s in mod.INPUT_SHAPES]
                with torch.no_grad():
                    ref = model(*xs).numpy()
                scale = float(np.abs(ref).max())
                out = run_pte(prog.buffer, [x.numpy() for x in xs])[0]
                ref_err = max(ref_err, float(np.abs(out - ref).max()) / scale)
                if args.runtime and rt_err is not None:
                    outs, err = _runtime_outputs(args.runtime, pte, [x.numpy() for x in xs], tmp)
                    if outs is None:
                        rt_err = None
                        notes.append(f"{name}: runtime failed: {err}")
                    else:
                        rt_err = max(rt_err, float(np.abs(outs[0] - ref).max()) / scale)
        p = prog.plan
        rt = "n/a" if not args.runtime else ("FAIL" if rt_err is None else f"{rt_err:.1e}")
        rows.append(f"| {name} | {len(prog.method.instructions)} | {ops} | {prog.constant_bytes:,} | "
                    f"{p.planned_bytes:,} | {p.lower_bound:,} | {p.planned_bytes / p.lower_bound:.3f} | "
                    f"{macs:,} | {params:,} | {ref_err:.1e} | {rt} |")
    print("\n".join(rows))
    print("\nErrors are max |out - eager| / max |eager| over 3 seeded random inputs.")
    for n in notes:
        print(f"- {n}")


if __name__ == "__main__":
    main()
