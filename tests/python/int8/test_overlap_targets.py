"""Plans below the naive floor on the devices: an int8 chain of pointwise, depthwise and 3x3
layers exported with their outs over their inputs (lowering/overlap.py: strips and slabs, outs
before and after their inputs) runs on every target's kernel variant (rv32 and xpulp on the
CV32E40P simulator, dsp, mve and scalar on QEMU) and must print the output bits of the
whole-tensor plan (`overlap=False`) on the same target; on the host both plans agree too."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tools" / "firmware"))
import corpus_table  # noqa: E402  (compare())
from etmcu import export  # noqa: E402

pytestmark = pytest.mark.skipif(not CLI.exists() or not SIM.exists(), reason="host tools not built")

SHAPE = (1, 8, 20, 18)   # 360 pixels: 15 strips of 24
TARGETS = {"cv32e40p": ("cv32e40p", "rv32"), "cv32e40p-pulp": ("cv32e40p", "xpulp"),
           "mps2-an386": ("cortex-m4", "dsp"), "mps3-an547": ("cortex-m55", "mve"),
           "mps2-an385": ("cortex-m0", "scalar")}


def _model():
    """Pointwise layers to more, equal, fewer and odd channel counts; depthwise and 3x3 layers
    with stride 1 and 2 and padding (the slabs, their bottom rows padded or not), a stride-2
    depthwise layer without padding (the plain core's direct path at stride 2)."""
    torch.manual_seed(21)
    return nn.Sequential(
        nn.Conv2d(8, 16, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.ReLU(),
        nn.Conv2d(16, 16, 3, stride=2, groups=16), nn.ReLU(),
        nn.Conv2d(16, 16, 1), nn.ReLU(), nn.Conv2d(16, 12, 3, padding=1), nn.ReLU(),
        nn.Conv2d(12, 12, 3, stride=2, padding=1, groups=12), nn.Conv2d(12, 7, 1), nn.ReLU(),
        nn.Conv2d(7, 20, 1), nn.ReLU(), nn.Conv2d(20, 8, 3, stride=2), nn.ReLU(),
        nn.Conv2d(8, 4, 1)).eval()


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("overlap_targets")
    x = (torch.randn(SHAPE, generator=torch.Generator().manual_seed(3)),)
    a = export(_model(), x, quantize="int8", int8_io=True, overlap="every")
    b = export(_model(), x, quantize="int8", int8_io=True, overlap=False)
    assert a.plan.overlaps >= 6, a.plan.overlaps
    assert a.plan.planned_bytes < b.plan.planned_bytes
    inp = out / "in.npy"
    np.save(inp, np.random.default_rng(5).integers(-128, 128, SHAPE).astype(np.int8))
    return a.save(out / "overlap.pte"), b.save(out / "whole.pte"), inp


def _host(pte, inp):
    p = subprocess.run([str(CLI), "run", str(pte), "--input", str(inp), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_host_plans_agree(programs):
    over, whole, inp = programs
    a, b = _host(over, inp), _host(whole, inp)
    assert a["outputs"] and corpus_table.compare(b, a) is None, corpus_table.compare(b, a)


def _target(pte, board, inp):
    target, variant = TARGETS[board]
    p = subprocess.run(["/usr/bin/python3", str(FW), str(pte), "--target", target, "--board",
                        board, "--input", str(inp), "--json", "--quiet"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert result["int8_kernels"] == variant
    return result


@pytest.mark.parametrize("board", list(TARGETS))
def test_overlapping_plan_on_target(board, programs):
    """Each target against its own run of the whole-tensor plan (the int8 .npy input reaches the
    host CLI and the firmware in different layouts, so the host is not the reference here)."""
    over, whole, inp = programs
    a, b = _target(over, board, inp), _target(whole, board, inp)
    assert sum(a["memory"]["planned"]) < sum(b["memory"]["planned"])
    assert len(a["outputs"]) == len(b["outputs"]) > 0
    assert corpus_table.compare(b, a) is None, corpus_table.compare(b, a)
