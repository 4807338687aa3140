"""tools/bench/layer_table.py's requantization columns (docs/int8.md "Per-layer profiles"): the
CV32E40P micro-kernels mark their requantization code (kernels/cortex_m/isa/rv32/
requant_range.inc) in a section the firmware keeps but never loads, and the table splits a
traced run's cycles into layers and sums those in the marked code. Checked on a small int8 CNN
(a 3x3 convolution with a ReLU, a depthwise one, a pointwise one without, a linear layer of 16
features: each takes an assembly kernel on both boards)."""
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SIM = ROOT / "build" / "host" / "sim" / "etmcu-sim"
sys.path.insert(0, str(ROOT / "tests" / "python"))
sys.path.insert(0, str(ROOT / "tools" / "bench"))
from export_batch import export_all  # noqa: E402

pytestmark = pytest.mark.skipif(not SIM.exists(), reason="host tools not built")

MODEL = """import torch

INPUT_SHAPES = [(1, 8, 6, 6)]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(11)
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 16, 1)
        self.fc = torch.nn.Linear(16 * 36, 16)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = torch.relu(self.dw(x))
        return self.fc(torch.flatten(self.pw(x), 1))
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    out = tmp_path_factory.mktemp("layer_table")
    (out / "cnn.py").write_text(MODEL)
    pte = out / "cnn.pte"
    p = export_all([["export", f"{out / 'cnn.py'}:Model", "-o", str(pte), "--quantize", "int8",
                     "--calibration", "4", "--int8-io"]])
    assert p.returncode == 0, p.stderr[-6000:]
    return pte


@pytest.fixture(scope="module")
def table(program):
    p = subprocess.run(["/usr/bin/python3", str(ROOT / "tools" / "bench" / "layer_table.py"), str(program),
                        "--markdown"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in p.stdout.splitlines() if ln.startswith("|")]
    return rows[0], rows[2:]


def test_every_layer_with_macs_has_its_requantization_cycles(table):
    head, rows = table
    cols = [i for i, h in enumerate(head) if h == "requant cycles/output"]
    cycles = [i for i, h in enumerate(head) if h.endswith(" cycles")]
    assert len(cols) == 2 and len(cycles) == 2, head  # plain and Xpulp
    kinds = [r[1] for r in rows if r[3]]
    assert any(k.startswith("conv 3x3") for k in kinds) and any(k.startswith("depthwise") for k in kinds)
    assert any(k.startswith("pointwise") for k in kinds) and any(k.startswith("linear") for k in kinds)
    for r in rows:
        if not r[3] or not r[0]:  # (no MACs: pads; the execute phase's total)
            assert all(r[c] == "" for c in cols), r
            continue
        outputs = 1
        for s in r[2].split("x"):
            outputs *= int(s)
        for c, cyc in zip(cols, cycles):
            m = re.fullmatch(r"(\d+\.\d)( \((\d+) %\))?", r[c])
            assert m, (r[1], r[c])
            per_output = float(m.group(1))
            # every layer here is requantized by the marked assembly, whole, and requantizing an
            # output takes at least its store and at most what the layer spends on it
            assert m.group(2) is None, (r[1], r[c])
            assert 1.0 <= per_output < int(r[cyc].replace(",", "")) / outputs, (r[1], r[c], r[cyc])
    # a figure from the instructions themselves: with Xpulp a dyadic depthwise output is REQ_DY's
    # cv.clipur, mul, cv.addRN and store (isa/xpulp/depthwise_rows.S), one cycle each, no branch
    dw = next(r for r in rows if r[1].startswith("depthwise"))
    assert dw[cols[1]] == "4.0", dw


def test_the_ranges_lie_in_the_code_and_are_not_loaded(program):
    import layer_table

    for board in ("cv32e40p", "cv32e40p-pulp"):
        keep = program.parent / f"fw-{board}"
        p = subprocess.run(["/usr/bin/python3", str(ROOT / "tools" / "firmware" / "etmcu_fw.py"), str(program),
                            "--target", "cv32e40p", "--board", board, "--quiet", "--keep", str(keep)],
                           capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stderr
        elf = keep / "run" / "firmware.elf"
        ranges = layer_table.requant_ranges(str(elf))
        assert ranges and len(ranges) >= 4, ranges
        h = subprocess.run(["riscv64-unknown-elf-objdump", "-h", str(elf)], capture_output=True, text=True,
                           check=True).stdout
        text = re.search(r"\s\.text\s+([0-9a-f]+)\s+([0-9a-f]+)", h)
        lo = int(text.group(2), 16)
        hi = lo + int(text.group(1), 16)
        assert all(lo <= b < e <= hi for b, e in ranges), (hex(lo), hex(hi), ranges[:4])
        flags = h.split(".debug_etmcu_requant", 1)[1].splitlines()[1]
        assert "ALLOC" not in flags and "LOAD" not in flags, flags  # not in the image


def test_an_elf_without_the_section_has_no_ranges():
    import layer_table

    assert layer_table.requant_ranges(str(SIM)) is None  # (the host simulator: no such section)
