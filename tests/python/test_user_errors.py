"""User mistakes give one clear message from `etmcu export`, never a Python traceback, in both
front ends (fx; export = torch.export on torch >= 2.1, its ATen front end via make_fx on 1.13).
The message names the layer (module path and source line), the shapes and what to do."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import etmcu

ROOT = Path(__file__).resolve().parents[2]
FRONTENDS = list(etmcu.FRONTENDS)

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
MODELS = {
    "conv": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU())
                self.fc = nn.Linear(8 * 26 * 26, 10)

            def forward(self, x):
                y = self.features(x)
                return self.fc(y.flatten(1))
        """,
    "needs_args": """
        class Model(nn.Module):
            def __init__(self, channels, classes=10):
                super().__init__()
                self.fc = nn.Linear(channels, classes)

            def forward(self, x):
                return self.fc(x)
        """,
    "syntax": """
        class Model(nn.Module):
            def forward(self, x)
                return x
        """,
    "branch": """
        class Gate(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                if x.sum() > 0:
                    return self.fc(x)
                return x

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.gate = Gate()

            def forward(self, x):
                return self.gate(x) * 2
        """,
    "chunk": """
        class Model(nn.Module):
            def forward(self, x):
                a, b = x.chunk(2, dim=1)
                return a * torch.sigmoid(b)
        """,
    "shape_branch": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                if x.shape[-1] == 8:
                    x = self.fc(x)
                return x
        """,
    "lstm": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(8, 16, batch_first=True)
                self.head = nn.Linear(16, 2)

            def forward(self, x):
                y, _ = self.rnn(x)
                return self.head(y[:, -1])
        """,
}


def run_export(tmp_path, name, *args):
    f = tmp_path / f"{name}.py"
    f.write_text(HEADER + textwrap.dedent(MODELS[name]))
    proc = subprocess.run([sys.executable, "-m", "etmcu.cli", "export", f"{f}:Model",
                           "-o", str(tmp_path / "out.pte"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    assert not (tmp_path / "out.pte").exists()
    return proc.stderr


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_wrong_channel_count_names_layer_shapes_and_fix(tmp_path, frontend):
    err = run_export(tmp_path, "conv", "--input-shape", "1,3,28,28", "--frontend", frontend)
    assert "layer 'features.0' (Conv2d)" in err
    assert "float32[1, 3, 28, 28]" in err
    assert "conv.py:12: y = self.features(x)" in err     # where the layer is called
    assert "--input-shape" in err and "dynamic shapes are not supported" in err
    assert len(err.strip().splitlines()) <= 6, err


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_int8_input_dtype_says_to_quantize_instead(tmp_path, frontend):
    err = run_export(tmp_path, "conv", "--input-shape", "1,1,28,28", "--input-dtype", "int8",
                     "--frontend", frontend)
    assert "layer 'features.0' (Conv2d)" in err and "int8[1, 1, 28, 28]" in err
    assert "--quantize int8" in err


def test_constructor_needing_arguments(tmp_path):
    err = run_export(tmp_path, "needs_args", "--input-shape", "1,4")
    assert "needs arguments (channels)" in err and "def make_model():" in err


def test_syntax_error_in_model_file(tmp_path):
    err = run_export(tmp_path, "syntax", "--input-shape", "1,4")
    assert "syntax.py:6: syntax error" in err and "def forward(self, x)" in err


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_data_dependent_control_flow(tmp_path, frontend):
    err = run_export(tmp_path, "branch", "--input-shape", "1,4", "--frontend", frontend)
    assert "data-dependent control flow" in err
    assert "torch.where" in err and "Dynamic shapes are out of scope" in err
    assert "branch.py:11: if x.sum() > 0:" in err
    assert "layer 'gate'" in err
    assert len(err.strip().splitlines()) <= 3, err


def test_lstm_is_named_with_its_layer(tmp_path):
    # The ATen front end has no LSTM: the layer, where it is defined and called, and the way out.
    err = run_export(tmp_path, "lstm", "--input-shape", "1,5,8", "--frontend", "export")
    assert "layer 'rnn' (LSTM) on input float32[1, 5, 8]" in err
    assert "nn.LSTM is exported by the fx front end only (--frontend fx" in err
    assert "lstm.py:8: self.rnn = nn.LSTM(8, 16, batch_first=True)" in err      # defined
    assert "lstm.py:12: y, _ = self.rnn(x)" in err                              # called


def test_lstm_exports_with_fx(tmp_path):
    # fx unrolls it (frontend/recurrent.py); y[:, -1] is a select_copy
    f = tmp_path / "lstm.py"
    f.write_text(HEADER + textwrap.dedent(MODELS["lstm"]))
    proc = subprocess.run([sys.executable, "-m", "etmcu.cli", "export", f"{f}:Model",
                           "-o", str(tmp_path / "out.pte"), "--input-shape", "1,5,8",
                           "--frontend", "fx"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "aten::select_copy.int_out" in proc.stdout


def test_fx_unpacking_a_traced_value(tmp_path):
    import torch
    err = run_export(tmp_path, "chunk", "--input-shape", "2,4", "--frontend", "fx")
    assert "chunk.py:7: a, b = x.chunk(2, dim=1)" in err
    if torch.__version__ < "2":     # torch.fx 1.13 cannot unpack a Proxy
        assert "cannot unpack a traced value" in err
    else:                           # 2.x unpacks it; then chunk itself is not supported
        assert "unsupported operation 'Tensor.chunk'" in err


def test_fx_control_flow_on_a_shape_points_to_the_export_front_end(tmp_path):
    err = run_export(tmp_path, "shape_branch", "--input-shape", "1,8", "--frontend", "fx")
    assert "or its shape" in err and "--frontend export" in err
    assert "shape_branch.py:11: if x.shape[-1] == 8:" in err


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_forward_default_arguments(frontend):
    import torch

    class M(torch.nn.Module):
        def forward(self, x, scale=2.0):
            return x * scale

    prog = etmcu.export(M(), (torch.ones(2, 3),), frontend=frontend)
    assert prog.ops == {"aten::mul.Scalar_out": 1}


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_example_inputs_are_not_modified_by_a_model_that_writes_into_them(frontend):
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            x.add_(1)
            return x * 2

    x = torch.zeros(2, 3)
    try:
        etmcu.export(M(), (x,), frontend=frontend)
    except etmcu.ExportError:
        pass                    # in-place updates of inputs are refused; the point is x
    assert torch.equal(x, torch.zeros(2, 3))
