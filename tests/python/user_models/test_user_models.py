"""Issue 18: a user's own models end to end. The three kinds a new user brought (a 1-D conv audio
net with BatchNorm1d and ReLU6, an MLP with softmax, a residual CNN with MaxPool and Dropout)
export to int8 with no fp32 op left in the middle, run on the host runtime as the reference
interpreter does, and every op that does stay fp32 is reported with its layer's module path."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
import user_models as um  # noqa: E402

import etmcu  # noqa: E402
from etmcu.errors import ExportError  # noqa: E402
from etmcu.reference import run_pte  # noqa: E402

CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
MODELS = ["AudioNet", "Mlp", "ResCnn"]
EDGE_OPS = ("cortex_m::quantize_per_tensor", "cortex_m::dequantize_per_tensor")


def export(name, **kw):
    m = getattr(um, name)()
    x = torch.randn(*um.SHAPES[name], generator=torch.Generator().manual_seed(0))
    return m, x, etmcu.export(m, (x,), quantize="int8", frontend="fx", **kw)


def op_sequence(prog):
    ops = prog.method.operators
    return [ops[i][0] for i, _ in prog.method.instructions]


@pytest.mark.parametrize("name", MODELS)
def test_int8_export_has_no_fp32_op_in_the_middle(name):
    _, _, prog = export(name)
    assert prog.fp32_ops == []
    seq = op_sequence(prog)
    middle = [op for op in seq if op not in EDGE_OPS]
    assert all(op.startswith(("cortex_m::", "dim_order_ops::")) for op in middle), seq
    # quantize only at the start, dequantize only at the end
    assert seq[0] == EDGE_OPS[0] and seq[-1] == EDGE_OPS[1]
    assert seq.count(EDGE_OPS[0]) == 1 and seq.count(EDGE_OPS[1]) == 1


def test_conv1d_and_time_mean_run_on_the_2d_int8_kernels():
    _, _, prog = export("AudioNet")
    seq = op_sequence(prog)
    assert seq.count("cortex_m::quantized_conv2d") == 3
    assert seq.count("cortex_m::quantized_avg_pool2d") == 1       # x.mean(-1), no keepdim
    assert "aten::convolution" not in seq and "aten::mean" not in seq
    # one layout copy at the input ([1, 40, 1, 49] to channels-last), none between the layers
    assert seq.count("dim_order_ops::_clone_dim_order") == 1
    # every instruction names its layer (carried in the program's Chain.stacktrace)
    assert prog.method.modules[seq.index("cortex_m::quantized_conv2d"):][:3] == \
        ["net.0", "net.3", "net.6"]


def test_int8_audio_close_to_fp32():
    m, x, prog = export("AudioNet")
    with torch.no_grad():
        ref = m.eval()(x).numpy()
    out = run_pte(prog.buffer, [x.numpy()])[0]
    assert np.abs(out - ref).max() <= 0.05 * np.abs(ref).max()


def test_mean_without_keepdim_and_1d_mean_are_int8():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = nn.Conv2d(3, 8, 3)
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).mean((2, 3)))

    prog = etmcu.export(M(), (torch.randn(1, 3, 8, 8),), quantize="int8", frontend="fx")
    assert prog.fp32_ops == []
    assert "cortex_m::quantized_avg_pool2d" in op_sequence(prog)


class Leftover(nn.Module):
    """A Sequential whose middle layer has no int8 kernel (LayerNorm)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Conv1d(4, 8, 3), nn.LayerNorm(6), nn.Conv1d(8, 8, 1))

    def forward(self, x):
        x = self.net(x)
        return x


def test_fp32_leftover_named_by_module_path_with_reason_and_fix():
    prog = etmcu.export(Leftover(), (torch.randn(1, 4, 8),), quantize="int8", frontend="fx")
    (op,) = prog.fp32_ops
    assert op.op == "aten::native_layer_norm.out" and op.module == "net.1"
    assert "x = self.net(x)" in op.source
    assert op.why and op.fix
    text = prog.summary()
    assert "aten::native_layer_norm.out in net.1" in text and "no int8 layer-norm kernel" in text
    # the two Conv1d layers around it are int8 all the same
    assert op_sequence(prog).count("cortex_m::quantized_conv2d") == 2


def test_calibration_sample_of_wrong_shape_is_refused_with_both_shapes():
    m = um.AudioNet()
    bad = [torch.randn(1, 49, 40) for _ in range(2)]
    with pytest.raises(ExportError) as e:
        etmcu.export(m, (torch.randn(1, 40, 49),), quantize="int8", calibration=bad, frontend="fx")
    msg = str(e.value)
    assert "[1, 49, 40]" in msg and "[1, 40, 49]" in msg and "another layout" in msg


def test_calibration_dir_of_wrong_shape_is_refused(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((49, 40), np.float32))
    m = um.AudioNet()
    with pytest.raises(ExportError) as e:
        etmcu.export(m, (torch.randn(1, 40, 49),), quantize="int8", calibration=str(tmp_path),
                     frontend="fx")
    assert "a.npy" in str(e.value) and "[49, 40]" in str(e.value) and "[1, 40, 49]" in str(e.value)
    # dims of size 1 may be left out: [40, 49] is one sample of [1, 40, 49]
    np.save(tmp_path / "a.npy", np.zeros((40, 49), np.float32))
    etmcu.export(m, (torch.randn(1, 40, 49),), quantize="int8", calibration=str(tmp_path),
                 frontend="fx", verify=False)


# ---- the command line: --weights, the unseeded warning ---------------------------------------
UNSEEDED = """
import torch
from torch import nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)
"""


def cli_export(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, "-m", "etmcu.cli", "export", *map(str, args)],
                          cwd=cwd, env=env, capture_output=True, text=True)


def test_unseeded_module_warns_and_weights_make_it_reproducible(tmp_path):
    src = tmp_path / "mine.py"
    src.write_text(UNSEEDED)
    p = cli_export(f"{src}:Model", "-o", tmp_path / "a.pte", "--input-shape", "1,8")
    assert p.returncode == 0, p.stderr
    assert "warning" in p.stderr and "unseeded" in p.stderr and "--weights" in p.stderr
    torch.manual_seed(5)
    trained = nn.Linear(8, 4)
    torch.save({"fc.weight": trained.weight.data, "fc.bias": trained.bias.data},
               tmp_path / "w.pt")
    outs = []
    for k in range(2):
        p = cli_export(f"{src}:Model", "-o", tmp_path / f"w{k}.pte", "--input-shape", "1,8",
                       "--weights", tmp_path / "w.pt")
        assert p.returncode == 0, p.stderr
        assert "warning" not in p.stderr and "weights: 2 tensors" in p.stdout
        outs.append((tmp_path / f"w{k}.pte").read_bytes())
    assert outs[0] == outs[1]
    x = np.ones((1, 8), np.float32)
    with torch.no_grad():
        want = trained(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(run_pte(outs[0], [x])[0], want, rtol=1e-5, atol=1e-6)


def test_weights_that_do_not_match_are_named(tmp_path):
    src = tmp_path / "mine.py"
    src.write_text(UNSEEDED)
    torch.save({"fc.weight": torch.zeros(3, 8), "head.bias": torch.zeros(4)}, tmp_path / "w.pt")
    p = cli_export(f"{src}:Model", "-o", tmp_path / "a.pte", "--input-shape", "1,8",
                   "--weights", tmp_path / "w.pt")
    assert p.returncode == 1
    assert "missing from the file: fc.bias" in p.stderr
    assert "not in the model: head.bias" in p.stderr
    assert "fc.weight: file [3, 8], model [4, 8]" in p.stderr


def test_seeded_module_does_not_warn(tmp_path):
    p = cli_export(f"{HERE / 'user_models.py'}:Mlp", "-o", tmp_path / "m.pte", "--input-shape",
                   "1,64")
    assert p.returncode == 0 and "warning" not in p.stderr


# ---- the host runtime -------------------------------------------------------------------------
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="host tools not built")


def host_run(pte, *inputs, check=True):
    cmd = [str(CLI), "run", str(pte), "--json"]
    for f in inputs:
        cmd += ["--input", str(f)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


@needs_cli
@pytest.mark.parametrize("name", MODELS)
def test_host_runtime_equals_reference(name, tmp_path):
    _, x, prog = export(name)
    pte = tmp_path / "m.pte"
    prog.save(str(pte))
    np.save(tmp_path / "x.npy", x.numpy())
    res = json.loads(host_run(pte, tmp_path / "x.npy").stdout.strip().splitlines()[-1])
    got = np.array(res["outputs"][0]["values"], np.float32)
    want = run_pte(prog.buffer, [x.numpy()])[0].reshape(-1)
    np.testing.assert_array_equal(got, want)


@needs_cli
def test_npy_input_of_transposed_shape_is_refused(tmp_path):
    _, _, prog = export("AudioNet")
    pte = tmp_path / "a.pte"
    prog.save(str(pte))
    np.save(tmp_path / "t.npy", np.zeros((1, 49, 40), np.float32))
    p = host_run(pte, tmp_path / "t.npy", check=False)
    assert p.returncode != 0
    assert "has shape [1, 49, 40], the program expects [1, 40, 49]" in p.stderr
    assert "another layout" in p.stderr
    np.save(tmp_path / "ok.npy", np.zeros((40, 49), np.float32))     # size-1 dims may go
    host_run(pte, tmp_path / "ok.npy")


@needs_cli
def test_fp32_max_pool_plans_no_indices(tmp_path):
    """nn.MaxPool2d's int64 indices, which nothing reads, get no buffer: the residual CNN's fp32
    plan is 81,920 bytes instead of 114,688 (16 x 16 x 16 indices x 8 bytes), and the host runtime
    still gives the reference interpreter's outputs (to fp32 rounding)."""
    from etmcu.serialize.pte import decode_json
    m = um.ResCnn()
    x = torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    prog = etmcu.export(m, (x,), frontend="fx")
    plan = decode_json(prog.buffer)["execution_plan"][0]
    pools = [i for i in prog.method.instructions
             if prog.method.operators[i[0]][0] == "aten::max_pool2d_with_indices"]
    (pool,) = pools
    idx = plan["values"][pool[1][7]]["val"]
    assert idx["scalar_type"] == "LONG" and idx["sizes"] == [0, 0, 0, 0]
    assert sum(prog.plan.region_sizes) == 81920
    pte = tmp_path / "r.pte"
    prog.save(str(pte))
    np.save(tmp_path / "x.npy", x.numpy())
    res = json.loads(host_run(pte, tmp_path / "x.npy").stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(np.array(res["outputs"][0]["values"], np.float32),
                               run_pte(prog.buffer, [x.numpy()])[0].reshape(-1),
                               rtol=1e-5, atol=1e-6)       # fp32: torch vs C++ last bits


class Acts(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c1, self.a1 = nn.Conv2d(3, 8, 3), nn.Hardswish()
        self.c2, self.a2 = nn.Conv2d(8, 8, 1), nn.SiLU()
        self.c3, self.a3 = nn.Conv2d(8, 8, 1), nn.Hardsigmoid()
        self.c4 = nn.Conv2d(8, 8, 1)

    def forward(self, x):
        x = self.a1(self.c1(x))
        x = self.a2(self.c2(x))
        x = self.a3(self.c3(x))
        return torch.tanh(self.c4(x))


def test_lut_activations_are_int8_and_fp32_decomposed():
    x = torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    p8 = etmcu.export(Acts(), (x,), quantize="int8", frontend="fx")
    assert p8.fp32_ops == []
    assert op_sequence(p8).count("cortex_m::quantized_activation") == 4
    p32 = etmcu.export(Acts(), (x,), frontend="fx")            # verified against eager (1e-4)
    assert "aten::hardswish" not in op_sequence(p32)
    # each table is quantize(f(dequantize(q))) of its calibrated scales, half away from zero
    from etmcu.quantize import activation_lut
    lut = activation_lut(lambda v: v * min(max(v + 3, 0), 6) / 6, (0.05, -10), (0.04, -60))
    q = np.arange(-128, 128)
    real = (q + 10) * 0.05
    want = np.clip(np.floor(np.abs(real * np.clip(real + 3, 0, 6) / 6 / 0.04) + 0.5)
                   * np.sign(real) - 60, -128, 127)
    np.testing.assert_array_equal(lut, want.astype(np.int8))


@needs_cli
def test_lut_activations_host_equals_reference(tmp_path):
    x = torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(2))
    prog = etmcu.export(Acts(), (x,), quantize="int8", frontend="fx")
    pte = tmp_path / "a.pte"
    prog.save(str(pte))
    (got,) = etmcu.Program(pte).run(x)
    np.testing.assert_array_equal(got, run_pte(prog.buffer, [x.numpy()])[0])


class Conv1dVariants(nn.Module):
    """padding='same' with an even kernel (a pad on the time axis), depthwise with dilation, a
    residual add, grouped with stride, a time mean with keepdim."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = nn.Conv1d(8, 8, 4, padding="same")
        self.b = nn.Conv1d(8, 8, 3, groups=8, dilation=2, padding=2)
        self.c = nn.Conv1d(8, 16, 3, groups=2, stride=2)

    def forward(self, x):
        x = torch.relu(self.a(x))
        x = torch.relu(self.b(x)) + x
        return self.c(x).mean(-1, keepdim=True)


def test_conv1d_variants_are_all_int8():
    x = torch.randn(1, 8, 20, generator=torch.Generator().manual_seed(0))
    prog = etmcu.export(Conv1dVariants(), (x,), quantize="int8", frontend="fx")
    assert prog.fp32_ops == []
    seq = op_sequence(prog)
    assert seq.count("cortex_m::pad") == 1 and seq.count("cortex_m::quantized_add") == 1
    assert seq.count("cortex_m::quantized_depthwise_conv2d") == 1
    with torch.no_grad():
        ref = Conv1dVariants().eval()(x).numpy()
    out = run_pte(prog.buffer, [x.numpy()])[0]
    assert out.shape == ref.shape
    assert np.abs(out - ref).max() <= 0.05 * np.abs(ref).max()
    if CLI.exists():
        pte_bytes = prog.buffer
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            prog.save(f"{d}/c.pte")
            (got,) = etmcu.Program(f"{d}/c.pte").run(x)
        np.testing.assert_array_equal(got, run_pte(pte_bytes, [x.numpy()])[0])
