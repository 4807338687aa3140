"""tools/bench/arm_profile.py on a small int8 program on the Cortex-M55: one table row per
instruction of the program, the exact execute count equal to the firmware run's, and per-function
counts whose whole-run total is the plugin's (at least the execute phase)."""
import json
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
TOOL = ROOT / "tools" / "bench" / "arm_profile.py"

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="host tools not built")

MODEL = """import torch
from torch import nn

INPUT_SHAPES = [(1, 8, 6, 6)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.net = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU(), nn.Conv2d(8, 16, 1))

    def forward(self, x):
        return self.net(x)
"""


def test_arm_profile_tables(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    src = tmp_path / "m.py"
    src.write_text(MODEL)
    pte = tmp_path / "m.pte"
    p = subprocess.run(["/usr/bin/python3", "-m", "etmcu.cli", "export", f"{src}:Model", "-o", str(pte),
                        "--quantize", "int8", "--calibration", "4"], cwd=ROOT, env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    p = subprocess.run(["/usr/bin/python3", str(TOOL), str(pte), "--targets", "cortex-m55", "--top", "3"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    layer_rows = [ln for ln in lines if re.match(r"\| \d+ \|", ln)]
    run = subprocess.run(["/usr/bin/python3", str(FW), str(pte), "--target", "cortex-m55", "--json", "--quiet"],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    fw = json.loads(run.stdout.strip().splitlines()[-1])
    # quantize, depthwise, conv, dequantize at least; every instruction of the plan has its row
    assert len(layer_rows) >= 4
    assert any("depthwise 3x3" in ln for ln in layer_rows) and any("pointwise" in ln for ln in layer_rows)
    execute = fw["instructions"]["execute"]
    total_row = next(ln for ln in lines if "execute (exact, no hooks)" in ln)
    assert f"{execute:,}" in total_row
    m = re.search(r"whole run \(([\d,]+); execute ([\d,]+)\)", p.stdout)
    assert m and int(m.group(2).replace(",", "")) == execute
    assert int(m.group(1).replace(",", "")) >= execute
    assert sum(1 for ln in lines if ln.startswith("| `")) == 3
