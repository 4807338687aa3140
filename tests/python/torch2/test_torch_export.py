"""torch.export front end on torch >= 2.1 (run in the Debian 13 chroot: tools/torch2/env.sh).

Every zoo model and the op-coverage models (op_models.py), fp32 and int8, through
`torch.export.export(...).run_decompositions()` must give the same program as the torch.fx front
end on the same torch: the same instruction sequence and the same .pte bytes, and on etmcu's C++
host runtime the same outputs (fp32 within rounding, int8 bit-identical). On torch 1.13 (Debian
12's, no torch.export) the module is skipped with one line; tools/scripts/test.sh runs it in the
chroot.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import etmcu
from op_models import OP_MODELS
from zoo_util import ZOO, random_inputs, zoo_module

if not (hasattr(torch, "export") and hasattr(torch.export, "export")):
    pytest.skip(f"torch {torch.__version__} has no torch.export (run in tools/torch2/env.sh)",
                allow_module_level=True)

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SEEDS = (11, 12, 13)


def op_sequence(prog):
    m = prog.method
    return [".".join(x for x in m.operators[i] if x) for i, _ in m.instructions]


def run_cli(pte, inputs, out_dir):
    if not CLI.exists():
        pytest.fail(f"host runtime CLI not built: {CLI.relative_to(ROOT)} (run ./etmcu build)")
    cmd = [str(CLI), "run", str(pte)]
    for i, x in enumerate(inputs):
        np.save(out_dir / f"input_{i}.npy", x)
        cmd += ["--input", str(out_dir / f"input_{i}.npy")]
    cmd += ["--output-dir", str(out_dir), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return [np.load(out_dir / f"output_{i}.npy") for i in range(len(report["outputs"]))]


def test_default_front_end_is_torch_export():
    assert etmcu.default_frontend() == "export"


def model_and_inputs(name):
    """A zoo model, or one of the op-coverage models of op_models.py, and an input maker."""
    if name in OP_MODELS:
        cls = OP_MODELS[name]

        def make(seed):
            g = torch.Generator().manual_seed(seed)
            return tuple(torch.randn(s, generator=g) for s in cls.INPUT_SHAPES)
        return cls().eval(), make
    return zoo_module(name).Model().eval(), lambda seed: random_inputs(name, seed)


@pytest.mark.parametrize("quantize", [None, "int8"])
@pytest.mark.parametrize("name", ZOO + list(OP_MODELS))
def test_export_front_end_matches_fx(name, quantize, tmp_path):
    model, make_inputs = model_and_inputs(name)
    xs = make_inputs(0)
    # (without the per-instruction debug frames: their source lines may differ between the two
    # tracers; the module paths are compared in test_layer_names_match_fx)
    fx = etmcu.export(model, xs, frontend="fx", quantize=quantize, debug_info=False)
    ex = etmcu.export(model, xs, frontend="export", quantize=quantize, debug_info=False)
    assert op_sequence(ex) == op_sequence(fx)
    assert ex.plan.region_sizes == fx.plan.region_sizes
    assert ex.constant_bytes == fx.constant_bytes
    assert ex.buffer == fx.buffer       # the same program, byte for byte
    fx_pte = fx.save(tmp_path / "fx.pte")
    ex_pte = ex.save(tmp_path / "export.pte")
    for seed in SEEDS:
        inputs = [x.numpy() for x in make_inputs(seed)]
        d_fx, d_ex = tmp_path / f"fx{seed}", tmp_path / f"ex{seed}"
        d_fx.mkdir(), d_ex.mkdir()
        outs_fx, outs_ex = run_cli(fx_pte, inputs, d_fx), run_cli(ex_pte, inputs, d_ex)
        assert len(outs_fx) == len(outs_ex) >= 1
        for a, b in zip(outs_fx, outs_ex):
            assert a.dtype == b.dtype and a.shape == b.shape
            if quantize == "int8":
                assert np.array_equal(a, b), f"{name} int8 seed {seed}: outputs differ"
            else:
                scale = max(float(np.abs(a).max()), 1e-12)
                err = float(np.abs(a.astype(np.float64) - b).max()) / scale
                assert err <= 1e-6, f"{name} seed {seed}: max |fx - export| = {err:.2e} x scale"
        if quantize is None:
            with torch.no_grad():
                ref = model(*make_inputs(seed)).numpy()
            assert np.abs(outs_ex[0] - ref).max() <= 1e-4 * np.abs(ref).max()


def test_cli_prints_and_uses_the_export_front_end(tmp_path):
    out = tmp_path / "cnn.pte"
    proc = subprocess.run([sys.executable, "-m", "etmcu.cli", "export", "models/cnn.py:Model",
                           "-o", str(out), "--no-debug-info"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert f"front end: export (torch {torch.__version__}, the default for this torch)" in proc.stdout
    fx_out = tmp_path / "cnn_fx.pte"
    proc = subprocess.run([sys.executable, "-m", "etmcu.cli", "export", "models/cnn.py:Model",
                           "-o", str(fx_out), "--frontend", "fx", "--no-debug-info"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "front end: fx" in proc.stdout
    assert out.read_bytes() == fx_out.read_bytes()


class _ShapeBranch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        for _ in range(x.shape[0]):     # Python on shapes: torch.export fixes them, fx cannot
            x = x + 1.0
        if x.shape[-1] == 8:
            x = self.fc(x)
        return torch.nn.functional.hardswish(x)     # no handler: torch.export decomposes it


def test_what_only_torch_export_traces():
    """docs/exporter.md's table: shape-dependent Python and a decomposed op export (and verify
    against eager) with torch.export; fx refuses both, naming what to do."""
    x = torch.randn(2, 8)
    prog = etmcu.export(_ShapeBranch(), (x,), frontend="export")
    assert prog.ops == {"aten::add.Scalar_out": 3, "aten::addmm.out": 1, "aten::clamp.out": 2,
                        "aten::div.Scalar_out": 1, "aten::mul.out": 1}
    assert prog.verified_error <= 1e-4
    with pytest.raises(etmcu.ExportError, match="--frontend export"):
        etmcu.export(_ShapeBranch(), (x,), frontend="fx")


USER_MODELS = ROOT / "tests" / "python" / "user_models"


def user_model(name):
    sys.path.insert(0, str(USER_MODELS))
    import user_models as um
    return um, getattr(um, name)(), (torch.randn(*um.SHAPES[name],
                                                 generator=torch.Generator().manual_seed(0)),)


@pytest.mark.parametrize("quantize", [None, "int8"])
@pytest.mark.parametrize("name", ZOO + ["AudioNet", "Mlp", "ResCnn"])
def test_layer_names_match_fx(name, quantize):
    """torch.export's nodes carry nn_module_stack: every instruction gets the same layer (module
    path) as with the fx front end, so profiles and compare name layers on torch 2.x too."""
    from etmcu.layers import program_layers
    if name in ZOO:
        model, make_inputs = model_and_inputs(name)
        xs = make_inputs(0)
    else:
        _, model, xs = user_model(name)
    fx = etmcu.export(model, xs, frontend="fx", quantize=quantize)
    ex = etmcu.export(model, xs, frontend="export", quantize=quantize)
    lf = [r["layer"] for r in program_layers(fx.buffer)]
    le = [r["layer"] for r in program_layers(ex.buffer)]
    assert le == lf
    if name in ("ds_cnn", "AudioNet", "ResCnn"):
        assert len({x for x in le if x}) >= 3, le        # named layers, not all top level


def test_fp32_leftover_names_its_layer_on_torch_export():
    """Module paths also where torch.export keeps dynamo's spelling (forward's first argument not
    named `self`, a Sequential child: "getattr(L.s.net, '1')")."""
    class Net(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8))
            s.blocks = torch.nn.ModuleDict({"head": torch.nn.Linear(8, 4)})

        def forward(s, x):
            return s.blocks["head"](s.net(x))
    prog = etmcu.export(Net(), (torch.randn(2, 8),), frontend="export", quantize="int8")
    (op,) = prog.fp32_ops
    assert op.op == "aten::native_layer_norm.out" and op.module == "net.1"
    assert op.describe().startswith("aten::native_layer_norm.out in net.1 (")
    from etmcu.layers import program_layers
    names = {r["layer"] for r in program_layers(prog.buffer)}
    assert {"net.0", "net.1", "blocks.head"} <= names
