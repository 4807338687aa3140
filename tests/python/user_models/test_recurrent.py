"""nn.LSTM / nn.GRU in fp32 (frontend/recurrent.py): unrolled over the example's time steps into
select/addmm/slice/sigmoid/tanh/mul/add/cat; the export verifies against eager (<= 1e-4 of the
output scale), the host runtime gives the same outputs, and what is not supported is named."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import etmcu
from etmcu.errors import ExportError

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"


class Seq(nn.Module):
    def __init__(self, kind, layers=1, batch_first=True, use_state=False, bias=True):
        super().__init__()
        torch.manual_seed(3)
        self.kind, self.use_state = kind, use_state
        self.rnn = getattr(nn, kind)(6, 8, num_layers=layers, batch_first=batch_first, bias=bias)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        if self.kind == "LSTM":
            y, (h, c) = self.rnn(x)
            out = self.head(y)
            return (out, h + c) if self.use_state else out
        y, h = self.rnn(x)
        return (self.head(y), h) if self.use_state else self.head(y)


CASES = [("LSTM", 1, True, False, True), ("LSTM", 2, False, True, True),
         ("GRU", 2, True, True, True), ("GRU", 1, False, False, False)]


@pytest.mark.parametrize("kind,layers,batch_first,use_state,bias", CASES)
def test_recurrent_exports_and_matches_eager(kind, layers, batch_first, use_state, bias, tmp_path):
    m = Seq(kind, layers, batch_first, use_state, bias)
    x = torch.randn((2, 5, 6) if batch_first else (5, 2, 6))
    prog = etmcu.export(m, (x,), frontend="fx")     # verify=True: <= 1e-4 x output scale
    assert prog.verified_error <= 1e-4
    ops = {op for op, _ in prog.method.operators}
    assert {"aten::select_copy", "aten::slice_copy", "aten::sigmoid", "aten::tanh",
            "aten::cat"} <= ops
    if not CLI.exists():
        pytest.skip("host tools not built")
    pte = tmp_path / "r.pte"
    prog.save(str(pte))
    np.save(tmp_path / "x.npy", x.numpy())
    p = subprocess.run([str(CLI), "run", str(pte), "--input", str(tmp_path / "x.npy"), "--json"],
                       capture_output=True, text=True, check=True)
    got = json.loads(p.stdout.strip().splitlines()[-1])["outputs"][0]["values"]
    with torch.no_grad():
        want = m(x)
    want = (want[0] if isinstance(want, tuple) else want).numpy().reshape(-1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_unbatched_lstm_with_initial_state():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(4)
            self.rnn = nn.LSTM(4, 5)

        def forward(self, x, h0, c0):
            y, _ = self.rnn(x, (h0, c0))
            return y

    prog = etmcu.export(M(), (torch.randn(6, 4), torch.randn(1, 5), torch.randn(1, 5)),
                        frontend="fx")
    assert prog.verified_error <= 1e-4


def test_unsupported_recurrent_layers_are_named():
    class Bi(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 5, bidirectional=True)

        def forward(self, x):
            return self.rnn(x)[0]

    with pytest.raises(ExportError, match="bidirectional GRU is not supported"):
        etmcu.export(Bi(), (torch.randn(3, 1, 4),), frontend="fx")

    class Plain(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(4, 5)

        def forward(self, x):
            return self.rnn(x)[0]

    with pytest.raises(ExportError, match="nn.RNN is not supported: use nn.GRU or nn.LSTM"):
        etmcu.export(Plain(), (torch.randn(3, 1, 4),), frontend="fx")


def test_basic_indexing_is_select_and_slice():
    class M(nn.Module):
        def forward(self, x):
            return x[:, -1] * 2 + x[..., 0, 1:7:2].sum(-1, keepdim=True) + x[0, 2:4].mean()

    prog = etmcu.export(M(), (torch.randn(2, 5, 8),), frontend="fx")
    ops = {op for op, _ in prog.method.operators}
    assert {"aten::select_copy", "aten::slice_copy"} <= ops


class Up(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        torch.manual_seed(5)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.kw = kw

    def forward(self, x):
        return nn.functional.interpolate(self.conv(x), mode="bilinear", **self.kw)


@pytest.mark.parametrize("kw", [dict(scale_factor=2, align_corners=False),
                                dict(size=(9, 7), align_corners=True),
                                dict(scale_factor=1.5, align_corners=False)])
def test_bilinear_upsampling_fp32(kw, tmp_path):
    m = Up(**kw)
    x = torch.randn(1, 3, 6, 5)
    prog = etmcu.export(m, (x,), frontend="fx")            # verified against eager
    assert "aten::upsample_bilinear2d" in {op for op, _ in prog.method.operators}
    if not CLI.exists():
        pytest.skip("host tools not built")
    pte = tmp_path / "u.pte"
    prog.save(str(pte))
    np.save(tmp_path / "x.npy", x.numpy())
    p = subprocess.run([str(CLI), "run", str(pte), "--input", str(tmp_path / "x.npy"), "--json"],
                       capture_output=True, text=True, check=True)
    got = json.loads(p.stdout.strip().splitlines()[-1])["outputs"][0]["values"]
    with torch.no_grad():
        want = m(x).numpy().reshape(-1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_bilinear_in_an_int8_program():
    """int8 by an integer factor (etmcu::quantized_upsample_bilinear2d, test_upsample.py);
    a factor that gives no whole output size stays fp32 and is reported."""
    prog = etmcu.export(Up(scale_factor=2), (torch.randn(1, 3, 6, 5),), quantize="int8",
                        frontend="fx")
    assert prog.fp32_ops == [] and prog.ops["etmcu::quantized_upsample_bilinear2d.out"] == 1
    prog = etmcu.export(Up(scale_factor=1.5), (torch.randn(1, 3, 5, 5),), quantize="int8",
                        frontend="fx")
    (op,) = prog.fp32_ops
    assert op.op == "aten::upsample_bilinear2d.vec_out" and "whole output sizes" in op.why
