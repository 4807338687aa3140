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


def test_stale_mask_is_recorded_again():
    first, _ = run("cv32e40p", "--kernel-paths", "program")
    sizes = pathlib.Path(first["firmware"]).parent / "sizes.json"
    record = json.loads(sizes.read_text())
    record["kernel_paths"] = 0  # as if recorded by kernels that chose no int8 path at all
    sizes.write_text(json.dumps(record))
    again, log = run("cv32e40p", "--kernel-paths", "program")
    assert "stale" in log, log
    assert again["outputs"] == first["outputs"]
    assert again["kernel_paths"] == first["kernel_paths"]
    assert json.loads(sizes.read_text())["kernel_paths"] == int(first["kernel_paths"], 16)
