"""`./etmcu export` command line: prints what it exported, and is deterministic across processes."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn

import etmcu
from etmcu.reference import run_pte
from etmcu.serialize.pte import decode_json

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args, seed="0"):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), PYTHONHASHSEED=seed)
    return subprocess.run([sys.executable, "-m", "etmcu.cli", "export", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_cli_exports_and_reports(tmp_path):
    out = tmp_path / "add.pte"
    proc = _cli("models/add.py:Model", "-o", str(out), "--input-shape", "5", "--input-shape", "5",
                "--input-dtype", "float32")
    assert proc.returncode == 0, proc.stderr
    assert "aten::add.out" in proc.stdout and "lower bound" in proc.stdout
    assert "constant bytes: 0" in proc.stdout and "planned bytes: 96" in proc.stdout
    assert out.read_bytes()[4:8] == b"ET12"


def test_cli_is_deterministic_across_processes(tmp_path):
    a, b = tmp_path / "a.pte", tmp_path / "b.pte"
    assert _cli("models/cnn.py:Model", "-o", str(a), "--input-shape", "1,3,32,32", seed="1").returncode == 0
    assert _cli("models/cnn.py:Model", "-o", str(b), "--input-shape", "1,3,32,32", seed="2").returncode == 0
    assert a.read_bytes() == b.read_bytes()


def test_cli_reports_unsupported_op_with_source_line(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import torch\nfrom torch import nn\n\n\nclass Bad(nn.Module):\n"
                   "    def forward(self, x):\n        return torch.erf(x) + 1\n")
    proc = _cli(f"{src}:Bad", "-o", str(tmp_path / "bad.pte"), "--input-shape", "2,3")
    assert proc.returncode == 1
    assert "torch.erf" in proc.stderr and "bad.py:7" in proc.stderr
    assert not (tmp_path / "bad.pte").exists()


def test_cli_factory_function_and_memory_regions(tmp_path):
    src = tmp_path / "net.py"
    src.write_text("import torch\nfrom torch import nn\n\n\ndef make():\n    torch.manual_seed(0)\n"
                   "    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),\n"
                   "                         nn.Conv2d(8, 8, 3, padding=1), nn.Sigmoid())\n")
    out = tmp_path / "net.pte"
    proc = _cli(f"{src}:make", "-o", str(out), "--input-shape", "1,3,16,16",
                "--memory-regions", "8192,none")
    assert proc.returncode == 0, proc.stderr
    sizes = decode_json(out.read_bytes())["execution_plan"][0]["non_const_buffer_sizes"]
    assert len(sizes) == 3 and sizes[0] == 0 and sizes[1] <= 8192


def test_multiple_outputs_and_int_input():
    class Two(nn.Module):
        def forward(self, x, y):
            s = x * 2.0
            return torch.relu(s), (s + y.float()).view(-1)

    m = Two()
    xs = (torch.randn(2, 3), torch.arange(6, dtype=torch.int64).reshape(2, 3))
    prog = etmcu.export(m, xs)
    doc = decode_json(prog.buffer)
    plan = doc["execution_plan"][0]
    assert len(plan["outputs"]) == 2
    assert plan["values"][plan["inputs"][1]]["val"]["scalar_type"] == "LONG"
    assert "builtins.tuple" in plan["container_meta_type"]["encoded_out_str"]
    outs = run_pte(prog.buffer, [x.numpy() for x in xs])
    for o, r in zip(outs, m(*xs)):
        assert np.allclose(o, r.numpy())
