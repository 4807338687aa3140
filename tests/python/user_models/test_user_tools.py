"""Issue 18: the tools around a user's own model: `etmcu compare` (per-layer int8 error, top-1
agreement, accuracy on labelled samples), the Python runtime API etmcu.Program, and the firmware
tool's messages (too-big advice from the boards' real memories, small stacks)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
import user_models as um  # noqa: E402

import etmcu  # noqa: E402
from etmcu.compare import compare, format_report, load_samples  # noqa: E402
from etmcu.layers import format_profile, program_layers  # noqa: E402
from etmcu.reference import run_pte  # noqa: E402

CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"


def _fw_module():
    spec = importlib.util.spec_from_file_location("etmcu_fw_i18",
                                                  ROOT / "tools" / "firmware" / "etmcu_fw.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


fw = _fw_module()


@pytest.fixture(scope="module")
def audio(tmp_path_factory):
    d = tmp_path_factory.mktemp("audio")
    m = um.AudioNet()
    x = torch.randn(1, 40, 49, generator=torch.Generator().manual_seed(0))
    p32 = etmcu.export(m, (x,), frontend="fx")
    p8 = etmcu.export(m, (x,), frontend="fx", quantize="int8")
    p32.save(str(d / "a32.pte"))
    p8.save(str(d / "a8.pte"))
    return d, m


# ---- layer names and MACs from the program ----------------------------------------------------
def test_program_layers_name_every_layer_and_count_macs(audio):
    d, _ = audio
    rows8 = program_layers((d / "a8.pte").read_bytes())
    convs = [r for r in rows8 if r["op"] == "cortex_m::quantized_conv2d.out"]
    assert [r["layer"] for r in convs] == ["net.0", "net.3", "net.6"]
    # Conv1d(40, 64, 3) over 49 frames: 49 x 64 x 3 x 40 MACs; stride 2: 25 frames
    assert [r["macs"] for r in convs] == [49 * 64 * 3 * 40, 25 * 64 * 3 * 64, 25 * 64 * 3 * 64]
    rows32 = program_layers((d / "a32.pte").read_bytes())
    assert sum(r["macs"] for r in rows32) == sum(r["macs"] for r in rows8)
    for r in rows8:
        r["count"] = 1000
    text = format_profile(rows8, "cycles")
    assert "net.3" in text and "cortex_m::quantized_conv2d.out" in text and "MAC/cycle" in text
    assert "(user_models.py:28)" in text          # the top-level mean: named by its source line


# ---- compare -----------------------------------------------------------------------------------
def test_compare_gives_per_layer_snr_and_accuracy(audio, tmp_path):
    d, m = audio
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal((1, 40, 49)).astype(np.float32) for _ in range(12)]
    with torch.no_grad():
        labels = [int(m(torch.from_numpy(x)).argmax()) for x in xs]
    labels[0] = (labels[0] + 1) % 12                  # one wrong label: fp32 accuracy 11/12
    for i, (x, y) in enumerate(zip(xs, labels)):
        (tmp_path / str(y)).mkdir(exist_ok=True)
        np.save(tmp_path / str(y) / f"{i}.npy", x)
    fb, qb = (d / "a32.pte").read_bytes(), (d / "a8.pte").read_bytes()
    r = compare(fb, qb, load_samples(tmp_path, [(1, 40, 49)]))
    names = [x["layer"] for x in r["layers"]]
    assert names[:3] == ["net.0 + net.2", "net.3 + net.5", "net.6 + net.8"]
    assert names[-1] == "fc"
    assert all(x["snr_db"] > 20 and x["cosine"] > 0.99 for x in r["layers"]), r["layers"]
    assert r["samples"] == r["labelled"] == 12
    assert r["accuracy_fp32"] == 11
    assert r["top1_agreement"] >= 10
    text = format_report(r)
    assert "SNR dB" in text and "accuracy on the labelled samples: fp32 11/12" in text


def test_compare_cli_checks_sample_shapes(audio, tmp_path):
    d, _ = audio
    np.save(tmp_path / "t.npy", np.zeros((1, 49, 40), np.float32))
    env = {"PYTHONPATH": str(ROOT / "python")}
    p = subprocess.run([sys.executable, "-m", "etmcu.compare", str(d / "a32.pte"),
                        str(d / "a8.pte"), "--input", str(tmp_path)], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 1
    assert "has shape [1, 49, 40], the program expects [1, 40, 49]" in p.stderr


# ---- host profile -------------------------------------------------------------------------------
@pytest.mark.skipif(not CLI.exists(), reason="host tools not built")
def test_host_profile_names_layers(audio):
    """`./etmcu run m.pte --profile` (no --target): one row per instruction with the layer's module
    path from the program's debug frames, as the firmware profiles print them."""
    d, _ = audio
    p = subprocess.run([str(CLI), "run", str(d / "a8.pte"), "--profile"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    text = p.stdout
    assert "profile (" in text and "ns per program instruction" in text
    rows = [ln.split() for ln in text.splitlines() if "cortex_m::quantized_conv2d.out" in ln
            and not ln.startswith("  cortex_m")]
    assert [r[1] for r in rows] == ["net.0", "net.3", "net.6"], text
    assert all(r[3].isdigit() for r in rows)
    assert any(ln.split()[1:3] == ["fc", "cortex_m::quantized_linear.out"]
               for ln in text.splitlines() if len(ln.split()) >= 3), text
    assert "per operator:" in text and " calls " in text
    # --json: the same names per instruction, equal to the program's frames
    p = subprocess.run([str(CLI), "run", str(d / "a8.pte"), "--profile", "--json"],
                       capture_output=True, text=True)
    prof = json.loads(p.stdout.strip().splitlines()[-1])["profile"]
    layers = {r["instruction"]: r["layer"] for r in program_layers((d / "a8.pte").read_bytes())}
    assert [r["layer"] for r in prof] == [layers[r["instruction"]] for r in prof]
    assert any(r["source"].startswith("user_models.py:") or "user_models.py:" in r["source"]
               for r in prof)


# ---- the Python runtime API --------------------------------------------------------------------
@pytest.mark.skipif(not CLI.exists(), reason="host tools not built")
def test_program_runs_on_the_host_runtime(audio):
    d, _ = audio
    prog = etmcu.Program(d / "a8.pte")
    assert prog.input_shapes == [(1, 40, 49)]
    x = np.random.default_rng(3).standard_normal((1, 40, 49)).astype(np.float32)
    (out,) = prog.run(x)
    np.testing.assert_array_equal(out, run_pte((d / "a8.pte").read_bytes(), [x])[0])
    (out_t,) = prog.run(torch.from_numpy(x))
    np.testing.assert_array_equal(out_t, out)
    with pytest.raises(RuntimeError, match=r"has shape \[1, 49, 40\]"):
        prog.run(np.zeros((1, 49, 40), np.float32))


# ---- firmware messages -------------------------------------------------------------------------
def fake_build(target, board):
    flash, ram = fw.board_memory(board)
    return SimpleNamespace(target=target, info={"board": board, "ram_bytes": ram,
                                                "flash_bytes": flash, "stack_bytes": 3072})


def test_too_big_advice_from_real_memories_and_int8():
    # a 6.3 MB fp32 model on the CV32E40P (4 MiB, one RAM): no board of the same memory is
    # advised, the int8 export is
    b = fake_build("cv32e40p", "cv32e40p")
    e = fw.MemoryOverflow("RAM", 6_300_000 - 4_194_304)
    msg = fw.too_big_message(b, b"\0" * 6_300_000, e, None, quantized=False)
    assert "--quantize int8" in msg
    assert "cv32e40p-pulp" not in msg and "same code, more memory" not in msg
    # an int8 model that does not fit: no int8 advice, no board with too little memory
    msg = fw.too_big_message(b, b"\0" * 6_300_000, e, None, quantized=True)
    assert "--quantize int8" not in msg and "no board etmcu supports has that much memory" in msg
    # the micro:bit's 16 KiB RAM: the boards with more RAM are named
    b = fake_build("cortex-m0", "microbit")
    msg = fw.too_big_message(b, b"\0" * 30_000, fw.MemoryOverflow("RAM", 20_000), None,
                             quantized=True)
    assert "--target cortex-m0 --board mps2-an385" in msg and "--target cortex-m4" in msg


def test_board_memory_follows_includes():
    assert fw.board_memory("cv32e40p-pulp") == fw.board_memory("cv32e40p") == (0, 4 * 1024 * 1024)
    assert fw.board_memory("microbit") == (256 * 1024, 16 * 1024)


def test_small_stack_failures_are_reported_as_such():
    b = fake_build("cv32e40p", "cv32e40p")
    err = fw.small_stack(SimpleNamespace(stack_bytes=512), b, "method load failed: InvalidProgram")
    assert "stack too small on cv32e40p: --stack-bytes 512 is below the board's default of 3072" \
        in str(err)
    assert fw.small_stack(SimpleNamespace(stack_bytes=None), b, "x") is None
    assert fw.small_stack(SimpleNamespace(stack_bytes=8192), b, "x") is None
