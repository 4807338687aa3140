"""etmcu.Program in-process (issue 18, item 6): ctypes over the host C API (tools/capi,
build/host/tools/libetmcu_host_c.so). Its outputs equal the CLI's (`etmcu-cli run`) to the bit for a
user model and a zoo model, in fp32, int8 and int8 I/O (float inputs quantized as the CLI does);
the program is loaded once and run many times; errors are exceptions with the runtime's message;
and nothing is spawned (subprocess is made to fail)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import user_models as um  # noqa: E402
from zoo_util import exported, random_inputs  # noqa: E402

import etmcu  # noqa: E402
from etmcu.runtime import DEFAULT_LIB  # noqa: E402

CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
pytestmark = pytest.mark.skipif(not CLI.exists() or not DEFAULT_LIB.exists(),
                                reason="host tools not built (./etmcu build)")


def cli_outputs(pte, xs, tmp):
    """Outputs of `etmcu-cli run` with the inputs as .npy files (the reference to match)."""
    files = []
    for i, x in enumerate(xs):
        np.save(tmp / f"in{i}.npy", x)
        files += ["--input", str(tmp / f"in{i}.npy")]
    out = tmp / "out"
    p = subprocess.run([str(CLI), "run", str(pte), *files, "--json", "--output-dir", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    n = len(json.loads(p.stdout.strip().splitlines()[-1])["outputs"])
    return [np.load(out / f"output_{i}.npy") for i in range(n)]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    d = tmp_path_factory.mktemp("program")
    x = torch.randn(1, 40, 49, generator=torch.Generator().manual_seed(0))
    m = um.AudioNet()
    etmcu.export(m, (x,), frontend="fx").save(str(d / "a32.pte"))
    etmcu.export(m, (x,), frontend="fx", quantize="int8").save(str(d / "a8.pte"))
    etmcu.export(m, (x,), frontend="fx", quantize="int8", int8_io=True).save(str(d / "a8io.pte"))
    r = torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    etmcu.export(um.ResCnn(), (r,), frontend="fx", quantize="int8").save(str(d / "res8.pte"))
    return d


@pytest.mark.parametrize("name", ["a32", "a8", "a8io", "res8"])
def test_outputs_equal_the_cli(programs, name, tmp_path):
    pte = programs / f"{name}.pte"
    prog = etmcu.Program(pte)
    shape = prog.input_shapes[0]
    for seed in range(3):          # one load, several runs
        x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        (got,) = prog.run(x)
        (want,) = cli_outputs(pte, [x], tmp_path)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    if name == "a8io":      # int8 I/O: int8 in and out, the recorded quantization exposed
        assert prog.input_dtypes == ["int8"] and got.dtype == np.int8
        assert prog.input_quant[0] is not None and prog.output_quant[0] is not None


def test_zoo_model_equals_the_cli(tmp_path):
    pte = tmp_path / "ds_cnn.pte"
    exported("ds_cnn")[1].save(str(pte))
    xs = [x.numpy() for x in random_inputs("ds_cnn", 1)]
    outs = etmcu.Program(pte).run(xs)
    for a, b in zip(outs, cli_outputs(pte, xs, tmp_path)):
        np.testing.assert_array_equal(a, b)


def test_loaded_once_and_runs_repeat(programs, tmp_path):
    pte = tmp_path / "a8.pte"
    pte.write_bytes((programs / "a8.pte").read_bytes())
    prog = etmcu.Program(pte)
    pte.unlink()                   # the program lives in the process now
    x = np.random.default_rng(7).standard_normal((1, 40, 49)).astype(np.float32)
    y = np.random.default_rng(8).standard_normal((1, 40, 49)).astype(np.float32)
    (a,) = prog.run(x)
    (b,) = prog.run(y)
    (c,) = prog(x)
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    (d,) = prog.run(torch.from_numpy(x))                 # torch tensors too
    np.testing.assert_array_equal(a, d)
    (e,) = prog.run(x.astype(np.float64))               # numpy's default dtype is cast
    np.testing.assert_array_equal(a, e)


def test_errors_carry_the_runtime_message(programs, tmp_path):
    with pytest.raises(RuntimeError, match="cannot open .*missing.pte"):
        etmcu.Program(tmp_path / "missing.pte")
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"\0" * 64)
    with pytest.raises(RuntimeError, match="cannot load program"):
        etmcu.Program(bad)
    with pytest.raises(RuntimeError, match=r"no method 'nope' in the program \(it has: forward\)"):
        etmcu.Program(programs / "a8.pte", method="nope")
    prog = etmcu.Program(programs / "a8.pte")
    # the CLI's messages: shape (the same elements in another layout), dtype, count
    with pytest.raises(RuntimeError, match=r"input 0 \(array\) has shape \[1, 49, 40\], the program "
                                           r"expects \[1, 40, 49\] \(float32\): the same number of"):
        prog.run(np.zeros((1, 49, 40), np.float32))
    with pytest.raises(RuntimeError, match=r"has dtype int32, the program expects float32"):
        prog.run(np.zeros((1, 40, 49), np.int32))
    with pytest.raises(ValueError, match="takes 1 inputs, 2 given"):
        prog.run(np.zeros((1, 40, 49), np.float32), np.zeros(3, np.float32))
    # a failed run leaves the program usable
    (ok,) = prog.run(np.ones((40, 49), np.float32))      # dims of size 1 may be left out
    assert ok.shape == (1, 12)


def test_in_process_nothing_is_spawned(programs, monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("etmcu.Program started a process")
    for name in ("Popen", "run", "call", "check_call", "check_output"):
        monkeypatch.setattr(subprocess, name, refuse)
    import os
    for name in ("system", "popen", "fork", "execv", "execve", "posix_spawn"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse)
    prog = etmcu.Program(programs / "a8.pte")
    (y,) = prog.run(np.zeros((1, 40, 49), np.float32))
    assert y.shape == (1, 12) and y.dtype == np.float32
