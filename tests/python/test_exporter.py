"""Exporter tests: every zoo model exports, the file decodes with flatc into the expected structure,
the memory plan is valid and near its lower bound, exports are deterministic, and unsupported
code fails with an error that names the op and the user's line."""

import inspect
import json
import struct
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import etmcu
from etmcu.lowering.schemas import SCHEMAS
from etmcu.reference import run_pte
from etmcu.serialize.pte import decode_json, parse_header

from op_models import OP_MODELS
from zoo_util import ZOO, exported, random_inputs, zoo_module


def _decoded(name):
    return decode_json(exported(name)[1].buffer)


@pytest.mark.parametrize("name", ZOO)
def test_zoo_exports_and_plans_near_lower_bound(name):
    _, prog = exported(name)
    plan = prog.plan
    assert plan.lower_bound > 0
    assert plan.lower_bound <= plan.planned_bytes <= 1.05 * plan.lower_bound, prog.summary()
    assert all(size % 16 == 0 for size in plan.region_sizes)


@pytest.mark.parametrize("name", ZOO)
def test_flatc_decodes_expected_structure(name):
    _, prog = exported(name)
    data = prog.buffer
    doc = decode_json(data)
    assert data[4:8] == b"ET12"
    assert doc["version"] == 0
    (plan,) = doc["execution_plan"]
    assert plan["name"] == "forward"
    assert plan["delegates"] == [] and len(plan["chains"]) == 1
    assert plan["non_const_buffer_sizes"][0] == 0
    assert plan["non_const_buffer_sizes"][1:] == prog.plan.region_sizes
    assert "builtins.tuple" in plan["container_meta_type"]["encoded_inp_str"]
    values = plan["values"]
    n_inputs = len(zoo_module(name).INPUT_SHAPES)
    assert len(plan["inputs"]) == n_inputs and len(plan["outputs"]) == 1
    # Tensors: constants have a data_buffer_idx and no allocation; the rest are planned in mem 1,
    # 16-byte aligned and inside the arena.
    offsets = doc["constant_segment"]["offsets"]
    for v in values:
        if v["val_type"] != "Tensor":
            continue
        t = v["val"]
        assert t["dim_order"] == list(range(len(t["sizes"])))
        if "allocation_info" in t:
            a = t["allocation_info"]
            assert t["data_buffer_idx"] == 0 and a["memory_id"] >= 1
            assert a["memory_offset_low"] % 16 == 0 and a["memory_offset_high"] == 0
            assert a["memory_offset_low"] <= plan["non_const_buffer_sizes"][a["memory_id"]]
        else:
            assert 1 <= t["data_buffer_idx"] < len(offsets)
    for i in plan["inputs"] + plan["outputs"]:
        assert "allocation_info" in values[i]["val"]
    # KernelCall layout: every schema arg, then out(s), then the return (out again / TensorList).
    ops = plan["operators"]
    for ins in plan["chains"][0]["instructions"]:
        assert ins["instr_args_type"] == "KernelCall"
        args = ins["instr_args"]["args"]
        op = ops[ins["instr_args"]["op_index"]]
        schema, nouts = SCHEMAS[f"{op['name']}.{op['overload']}"]
        assert len(args) == len(schema) + nouts + 1
        outs = args[len(schema):len(schema) + nouts]
        if nouts == 1:
            assert args[-1] == outs[0]
        else:
            ret = values[args[-1]]
            assert ret["val_type"] == "TensorList" and ret["val"]["items"] == outs
        for (kind, _), a in zip(schema, args):
            v = values[a]
            if v["val_type"] == "Null":
                assert kind.endswith("?")
            elif kind.startswith("int[]"):
                assert v["val_type"] == "IntList"
                assert all(values[j]["val_type"] == "Int" for j in v["val"]["items"])
            elif kind.startswith("Tensor") and not kind.startswith("Tensor[]"):
                assert v["val_type"] == "Tensor"
    # Header, segments and constants.
    header = parse_header(data)
    if prog.constant_bytes == 0:
        assert header is None and doc["segments"] == [{"offset": 0, "size": 0}]
        assert offsets == [0]
    else:
        assert header["length"] == 32 and struct.unpack_from("<I", data, 0)[0] >= 40
        assert header["segment_base_offset"] % 128 == 0
        assert header["segment_base_offset"] >= header["program_size"]
        assert header["segment_base_offset"] + header["segment_data_size"] == len(data)
        assert doc["segments"] == [{"offset": 0, "size": header["segment_data_size"]}]
        assert offsets[0] == 0 and offsets[1] == 0
        assert all(o % 16 == 0 for o in offsets)


@pytest.mark.parametrize("name", ZOO)
def test_memory_plan_never_clobbers_live_tensors(name):
    """Replay the instruction stream on byte-tagged arenas: every read must see its own data."""
    _, prog = exported(name)
    m, placement = prog.method, prog.plan.placement
    klass = {}
    for src, dst in m.aliases:
        klass[dst] = klass.get(src, src)
    canon = lambda tid: klass.get(tid, tid)  # noqa: E731
    arenas = [np.full(s, -1, np.int64) for s in prog.plan.region_sizes]

    def span(tid):
        mem, off = placement[tid]
        return arenas[mem - 1], slice(off, off + m.tensors[tid].nbytes)

    def write(tid):
        arena, sl = span(tid)
        arena[sl] = canon(tid)

    def check(tid, where):
        arena, sl = span(tid)
        assert (arena[sl] == canon(tid)).all(), f"{name}: tensor {tid} clobbered before {where}"

    for t in m.input_tensors:
        write(t.id)
    for k in range(len(m.instructions)):
        for tid in m.reads[k]:
            check(tid, f"instruction {k}")
        for tid in m.writes[k]:
            write(tid)
    for t in m.output_tensors:
        check(t.id, "the end")


@pytest.mark.parametrize("name", ZOO)
def test_reference_interpreter_matches_eager(name):
    """The file itself computes the model: run it with the Python reference interpreter."""
    model, prog = exported(name)
    for seed in (1, 2):
        xs = random_inputs(name, seed)
        with torch.no_grad():
            ref = model(*xs).numpy()
        (out,) = run_pte(prog.buffer, [x.numpy() for x in xs])
        assert out.shape == ref.shape
        assert np.abs(out - ref).max() <= 1e-4 * max(np.abs(ref).max(), 1e-6)


def test_export_is_deterministic(tmp_path):
    for name in ("cnn", "ds_cnn"):
        mod = zoo_module(name)
        a = etmcu.export(mod.Model(), random_inputs(name, 0)).save(tmp_path / "a.pte")
        b = etmcu.export(mod.Model(), random_inputs(name, 5)).save(tmp_path / "b.pte")
        assert a.read_bytes() == b.read_bytes()


def test_add_model_matches_upstream_shape():
    """x + y: one add.out with args [x, y, Int(1), out, out], like upstream's add.pte."""
    (plan,) = _decoded("add")["execution_plan"]
    assert plan["operators"] == [{"name": "aten::add", "overload": "out"}]
    (ins,) = plan["chains"][0]["instructions"]
    x, y, alpha, out, ret = ins["instr_args"]["args"]
    assert [x, y] == plan["inputs"] and [out] == plan["outputs"] and ret == out
    assert plan["values"][alpha] == {"val_type": "Int", "val": {"int_val": 1}}


def test_batchnorm_folded_when_legal_and_kept_otherwise():
    _, prog = exported("cnn")
    ops = prog.ops
    # cnn has 3 BNs after convs (folded) and one whose input is reused (kept).
    assert ops["aten::_native_batch_norm_legit_no_training.out"] == 1
    _, prog = exported("resnet8")
    assert "aten::_native_batch_norm_legit_no_training.out" not in prog.ops


def test_views_are_aliases_without_instructions():
    _, prog = exported("ds_cnn")   # nn.Flatten and Dropout
    assert not any("view" in k or "clone" in k for k in prog.ops)
    assert prog.method.aliases
    for src, dst in prog.method.aliases:
        assert prog.plan.placement[src] == prog.plan.placement[dst]


def test_memory_regions_with_budget():
    _, prog = exported("resnet8")
    model = zoo_module("resnet8").Model()
    budget = 70_000
    p2 = etmcu.export(model, random_inputs("resnet8", 0), memory_regions=[budget, None])
    assert p2.plan.region_sizes[0] <= budget and p2.plan.region_sizes[1] > 0
    doc = decode_json(p2.buffer)
    assert len(doc["execution_plan"][0]["non_const_buffer_sizes"]) == 3
    xs = random_inputs("resnet8", 3)
    with torch.no_grad():
        ref = model.eval()(*xs).numpy()
    (out,) = run_pte(p2.buffer, [x.numpy() for x in xs])
    assert np.abs(out - ref).max() <= 1e-4 * np.abs(ref).max()
    with pytest.raises(etmcu.ExportError, match="memory plan"):
        etmcu.export(model, random_inputs("resnet8", 0), memory_regions=[1000])


class _Erf(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return torch.erf(y)  # unsupported-op-marker


class _Gelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(x) * 2  # module-marker


class _Slice(nn.Module):
    def forward(self, x):      # advanced indexing (a list): no kernel; x[:, 1:] is supported
        return x[:, [0, 2]] * 2  # slice-marker


class _DataDependent(nn.Module):
    def forward(self, x):
        return x * x.sum().item()  # item-marker


def _line_of(cls, marker):
    src, start = inspect.getsourcelines(cls)
    return start + next(i for i, line in enumerate(src) if marker in line)


@pytest.mark.parametrize("cls,marker,op", [
    (_Erf, "unsupported-op-marker", "erf"),
    (_Slice, "slice-marker", "getitem"),
    (_Gelu, "module-marker", "GELU"),
])
def test_unsupported_op_names_op_and_source_line(cls, marker, op):
    with pytest.raises(etmcu.ExportError) as info:
        etmcu.export(cls(), (torch.randn(2, 4),))
    err = info.value
    assert op in str(err) and op in (err.op or "")
    assert f"test_exporter.py:{_line_of(cls, marker)}" in str(err)
    assert marker in str(err)


class _AliasedInplace(nn.Module):
    def forward(self, x):
        y = x * 1
        z = y
        y += 1          # fx 1.13 records this out of place, eager mutates z too
        return y + z


def test_fx_mistrace_is_caught_not_exported():
    with pytest.raises(etmcu.ExportError, match="does not reproduce eager"):
        etmcu.export(_AliasedInplace(), (torch.randn(3),))


def test_export_verifies_itself_with_the_reference_interpreter():
    _, prog = exported("resnet8")
    assert prog.verified_error is not None and prog.verified_error <= 1e-4
    assert "verified" in prog.summary()


def test_data_dependent_python_value_is_an_error():
    with pytest.raises(etmcu.ExportError):
        etmcu.export(_DataDependent(), (torch.randn(2, 4),))


@pytest.mark.parametrize("name", sorted(OP_MODELS))
def test_op_models_match_eager(name):
    """Ops the zoo does not use (tests/python/op_models.py), through the reference interpreter."""
    cls = OP_MODELS[name]
    m = cls().eval()
    xs = tuple(torch.randn(s) for s in cls.INPUT_SHAPES)
    prog = etmcu.export(m, xs)
    expected = {
        "seq1d": ["aten::bmm.out", "aten::expand_copy.out", "aten::permute_copy.out",
                  "aten::div.out", "aten::sub.out", "aten::_log_softmax.out"],
        "nobias": ["aten::addmm.out", "aten::sum.IntList_out", "aten::native_layer_norm.out",
                   "aten::upsample_nearest2d.vec_out", "aten::avg_pool2d.out"],
        "gate": ["aten::eq.Scalar_out", "aten::where.self_out",
                 "aten::_native_batch_norm_legit_no_training.out"],
    }[name]
    for op in expected:
        assert op in prog.ops, prog.ops
    with torch.no_grad():
        ref = m(*xs).numpy()
    (out,) = run_pte(prog.buffer, [x.numpy() for x in xs])
    assert np.abs(out - ref).max() <= 1e-4 * np.abs(ref).max()


@pytest.mark.parametrize("name", ["mlp", "cnn", "resnet8"])
def test_aten_front_end_feeds_the_same_lowering(name):
    """The ATen-graph front end (torch.export's path; make_fx on torch 1.13) gives the same
    program as the fx front end: identical ops and plan, correct numerics."""
    model, prog = exported(name)
    aten_prog = etmcu.export(model, random_inputs(name, 0), frontend="aten")
    assert aten_prog.ops == prog.ops
    assert aten_prog.plan.region_sizes == prog.plan.region_sizes
    if name != "cnn":   # cnn differs only in the order constants are first used
        # byte for byte without the debug frames (fx knows module paths, make_fx does not)
        no_debug = [etmcu.export(model, random_inputs(name, 0), frontend=f, debug_info=False)
                    for f in ("aten", "fx")]
        assert no_debug[0].buffer == no_debug[1].buffer
    xs = random_inputs(name, 4)
    with torch.no_grad():
        ref = model(*xs).numpy()
    (out,) = run_pte(aten_prog.buffer, [x.numpy() for x in xs])
    assert np.abs(out - ref).max() <= 1e-4 * np.abs(ref).max()


@pytest.mark.corpus
def test_add_f32_1_matches_upstream_add_pte_exactly():
    """Upstream's extension/apple/.../add.pte (x + y on f32[1]) decodes to the same program as
    ours, except the container_meta strings (it predates the JSON treespec format)."""
    corpus = Path(__file__).resolve().parents[3] / "shared" / "pte-corpus" / "upstream"
    ref_json = corpus / "extension__apple__ExecuTorch____tests____resources__add.pte.json"
    ref = json.loads(ref_json.read_text())
    prog = etmcu.export(zoo_module("add").Model(), (torch.randn(1), torch.randn(1)),
                        debug_info=False)     # upstream's programs carry no stack traces
    ours = decode_json(prog.buffer)
    for doc in (ref, ours):
        for plan in doc["execution_plan"]:
            plan.pop("container_meta_type")
    assert ours == ref


def test_aten_front_end_unsupported_op_is_named():
    with pytest.raises(etmcu.ExportError, match="erf"):
        etmcu.export(_Erf(), (torch.randn(2, 4),), frontend="aten")
