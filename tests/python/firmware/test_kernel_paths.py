"""Kernel paths per program (kernels/api/kernel_paths.h, tools/firmware/etmcu_fw.py
--kernel-paths): upstream's KWS firmware keeps only the int8 kernel branches it takes, gives the
reference outputs, and is much smaller than the build with every branch; a mask that no longer
covers the program (a stale record) makes the device answer NotSupported, and the tool records
the paths again instead of failing or printing a wrong result."""
import json
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
UPSTREAM = ROOT.parent / "shared" / "pte-corpus" / "upstream"
KWS = UPSTREAM / "examples__arduino__examples__KeywordSpotting__model.pte"
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"

pytestmark = [pytest.mark.skipif(not SIM.exists(), reason="host tools not built"), pytest.mark.corpus]


def run(target, *extra):
    p = subprocess.run(["/usr/bin/python3", str(FW), str(KWS), "--target", target, "--json", *extra],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


# Two ISAs here (each case is two builds); the KWS targets test runs the program's paths on all
# five boards against upstream's reference bits.
@pytest.mark.parametrize("target,extra", [("cv32e40p", []), ("cortex-m55", [])])
def test_kws_program_paths_are_smaller_and_equal(target, extra):
    full, _ = run(target, *extra, "--kernel-paths", "all")
    mine, _ = run(target, *extra, "--kernel-paths", "program")
    assert full["kernel_paths"] == "all" and mine["kernel_paths"] != "all"
    assert mine["outputs"] == full["outputs"]
    # measured 19-21 KB less (docs/bare-metal.md); 8 KB leaves room for kernel changes
    assert mine["flash"][".text"] < full["flash"][".text"] - 8000, (mine["flash"], full["flash"])


def sizes_json(result):
    """The build's record of a firmware run (run/sizes.json), also when the run's inputs were
    patched into a copy of the firmware (run/inputs-<key>/firmware.elf)."""
    d = pathlib.Path(result["firmware"]).parent
    return (d.parent if d.name.startswith("inputs-") else d) / "sizes.json"


def test_stale_mask_is_recorded_again():
    # (its own stack size: a firmware directory of its own, which no other test's KWS run reads
    # while this one holds a stale record)
    first, _ = run("cv32e40p", "--kernel-paths", "program", "--stack-bytes", "4096")
    sizes = sizes_json(first)
    record = json.loads(sizes.read_text())
    record["kernel_paths"] = 0  # as if recorded by kernels that chose no int8 path at all
    sizes.write_text(json.dumps(record))
    again, log = run("cv32e40p", "--kernel-paths", "program", "--stack-bytes", "4096")
    assert "stale" in log, log
    assert again["outputs"] == first["outputs"]
    assert again["kernel_paths"] == first["kernel_paths"]
    assert json.loads(sizes.read_text())["kernel_paths"] == int(first["kernel_paths"], 16)


def test_mask_recorded_with_other_kernels_is_not_reused():
    """A mask recorded by other kernel sources may keep paths no layer takes any more (their code
    would stay linked): the tool records the paths again instead of reusing it."""
    first, _ = run("cv32e40p", "--kernel-paths", "program", "--stack-bytes", "4160")
    sizes = sizes_json(first)
    record = json.loads(sizes.read_text())
    assert record["kernel_digest"]  # the kernel sources the mask was recorded with
    record["kernel_paths"] = int(first["kernel_paths"], 16) | (1 << 5)  # + kPathConvRef
    record["kernel_digest"] = "0" * 16
    sizes.write_text(json.dumps(record))
    again, _ = run("cv32e40p", "--kernel-paths", "program", "--stack-bytes", "4160")
    assert again["outputs"] == first["outputs"]
    assert again["kernel_paths"] == first["kernel_paths"]


CONV = """import torch

INPUT_SHAPES = [(1, 16, 8, 8)]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(16, 16, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))
"""


def test_stale_mask_of_a_fallback_path_is_recorded_again(tmp_path):
    """MVE's several-run micro-kernel form (kPathMicroMultiRun: a 3x3 convolution's interior
    windows) falls back to the general loop, same bits, when a build leaves it out: a mask
    without it (recorded before the path existed) would only be slower. The run reports the path
    it wanted (K's second field) and the tool records the paths again."""
    import os
    src, pte = tmp_path / "conv.py", tmp_path / "conv.pte"
    src.write_text(CONV)
    subprocess.run(["/usr/bin/python3", "-m", "etmcu.cli", "export", f"{src}:Model", "-o", str(pte),
                    "--quantize", "int8"], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT / "python")),
                   check=True, capture_output=True, timeout=600)

    def run_conv():
        p = subprocess.run(["/usr/bin/python3", str(FW), str(pte), "--target", "cortex-m55", "--json",
                            "--kernel-paths", "program"], capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr

    first, _ = run_conv()
    mask = int(first["kernel_paths"], 16)
    multi_run = 1 << 20  # kPathMicroMultiRun (kernels/cortex_m/util/paths.h)
    assert mask & multi_run, first["kernel_paths"]
    sizes = sizes_json(first)
    record = json.loads(sizes.read_text())
    record["kernel_paths"] = mask & ~multi_run
    sizes.write_text(json.dumps(record))
    again, log = run_conv()
    assert "stale (the run wanted 0x100000)" in log, log
    assert again["outputs"] == first["outputs"]
    assert int(again["kernel_paths"], 16) == mask
