"""Issue 18 on the targets: the three user models (int8) give the host runtime's outputs bit for bit
on the CV32E40P simulator and the QEMU Cortex-M boards; the int8 audio model takes >= 10x fewer
cycles than its fp32 program on the CV32E40P; `--profile` names the layers on every target; a too
small --stack-bytes is reported as such. Firmware builds are cached under build/firmware/."""

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
import user_models as um  # noqa: E402

import etmcu  # noqa: E402

CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
MODELS = ["AudioNet", "Mlp", "ResCnn"]
TARGETS = ["cv32e40p", "cortex-m55", "cortex-m4", "cortex-m33", "cortex-m0"]

pytestmark = pytest.mark.skipif(not CLI.exists() or not SIM.exists(), reason="host tools not built")


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    d = tmp_path_factory.mktemp("user_models")
    out = {}
    for name in MODELS:
        m = getattr(um, name)()
        x = torch.randn(*um.SHAPES[name], generator=torch.Generator().manual_seed(0))
        etmcu.export(m, (x,), quantize="int8", frontend="fx").save(str(d / f"{name}8.pte"))
        np.save(d / f"{name}_x.npy",
                np.random.default_rng(5).standard_normal(um.SHAPES[name]).astype(np.float32))
        out[name] = (d / f"{name}8.pte", d / f"{name}_x.npy")
    m = um.AudioNet()
    etmcu.export(m, (torch.randn(1, 40, 49),), frontend="fx").save(str(d / "AudioNet32.pte"))
    out["AudioNet32"] = (d / "AudioNet32.pte", d / "AudioNet_x.npy")
    return out


def fw(*args, check=True):
    p = subprocess.run([sys.executable, str(FW), *map(str, args), "--quiet"], capture_output=True,
                       text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def fw_json(*args):
    return json.loads(fw(*args, "--json").stdout.strip().splitlines()[-1])


def host_values(pte, x):
    p = subprocess.run([str(CLI), "run", str(pte), "--input", str(x), "--json"],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])["outputs"][0]["values"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", MODELS)
def test_outputs_equal_host_on_every_target(programs, name, target):
    pte, x = programs[name]
    board = []
    if target == "cortex-m0" and name == "ResCnn":
        # 20 KiB of activations: not on the micro:bit's 16 KiB of RAM, and the message says where
        p = fw(pte, "--target", target, "--input", x, check=False)
        assert p.returncode == 1 and "does not fit the microbit board's RAM" in p.stderr
        assert "--target cortex-m0 --board mps2-an385" in p.stderr
        assert "--quantize int8" not in p.stderr          # it is int8 already
        board = ["--board", "mps2-an385"]
    res = fw_json(pte, "--target", target, "--input", x, *board)
    assert res["outputs"][0]["values"] == host_values(pte, x)


def test_int8_audio_at_least_10x_fewer_cycles(programs):
    pte8, x = programs["AudioNet"]
    pte32, _ = programs["AudioNet32"]
    c8 = fw_json(pte8, "--target", "cv32e40p", "--input", x)["cycles"]["execute"]
    c32 = fw_json(pte32, "--target", "cv32e40p", "--input", x)["cycles"]["execute"]
    assert c32 >= 10 * c8, (c32, c8)


@pytest.mark.parametrize("target", TARGETS)
def test_profile_names_layers_on_every_target(programs, target):
    pte, x = programs["AudioNet"]
    p = fw(pte, "--target", target, "--input", x, "--profile", "--stack-bytes", "4096",
           *(["--board", "mps2-an385"] if target == "cortex-m0" else []))
    text = p.stdout
    unit = "cycles" if target == "cv32e40p" else "instr."
    assert "profile (" in text and unit in text
    rows = [ln.split() for ln in text.splitlines() if "cortex_m::quantized_conv2d.out" in ln]
    assert [r[1] for r in rows] == ["net.0", "net.3", "net.6"], text
    assert [r[4] for r in rows] == ["376,320", "307,200", "307,200"], text
    assert all(int(r[3].replace(",", "")) > 0 for r in rows)
    assert "fc" in text and "(user_models.py:28)" in text


@pytest.mark.parametrize("target,stack", [("cv32e40p", 512), ("cortex-m0", 256)])
def test_small_stack_is_reported_as_such(programs, target, stack):
    pte, x = programs["Mlp"]
    p = fw(pte, "--target", target, "--input", x, "--stack-bytes", stack, check=False)
    assert p.returncode == 1
    assert f"stack too small on" in p.stderr and f"--stack-bytes {stack} is below" in p.stderr, \
        p.stderr
    assert "Traceback" not in p.stderr


def test_bench_runs_a_users_pte_into_a_scratch_folder(programs):
    """`./etmcu bench --models my.pte`: a user's program as it is (int8 from its ops, MACs from its
    layers); without --output it writes build/bench/results, never the committed bench/results."""
    pte, _ = programs["Mlp"]
    committed = ROOT / "bench" / "results" / "results.csv"
    before = committed.read_bytes() if committed.exists() else None
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench.py"), "--models",
                        str(pte), "--targets", "cv32e40p", "--no-op-profile"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    rows = (ROOT / "build" / "bench" / "results" / "results.csv").read_text().splitlines()
    row = next(r for r in rows if r.startswith("Mlp8,"))
    assert ",int8,cv32e40p,ok,cycles," in row
    assert f",{64 * 128 + 128 * 64 + 64 * 10}," in row          # MACs of the three Linear layers
    assert (committed.read_bytes() if committed.exists() else None) == before
