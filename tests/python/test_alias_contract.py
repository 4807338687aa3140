"""The alias contract has one description (python/etmcu/lowering/schemas.py, INPLACE_ARGS); the
runtime's table (kernels/api/alias_contract.h), which method load enforces, must say the same, and
the planner must only merge what it allows (same shape, dtype *and* dim order)."""

import re
from pathlib import Path

import numpy as np

from etmcu.ir import Graph, Node
from etmcu.lowering.emit import lower
from etmcu.lowering.schemas import INPLACE_ARGS, SCHEMAS
from etmcu.memory_planner import plan_memory

ROOT = Path(__file__).resolve().parents[2]


def cpp_table():
    text = (ROOT / "kernels/api/alias_contract.h").read_text()
    body = text[text.index("alias-contract-table-begin"):text.index("alias-contract-table-end")]
    return {op: int(mask, 16) for op, mask in re.findall(r'\{"([^"]+)",\s*(0x[0-9a-fA-F]+)\}', body)}


def test_cpp_table_matches_the_op_descriptions():
    py = {op: sum(1 << i for i in idx) for op, idx in INPLACE_ARGS.items()}
    assert cpp_table() == py
    for op, idx in INPLACE_ARGS.items():       # only Tensor arguments, single-out ops
        args, nouts = SCHEMAS[op]
        assert nouts == 1
        assert all(args[i][0] == "Tensor" for i in idx), op


def _relu_graph(out_order):
    g = Graph()
    x = g.new_tensor((1, 2, 3, 4))
    y = g.new_tensor((1, 2, 3, 4))                 # x + 1 (dies at relu)
    z = g.new_tensor((1, 2, 3, 4), dim_order=out_order)
    w = g.new_tensor((1, 2, 3, 4))
    g.inputs = [x]
    g.nodes = [Node("aten::add.Scalar_out", [x, 1.0, 1], [y]),
               Node("aten::relu.out", [y], [z]),
               Node("aten::add.Scalar_out", [z, 1.0, 1], [w])]
    g.outputs = [w]
    return g, y, z


def test_planner_merges_same_dim_order_only():
    g, y, z = _relu_graph(None)
    plan = plan_memory(lower(g))
    assert plan.placement[y.id] == plan.placement[z.id]      # relu writes over its input
    g, y, z = _relu_graph((0, 2, 3, 1))                       # same shape, NHWC out
    plan = plan_memory(lower(g))
    assert plan.placement[y.id] != plan.placement[z.id]


def test_naive_floor_is_the_largest_op():
    m = lower(_relu_graph(None)[0])
    plan = plan_memory(m, inplace=False)
    assert plan.naive_floor == 2 * 24 * np.dtype(np.float32).itemsize
