"""Linear layers on the CV32E40P, with and without Xpulp: a three-layer int8 MLP (a fused ReLU in
the first; 36, 22 and 8 features: blocks of four, two features left to the row path, a layer of
two blocks) runs on the simulator and must print the host reference kernels' output bits, as
exported and in two forms our exporter never writes but a .pte may hold (upstream's arguments
allow them): a nonzero filter offset (so foff * sum(x) is added to every block's constants in the
assembly's block loops, etmcu_xpulp_linear_row and, for the layers of 16 features or more,
etmcu_rv32_linear_row) and no kernel_sum at all (the constants folded in C from the bias and the
weight sums, eight features at a time: opt/op_quantized_linear.cpp linear_blocks). As exported
the layers' factors are dyadic (the row kernels' dyadic forms: etmcu_*_linear_row_dy, a fused
ReLU's form in the first layer, the clamp form in the others); exported with requant="frexp" they
take the frexp row kernels."""
import pathlib
import struct
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
from etmcu.serialize import pte as pte_format  # noqa: E402
from test_random_layers_targets import BOARDS, CLI, SIM, run_host_and_board  # noqa: E402

pytestmark = pytest.mark.skipif(not CLI.exists() or not SIM.exists(), reason="host tools not built")

FORMS = ["exported", "filter_offset", "no_kernel_sum", "frexp", "narrow"]
LINEAR = "cortex_m::quantized_linear"
NARROW = (20, 20, 50)


def _linears(doc):
    plan = doc["execution_plan"][0]
    ops = plan["operators"]
    return [ins["instr_args"]["args"] for ins in plan["chains"][0]["instructions"]
            if "op_index" in ins.get("instr_args", {})
            and ops[ins["instr_args"]["op_index"]]["name"] == LINEAR]


def _with(doc, form):
    """doc with each linear's filter offset (argument 5) and, for no_kernel_sum, its kernel_sum
    (argument 3) pointing at new values (the exported ones may be shared with other arguments).
    narrow: instead, each activation range (arguments 9 and 10) within NARROW of the output
    offset (argument 6; a fused ReLU's floor stays the offset), so that many sums fall past both of
    the dyadic forms' bounds V and Vlo, which the row kernels clamp the sums to instead of the
    results (wider in the last layer: the outputs compared keep the earlier layers' errors)."""
    values = doc["execution_plan"][0]["values"]
    if form == "narrow":
        for args, d in zip(_linears(doc), NARROW):
            off, lo = (values[args[i]]["val"].get("int_val", 0) for i in (6, 10))
            for i, v in ((9, min(127, off + d)), (10, lo if lo == off else max(-128, off - d))):
                values.append({"val_type": "Int", "val": {"int_val": v}})
                args[i] = len(values) - 1
        return doc
    for n, args in enumerate(_linears(doc)):
        values.append({"val_type": "Int", "val": {"int_val": [5, -3, 9][n % 3]}})
        args[5] = len(values) - 1
        if form == "no_kernel_sum":
            values.append({"val_type": "Null", "val": {}})
            args[3] = len(values) - 1
    return doc


def _encode(doc, original):
    """The edited program with the original's constant segment (build_pte's layout)."""
    head = pte_format.parse_header(original)
    segment = original[head["segment_base_offset"]:][:head["segment_data_size"]]
    fb = pte_format.flatc_encode(doc)
    size = len(fb) + pte_format.HEADER_PADDED
    base = pte_format.align_up(size, pte_format.SEGMENT_ALIGNMENT)
    header = b"eh00" + struct.pack("<IQQQ", pte_format.HEADER_LENGTH, size, base, len(segment))
    out = pte_format.insert_header(fb, header, pte_format.HEADER_PADDED)
    return out + b"\0" * (base - len(out)) + segment


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = tmp_path_factory.mktemp("linear_targets")
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(64, 36), nn.ReLU(), nn.Linear(36, 22), nn.Linear(22, 8)).eval()
    x = torch.randn(4, 64, generator=torch.Generator().manual_seed(5))
    exported = export(model, (x[:1],), quantize="int8").save(out / "mlp.pte")
    original = pathlib.Path(exported).read_bytes()
    inp = out / "in.npy"
    np.save(inp, x[1:2].numpy())
    made = {"exported": pathlib.Path(exported),
            "frexp": pathlib.Path(export(model, (x[:1],), quantize="int8", requant="frexp")
                                  .save(out / "mlp_frexp.pte"))}
    for form in ("filter_offset", "no_kernel_sum", "narrow"):
        doc = _with(pte_format.decode_json(original), form)
        path = out / f"mlp_{form}.pte"
        path.write_bytes(_encode(doc, original))
        made[form] = path
    return made, inp


def test_the_forms_hold_what_they_name(programs):
    """Three linear layers each; the edited ones with nonzero filter offsets, and without a
    kernel_sum where named (else the targets below would run the exported form three times)."""
    made, _ = programs
    for form, path in made.items():
        doc = pte_format.decode_json(path.read_bytes())
        values = doc["execution_plan"][0]["values"]
        linears = _linears(doc)
        assert len(linears) == 3, form
        foffs = [values[a[5]]["val"].get("int_val", 0) for a in linears]
        ksums = [values[a[3]]["val_type"] for a in linears]
        edited = form in ("filter_offset", "no_kernel_sum")
        assert foffs == ([5, -3, 9] if edited else [0, 0, 0]), (form, foffs)
        ranges = [[values[a[i]]["val"].get("int_val", 0) - values[a[6]]["val"].get("int_val", 0)
                   for i in (10, 9)] for a in linears]
        if form == "narrow":  # (the first layer's fused ReLU: its floor the offset)
            assert ranges[0][0] == 0 and all(-d <= lo <= 0 < hi <= d
                                             for (lo, hi), d in zip(ranges, NARROW)), ranges
        assert ksums == 3 * (["Null"] if form == "no_kernel_sum" else ["Tensor"]), (form, ksums)
        # the factors (arguments 7 and 8, lists of one): dyadic (shift -r in [-11, -1], multiplier
        # m << (10 + r): dyadic_linear_requant), unless exported with requant="frexp"
        factor = [[values[values[a[i]]["val"]["items"][0]]["val"]["int_val"] for i in (7, 8)]
                  for a in linears]
        dyadic = [-11 <= s <= -1 and m % (1 << (10 - s)) == 0 for m, s in factor]
        assert dyadic == 3 * [form != "frexp"], (form, factor)


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("form", FORMS)
def test_linear_layers_on_cv32e40p_match_host(form, board, programs):
    made, inp = programs
    host, result = run_host_and_board(made[form], inp, board)
    assert result["int8_kernels"] == BOARDS[board]
    assert corpus_table.compare(host, result) is None, corpus_table.compare(host, result)
