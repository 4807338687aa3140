"""The host runtime CLI on the shared corpus: outputs checked against numpy computations of what
each program's MANIFEST entry says it computes (never against the runtime's own output)."""
import json
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "pte-corpus"
CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"

pytestmark = pytest.mark.corpus


def run(*args, check=True):
    proc = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def run_json(pte, inputs, tmp_path, extra=()):
    files = []
    for i, array in enumerate(inputs):
        path = tmp_path / f"in{i}.npy"
        np.save(path, array)
        files += ["--input", path]
    out = run("run", pte, *files, "--json", "--output-dir", tmp_path / "out", *extra)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    outputs = [np.load(tmp_path / "out" / f"output_{i}.npy") for i in range(len(result["outputs"]))]
    return result, outputs


@pytest.mark.parametrize("name", ["AddModel", "HelloExecuTorch"])
def test_arduino_add_one(name, tmp_path):
    x = np.random.default_rng(1).standard_normal(3).astype(np.float32)
    result, (y,) = run_json(CORPUS / f"upstream/examples__arduino__examples__{name}__model.pte", [x], tmp_path)
    np.testing.assert_array_equal(y, x + np.float32(1.0))
    assert result["outputs"][0]["dtype"] == "float32" and result["outputs"][0]["shape"] == [3]
    assert result["memory"]["planned"] == [32]


def test_add_two_inputs(tmp_path):
    x, y = np.array([0.25], np.float32), np.array([-4.5], np.float32)
    _, (out,) = run_json(CORPUS / "upstream/extension__apple__ExecuTorch____tests____resources__add.pte", [x, y], tmp_path)
    np.testing.assert_array_equal(out, x + y)


def test_deprecated_constant_buffer_linear(tmp_path):
    x = np.random.default_rng(2).standard_normal((2, 2)).astype(np.float32)
    _, (out,) = run_json(CORPUS / "upstream/test__models__deprecated__ModuleLinear-no-constant-segment.pte", [x], tmp_path)
    np.testing.assert_allclose(out, 3 * x + 2, rtol=1e-6)


def test_int32_program(tmp_path):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, (2, 2), dtype=np.int32)
    y = rng.integers(-1000, 1000, (2, 2), dtype=np.int32)
    pte = CORPUS / "upstream/extension__module__test__resources__bundled_program.bpte.embedded-program.pte"
    _, (out,) = run_json(pte, [x, y], tmp_path)
    np.testing.assert_array_equal(out, 3 * x + 2 + y)


def test_default_inputs_are_ones():
    out = run("run", CORPUS / "upstream/examples__arduino__examples__AddModel__model.pte", "--json")
    assert json.loads(out.stdout.splitlines()[-1])["outputs"][0]["values"] == [2.0, 2.0, 2.0]


def test_bundled_program_all_cases_pass():
    out = run("run", CORPUS / "upstream/extension__module__test__resources__bundled_program.bpte", "--verify")
    assert out.stdout.strip().splitlines()[-1] == "10 passed, 0 failed"


def test_raw_bin_input(tmp_path):
    x = np.array([1.0, -2.0, 8.0], np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    out = run("run", CORPUS / "upstream/examples__arduino__examples__AddModel__model.pte",
              "--input", tmp_path / "x.bin", "--json")
    assert json.loads(out.stdout.splitlines()[-1])["outputs"][0]["values"] == list(map(float, x + 1))


def test_wrong_input_dtype_is_a_clean_error(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(3, np.float64))
    proc = run("run", CORPUS / "upstream/examples__arduino__examples__AddModel__model.pte",
               "--input", tmp_path / "x.npy", check=False)
    assert proc.returncode != 0
    assert "float64" in proc.stderr and "float32" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_backend_and_missing_method_are_clean_errors():
    qnn = CORPUS / "upstream/examples__qualcomm__oss_scripts__llama__artifacts__stories260k_hybrid_llama_qnn.pte"
    proc = run("run", qnn, "--method", "kv_forward", check=False)
    assert proc.returncode != 0 and "QnnBackend" in proc.stderr
    proc = run("run", qnn, check=False)
    assert proc.returncode != 0 and "no method 'forward'" in proc.stderr
    out = run("run", qnn, "--method", "get_max_seq_len", "--json")
    assert json.loads(out.stdout.splitlines()[-1])["outputs"] == [{"kind": "int", "value": 128}]


def test_inspect_reports_header_and_ops():
    out = run("inspect", CORPUS / "upstream/examples__arduino__examples__KeywordSpotting__model.pte", "--json")
    info = json.loads(out.stdout)
    assert info["header"]["magic"] == "eh00" and info["header"]["length"] == 32
    assert info["constant_bytes"] > 0
    ops = run("inspect", CORPUS / "upstream/examples__arduino__examples__KeywordSpotting__model.pte", "--ops").stdout.split()
    assert "cortex_m::quantized_conv2d.out" in ops and ops == sorted(ops)


def test_profile_lists_every_instruction():
    pte = CORPUS / "upstream/extension__module__test__resources__bundled_program.bpte.embedded-program.pte"
    out = run("run", pte, "--profile", "--json")
    result = json.loads(out.stdout.splitlines()[-1])
    assert [row["instruction"] for row in result["profile"]] == [0, 1, 2]
    assert [row["op"] for row in result["profile"]] == ["aten::mul.out", "aten::add.out", "aten::add.out"]
    table = run("run", pte, "--profile").stdout
    assert "aten::add.out" in table and "2 calls" in table
