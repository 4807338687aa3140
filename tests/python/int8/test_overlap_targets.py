"""Plans below the naive floor on the devices: a pointwise-heavy int8 program (1x1 layers to
fewer, equal, more and odd channel counts, pixel counts off the strip size) exported with its
convolutions' outs overlapping their inputs (lowering/overlap.py pointwise_min_distance) runs on
every target's kernel variant (rv32 and xpulp on the CV32E40P simulator, dsp, mve and scalar on
QEMU) and must print the host's output bits for the whole-tensor plan (`overlap=False`)."""
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

SHAPE = (1, 8, 9, 7)     # 63 pixels: two strips of 30 and a tail of 3
TARGETS = {"cv32e40p": ("cv32e40p", "rv32"), "cv32e40p-pulp": ("cv32e40p", "xpulp"),
           "mps2-an386": ("cortex-m4", "dsp"), "mps3-an547": ("cortex-m55", "mve"),
           "mps2-an385": ("cortex-m0", "scalar")}


def _model():
    torch.manual_seed(21)
    return nn.Sequential(nn.Conv2d(8, 16, 1), nn.ReLU(), nn.Conv2d(16, 16, 1), nn.ReLU(),
                         nn.Conv2d(16, 12, 1), nn.Conv2d(12, 7, 1), nn.ReLU(),
                         nn.Conv2d(7, 20, 1), nn.ReLU(), nn.Conv2d(20, 4, 1)).eval()


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("overlap_targets")
    x = (torch.randn(SHAPE, generator=torch.Generator().manual_seed(3)),)
    a = export(_model(), x, quantize="int8", int8_io=True)
    b = export(_model(), x, quantize="int8", int8_io=True, overlap=False)
    assert a.plan.overlaps >= 4, a.plan.overlaps
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


@pytest.mark.parametrize("board", list(TARGETS))
def test_overlapping_plan_on_target(board, programs):
    over, whole, inp = programs
    target, variant = TARGETS[board]
    p = subprocess.run(["/usr/bin/python3", str(FW), str(over), "--target", target, "--board",
                        board, "--input", str(inp), "--json", "--quiet"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert result["int8_kernels"] == variant
    host = _host(whole, inp)
    assert len(result["outputs"]) == len(host["outputs"]) > 0
    assert corpus_table.compare(host, result) is None, corpus_table.compare(host, result)
