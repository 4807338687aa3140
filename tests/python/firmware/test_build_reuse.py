"""What tools/firmware/etmcu_fw.py builds again and what it reuses (docs/bare-metal.md, "What
the firmware tests cost"): a new program's sizing firmware is built and run once, also when the
firmware that recorded its kernel paths and asked the kernels' temp gives way to the one that
ships; a --profile firmware links beside the board's libraries; an ELF's stack bound and sizes
are read again only when the ELF changes; a model directory removed and made again still builds.
Each test uses programs exported for this session (their weights drawn from a fresh seed), so
their firmware is new to the build cache whatever ran before."""
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
FW = ROOT / "tools" / "firmware" / "etmcu_fw.py"
sys.path.insert(0, str(ROOT / "tests" / "python"))
from export_batch import export_all  # noqa: E402

pytestmark = pytest.mark.skipif(not SIM.exists(), reason="host tools not built")

MODEL = """import torch

INPUT_SHAPES = [(1, 8, 6, 6)]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed({seed})
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x)){tail}
"""
@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """Two small programs new to the cache: an int8 convolution (cortex_m ops: its kernel paths
    are recorded) and a float one."""
    out = tmp_path_factory.mktemp("reuse")
    seed = random.SystemRandom().randrange(1 << 30)
    exports, ptes = [], {}
    for name, tail, extra in (("int8", "", ["--quantize", "int8", "--calibration", "4"]),
                              ("float", " * 0.5", [])):
        src = out / f"{name}.py"
        src.write_text(MODEL.format(seed=seed, tail=tail))
        ptes[name] = out / f"{name}.pte"
        exports.append(["export", f"{src}:Model", "-o", str(ptes[name]), *extra])
    p = export_all(exports)
    assert p.returncode == 0, p.stderr[-6000:]
    return ptes


def run(pte, *extra):
    p = subprocess.run(["/usr/bin/python3", str(FW), str(pte), "--target", "cv32e40p", "--json", *extra],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def model_dir(result):
    """build/firmware/<board>/models/<program>: the firmware is its run/firmware.elf, or a copy
    with other inputs patched in, run/inputs-<key>/firmware.elf."""
    run_dir = pathlib.Path(result["firmware"]).parent
    return (run_dir.parent if run_dir.name.startswith("inputs-") else run_dir).parent


def test_a_new_program_is_sized_once(programs):
    result, log = run(programs["int8"])
    # The first build asks the int8 kernels' temp (a pool with room for any answer); the one that
    # ships is built again with the pool the answer sizes, and without the question.
    asked = re.search(r"building firmware \(.*, temp (\d+) B\)", log)
    assert asked and int(asked.group(1)) != result["memory"]["temp_bytes"], log
    assert log.count("sizing the method on") == 1, log


def test_profile_links_beside_the_board_libraries(programs):
    plain, _ = run(programs["int8"])
    profiled, _ = run(programs["int8"], "--profile")
    assert profiled["profile"] and "profile" not in plain
    assert profiled["outputs"] == plain["outputs"]
    assert model_dir(profiled).parent == model_dir(plain).parent  # the same board directory
    assert model_dir(profiled) != model_dir(plain)


def test_an_elf_is_read_again_only_when_it_changes(programs):
    first, _ = run(programs["float"])
    elf = model_dir(first) / "run" / "firmware.elf"
    memo_path = pathlib.Path(f"{elf}.memo.json")
    memo = json.loads(memo_path.read_text())
    memo["sections"][".text"] += 4  # a value only the memo holds
    memo_path.write_text(json.dumps(memo))
    again, _ = run(programs["float"])
    assert again["flash"][".text"] == first["flash"][".text"] + 4
    os.utime(elf)  # the ELF changed (its time stamp): everything is read from it again
    fresh, _ = run(programs["float"])
    assert fresh["flash"][".text"] == first["flash"][".text"]
    assert fresh["stack_bound"] == first["stack_bound"]


def test_a_model_directory_made_again_builds(programs):
    """A model directory removed (pruned, or by hand) while a known program's build re-globs the
    board's models (ninja re-runs CMake, which drops the removed one), then made again: its name
    is still in configured-models.txt, so the tool does not configure, and its build meets
    ninja's "unknown target"; the tool configures and retries."""
    first, _ = run(programs["int8"], "--stack-bytes", "3584")
    run(programs["float"], "--stack-bytes", "3584")
    d = model_dir(first)
    assert (d / "firmware.cmake").exists()
    shutil.rmtree(d)
    run(programs["float"], "--stack-bytes", "3584")  # known, built: only ninja's re-glob runs
    again, _ = run(programs["int8"], "--stack-bytes", "3584")
    assert again["outputs"] == first["outputs"]
