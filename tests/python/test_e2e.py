"""End to end: export every zoo model, run it on the host runtime CLI, compare with PyTorch eager.

Contract (tools/host CLI): `build/host/tools/etmcu-cli run MODEL.pte --input a.npy [--input b.npy]
--output-dir DIR --json` writes output_0.npy ... and prints one JSON line last. These tests fail
(never skip) while the binary is missing, so CI cannot go green without the runtime.
Run the rest with `pytest -k "not e2e"`.
"""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

import etmcu
from op_models import OP_MODELS
from zoo_util import ZOO, exported, random_inputs

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SEEDS = (11, 12, 13)


def run_cli(pte, inputs, out_dir):
    if not CLI.exists():
        pytest.fail(f"host runtime CLI not built: {CLI.relative_to(ROOT)} (run ./etmcu build)")
    cmd = [str(CLI), "run", str(pte)]
    for i, x in enumerate(inputs):
        path = out_dir / f"input_{i}.npy"
        np.save(path, x)
        cmd += ["--input", str(path)]
    cmd += ["--output-dir", str(out_dir), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}\nstdout:{proc.stdout[-2000:]}\nstderr:{proc.stderr[-2000:]}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return report, [np.load(out_dir / f"output_{i}.npy") for i in range(len(report["outputs"]))]


@pytest.mark.parametrize("name", ZOO)
def test_e2e_host_runtime_matches_eager(name, tmp_path):
    model, prog = exported(name)
    pte = prog.save(tmp_path / f"{name}.pte")
    for seed in SEEDS:
        xs = random_inputs(name, seed)
        with torch.no_grad():
            ref = model(*xs).numpy()
        report, outs = run_cli(pte, [x.numpy() for x in xs], tmp_path)
        assert len(outs) == 1
        out = outs[0]
        meta = report["outputs"][0]
        assert meta["kind"] == "tensor" and meta["dtype"] == "float32"
        assert list(meta["shape"]) == list(ref.shape) == list(out.shape)
        err = float(np.abs(out.astype(np.float32) - ref).max())
        scale = float(np.abs(ref).max())
        assert err <= 1e-4 * scale, f"{name} seed {seed}: max|err| {err} vs scale {scale}"
        assert np.allclose(np.asarray(meta["values"], np.float32).reshape(ref.shape), out)
        planned = report.get("memory", {}).get("planned")
        if planned is not None:
            assert list(planned) == prog.plan.region_sizes


@pytest.mark.parametrize("name", sorted(OP_MODELS))
def test_e2e_op_models_on_host_runtime(name, tmp_path):
    """Operators and argument forms outside the zoo (conv1d, bmm, expand, Null optionals,
    N-D linear, sum, eq/where, unfolded BN, ceil-mode pooling) on the host runtime."""
    cls = OP_MODELS[name]
    model = cls().eval()
    gen = torch.Generator().manual_seed(5)
    prog = etmcu.export(model, tuple(torch.randn(s, generator=gen) for s in cls.INPUT_SHAPES))
    pte = prog.save(tmp_path / f"{name}.pte")
    for seed in SEEDS:
        gen = torch.Generator().manual_seed(seed)
        xs = [torch.randn(s, generator=gen) for s in cls.INPUT_SHAPES]
        with torch.no_grad():
            ref = model(*xs).numpy()
        _, outs = run_cli(pte, [x.numpy() for x in xs], tmp_path)
        err = float(np.abs(outs[0] - ref).max())
        assert err <= 1e-4 * float(np.abs(ref).max()), f"{name}: max|err| {err}"
