"""int8 bilinear upsampling (issue 18): F.interpolate(mode="bilinear") / nn.Upsample lower to
etmcu::quantized_upsample_bilinear2d, so an int8 program keeps no fp32 op for them; the kernel
equals the reference interpreter bit for bit on the host runtime, the CV32E40P simulator and the
QEMU Cortex-M boards, and stays within 1 LSB of PyTorch's float bilinear of the same int8 values."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import etmcu
from etmcu.layers import program_layers
from etmcu.reference import run_pte
from etmcu.runtime import DEFAULT_LIB

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
OP = "etmcu::quantized_upsample_bilinear2d.out"


class UpNet(nn.Module):
    """A small decoder: conv, bilinear x2 (nn.Upsample), conv, bilinear to a size
    (F.interpolate), conv."""

    def __init__(self, align_corners=False, size=(21, 19)):
        super().__init__()
        torch.manual_seed(4)
        self.enc = nn.Conv2d(3, 8, 3, padding=1, stride=2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=align_corners)
        self.mid = nn.Conv2d(8, 8, 3, padding=1)
        self.dec = nn.Conv2d(8, 2, 1)
        self.ac, self.size = align_corners, size

    def forward(self, x):
        x = torch.relu(self.enc(x))
        x = torch.relu(self.mid(self.up(x)))
        x = F.interpolate(x, size=self.size, mode="bilinear", align_corners=self.ac)
        return self.dec(x)


def export(ac, **kw):
    x = torch.randn(1, 3, 16, 12, generator=torch.Generator().manual_seed(0))
    return etmcu.export(UpNet(ac), (x,), quantize="int8", frontend="fx", **kw), x


@pytest.mark.parametrize("ac", [False, True])
def test_bilinear_is_int8_with_no_fp32_op(ac):
    prog, x = export(ac)
    assert prog.fp32_ops == []
    assert prog.ops[OP] == 2
    assert "aten::upsample_bilinear2d.vec_out" not in prog.ops
    layers = [r["layer"] for r in program_layers(prog.buffer) if r["op"] == OP]
    assert layers == ["up", ""]          # nn.Upsample's path; F.interpolate at the top level


def test_non_integer_scale_factor_stays_fp32_with_the_reason():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return F.interpolate(torch.relu(self.c(x)), scale_factor=1.7, mode="bilinear")
    prog = etmcu.export(M(), (torch.randn(1, 3, 5, 5),), quantize="int8", frontend="fx")
    (op,) = prog.fp32_ops
    assert op.op == "aten::upsample_bilinear2d.vec_out"
    assert "whole output size" in op.why and "size=" in op.fix


@pytest.mark.parametrize("ac", [False, True])
def test_within_one_lsb_of_float_bilinear(ac):
    """The op on its own: PyTorch's float bilinear of the dequantized int8 input, requantized with
    the same scale, differs from the int8 kernel's output by at most 1 (the 1/1024 weights)."""
    from etmcu.reference_int8 import quantized_upsample_bilinear2d
    rng = np.random.default_rng(1)
    worst = 0
    for ho, wo, h, w in [(16, 12, 8, 6), (24, 18, 8, 6), (13, 7, 5, 4), (32, 32, 16, 16)]:
        q = rng.integers(-128, 128, size=(2, 5, h, w)).astype(np.int8)
        out = np.zeros((2, 5, ho, wo), np.int8)
        quantized_upsample_bilinear2d([q, ac, out])
        f = F.interpolate(torch.from_numpy(q.astype(np.float32)), size=(ho, wo),
                          mode="bilinear", align_corners=ac).numpy()
        worst = max(worst, float(np.abs(out - f).max()))
    assert worst <= 1.0


@pytest.mark.skipif(not DEFAULT_LIB.exists(), reason="host tools not built")
@pytest.mark.parametrize("ac", [False, True])
def test_host_runtime_equals_reference(ac, tmp_path):
    prog, x = export(ac)
    prog.save(str(tmp_path / "up.pte"))
    xs = np.random.default_rng(2).standard_normal((1, 3, 16, 12)).astype(np.float32)
    (got,) = etmcu.Program(tmp_path / "up.pte").run(xs)
    np.testing.assert_array_equal(got, run_pte(prog.buffer, [xs])[0])


def fw_json(*args):
    p = subprocess.run([sys.executable, str(FW), *map(str, args), "--quiet", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not CLI.exists() or not SIM.exists(), reason="host tools not built")
@pytest.mark.parametrize("target", ["cv32e40p", "cortex-m55", "cortex-m4", "cortex-m33", "cortex-m0"])
def test_targets_equal_host(target, tmp_path):
    prog, _ = export(False, int8_io=True)
    pte = tmp_path / "up8.pte"
    prog.save(str(pte))
    rng = np.random.default_rng(3)
    # an int8 .npy in logical [N, C, H, W] order (the channels-last input is laid out by the
    # tools), and on the CV32E40P also a float32 one (quantized with the recorded scale)
    xs = [rng.integers(-128, 128, (1, 3, 16, 12)).astype(np.int8)]
    if target == "cv32e40p":
        xs.append(rng.standard_normal((1, 3, 16, 12)).astype(np.float32))
    for k, a in enumerate(xs):
        x = tmp_path / f"x{k}.npy"
        np.save(x, a)
        host = subprocess.run([str(CLI), "run", str(pte), "--input", str(x), "--json"],
                              capture_output=True, text=True, check=True)
        want = json.loads(host.stdout.strip().splitlines()[-1])["outputs"][0]["values"]
        assert fw_json(pte, "--target", target, "--input", x)["outputs"][0]["values"] == want


def test_upstream_ops_keeps_bilinear_in_fp32_and_says_why():
    """--upstream-ops: no etmcu:: operator in the program (upstream ExecuTorch loads it), the two
    bilinear layers left fp32 and reported with the reason and the fix; every op in the program
    is one upstream registers."""
    prog, _ = export(False, upstream_ops=True)
    assert not any(op.startswith("etmcu::") for op in prog.ops), prog.ops
    assert prog.ops.get("aten::upsample_bilinear2d.vec_out", 0) == 2
    left = [o for o in prog.fp32_ops if "upsample_bilinear2d" in o.op]
    assert len(left) == 2 and all("etmcu's own op" in o.why and "--upstream-ops" in o.fix
                                  for o in left), prog.fp32_ops
