"""The Arm int8 kernel variants on QEMU against the host's reference kernels, bit for bit: `dsp` on
the Cortex-M4 (mps2-an386), `mve` on the Cortex-M55 (mps3-an547), `scalar` on the Cortex-M0
(mps2-an385).

Per operator: two programs whose outputs are single layers side by side on one input (each output
is one cortex_m::* op between the quantize and dequantize edges, so a difference names the op and
its shape class): pointwise layers (widened-weight runs, odd channel counts), a 3x3 convolution
(interior pixels through the pointwise micro-kernel, border pixels through gathered columns), a
3-channel first layer (repacked columns), depthwise 3x3 and n-row windows with multiplier 1,
multiplier-4 windows (four channels sharing a plane), a 10x4 1 -> 8 first layer, a window wider
than four taps, and linear layers (the second program's input holds NaN, infinities, values past
int32 after scaling and subnormals). Then two of test_random_layers_targets' random chains."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
sys.path.insert(0, str(ROOT / "tools" / "firmware"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import corpus_table  # noqa: E402  (compare())
from test_random_layers_targets import draw_model, model_source  # noqa: E402

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="host tools not built")

# target -> (board, the variant its firmware must use)
TARGETS = {
    "cortex-m4": ("mps2-an386", "dsp"),
    "cortex-m55": ("mps3-an547", "mve"),
    "cortex-m0": ("mps2-an385", "scalar"),
}

OPS_16 = """import torch
from torch import nn

INPUT_SHAPES = [(1, 16, 9, 7)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.pw = nn.Conv2d(16, 12, 1)
        self.pw_odd = nn.Conv2d(16, 7, 1)
        self.pw_s2 = nn.Conv2d(16, 8, 1, stride=2)
        self.conv = nn.Conv2d(16, 8, 3, padding=1)
        self.conv_s2 = nn.Conv2d(16, 4, (3, 2), stride=2, padding=(1, 0))
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.dw_s2 = nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16)
        self.dw_rows = nn.Conv2d(16, 16, (5, 3), padding=(2, 1), groups=16)
        self.dw4 = nn.Conv2d(16, 64, (5, 4), stride=2, padding=(2, 1), groups=16)
        self.dw_wide = nn.Conv2d(16, 16, (3, 5), padding=(1, 2), groups=16)
        self.fc = nn.Linear(16 * 9 * 7, 12)
        self.relu = nn.ReLU()

    def forward(self, x):
        return (self.relu(self.pw(x)), self.pw_odd(x), self.pw_s2(x), self.relu(self.conv(x)),
                self.conv_s2(x), self.dw(x), self.relu(self.dw_s2(x)), self.dw_rows(x),
                self.relu(self.dw4(x)), self.dw_wide(x), self.fc(x.flatten(1)))
"""

OPS_FIRST = """import torch
from torch import nn

INPUT_SHAPES = [(1, 1, 20, 10)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(6)
        self.first = nn.Conv2d(1, 8, (10, 4), stride=2, padding=(5, 1))
        self.expand = nn.Conv2d(1, 3, 1)
        self.rgb = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.dw3 = nn.Conv2d(3, 12, (10, 4), stride=(2, 1), padding=(4, 2), groups=3)
        self.fc = nn.Linear(10, 5)
        self.relu = nn.ReLU()

    def forward(self, x):
        e = self.relu(self.expand(x))
        return self.relu(self.first(x)), self.rgb(e), self.dw3(e), self.fc(x)
"""


# Input values at the float edges' corners (quantize_per_tensor's lanes on the M55): NaN, the
# infinities, values past int32 after scaling, a subnormal, negative zero.
SPECIALS = [np.nan, np.inf, -np.inf, 3e38, -3e38, 1e-40, -1e-40, -0.0]


def export(out, name, source, shape, seed, specials=False):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    src = out / f"{name}.py"
    src.write_text(source)
    pte = out / f"{name}.pte"
    p = subprocess.run(["/usr/bin/python3", "-m", "etmcu.cli", "export", f"{src}:Model", "-o", str(pte),
                        "--quantize", "int8", "--calibration", "8"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr + "\n" + source
    inp = out / f"{name}_in.npy"
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if specials:
        x.reshape(-1)[:len(SPECIALS)] = SPECIALS
    np.save(inp, x)
    return pte, inp


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("int8_cortex_m")
    progs = {
        "ops16": export(out, "ops16", OPS_16, (1, 16, 9, 7), 11),
        "ops_first": export(out, "ops_first", OPS_FIRST, (1, 1, 20, 10), 12, specials=True),
    }
    for seed in (1, 2):
        shape, layers = draw_model(seed)
        src = model_source(shape, seed, layers)
        progs[f"random{seed}"] = export(out, f"random_{seed}", src, shape, seed)
    return progs


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("program", ["ops16", "ops_first", "random1", "random2"])
def test_arm_variant_matches_host_reference(program, target, programs):
    pte, inp = programs[program]
    host = subprocess.run([str(CLI), "run", str(pte), "--input", str(inp), "--json"], capture_output=True,
                          text=True)
    assert host.returncode == 0, host.stderr
    host = json.loads(host.stdout.strip().splitlines()[-1])
    board, variant = TARGETS[target]
    p = subprocess.run(["/usr/bin/python3", str(FW), str(pte), "--target", target, "--board", board,
                        "--input", str(inp), "--json", "--quiet"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert result["int8_kernels"] == variant
    assert len(result["outputs"]) == len(host["outputs"]) > 0
    assert corpus_table.compare(host, result) is None, (program, corpus_table.compare(host, result))
