"""Residual adds on the CV32E40P, with and without Xpulp: an int8 model whose quantized adds are
long (>= 1024 elements), with one input rescaled by a power of two (multiplier 2^30, as the
larger-scale input of an exported add is) in the first position in one add and the second in the
other, runs on the simulator (the rv32 variant's C loop on the plain core, the Xpulp variant's
assembly loop on the PULP core: opt/op_quantized_add.cpp add_with_table) and must print the host
reference kernels' output bits. The first add has a fused ReLU (the loops' ReLU form, util/add.h
add_relu_of_4v), the second none; a second program has an odd number of elements per add (the
plain core's ReLU loop goes two at a time) and inputs larger than the calibration's (results past
the activation's bounds)."""
import pathlib
import sys

import numpy as np
import pytest
import torch
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tools" / "firmware"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import corpus_table  # noqa: E402  (compare())
from etmcu import export  # noqa: E402
from etmcu.serialize.pte import decode_json  # noqa: E402
from test_random_layers_targets import BOARDS, CLI, SIM, run_host_and_board  # noqa: E402

pytestmark = pytest.mark.skipif(not CLI.exists() or not SIM.exists(), reason="host tools not built")

SHAPES = {"even": (1, 8, 16, 16), "odd": (1, 7, 13, 13)}  # 2,048 and 1,183 elements per add


class Residual(nn.Module):
    """Two residual adds; the branch scaled up in each so that the larger scale, and with it the
    power-of-two rescaling, falls on the add's first input once and on its second once."""

    def __init__(self, c=8):
        super().__init__()
        torch.manual_seed(31)
        self.c1 = nn.Conv2d(c, c, 3, padding=1)
        self.c2 = nn.Conv2d(c, c, 3, padding=1)
        self.c3 = nn.Conv2d(c, c, 1)
        with torch.no_grad():
            self.c2.weight *= 6
            self.c3.weight *= 6

    def forward(self, x):
        y = torch.relu(self.c1(x))
        z = torch.relu(self.c2(y) + y)  # quantized_add(self = the scaled branch, other = y)
        return z + self.c3(z)           # quantized_add(self = z, other = the scaled branch)


def _adds(pte):
    """(numel, first input's multiplier and shift, second input's) of each quantized add."""
    doc = decode_json(pte.read_bytes())
    plan = doc["execution_plan"][0]
    values, ops = plan["values"], plan["operators"]
    out = []
    for ins in plan["chains"][0]["instructions"]:
        a = ins.get("instr_args", {})
        if "op_index" not in a or ops[a["op_index"]]["name"] != "cortex_m::quantized_add":
            continue
        ints = [values[i]["val"].get("int_val", 0) for i in a["args"][1:8]]
        sizes = values[a["args"][0]]["val"]["sizes"]
        zo, amin = (values[a["args"][i]]["val"].get("int_val", 0) for i in (8, 11))
        out.append((int(np.prod(sizes)), (ints[1], ints[2]), (ints[5], ints[6]), amin == zo))
    return out


@pytest.fixture(scope="module", params=list(SHAPES))
def program(request, tmp_path_factory):
    shape = SHAPES[request.param]
    out = tmp_path_factory.mktemp("add_targets")
    x = torch.randn(shape, generator=torch.Generator().manual_seed(4))
    pte = export(Residual(shape[1]).eval(), (x,), quantize="int8").save(out / "residual.pte")
    inp = out / "in.npy"
    scale = 1.0 if request.param == "even" else 3.0
    np.save(inp, scale * np.random.default_rng(6).standard_normal(shape).astype(np.float32))
    return pte, inp


def test_the_adds_take_the_table_path(program):
    """Each add long enough for the table, and the power of two on each side once (otherwise
    the targets below would not run both of the kernel's cases), the first add's activation_min its
output zero point (the ReLU form) and the second's not."""
    adds = _adds(pathlib.Path(program[0]))
    assert len(adds) == 2 and all(n >= 1024 for n, _, _, _ in adds), adds
    pow2 = [(m1 == 1 << 30, m2 == 1 << 30) for _, (m1, _s1), (m2, _s2), _ in adds]
    assert sorted(pow2) == [(False, True), (True, False)], adds
    assert [relu for _, _, _, relu in adds] == [True, False], adds  # (the ReLU form, then not)


@pytest.mark.parametrize("board", list(BOARDS))
def test_residual_adds_on_cv32e40p_match_host(board, program):
    pte, inp = program
    host, result = run_host_and_board(pte, inp, board)
    assert result["int8_kernels"] == BOARDS[board]
    assert corpus_table.compare(host, result) is None, corpus_table.compare(host, result)
