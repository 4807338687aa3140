"""The exporter emits only operators upstream ExecuTorch registers, so upstream can load its programs.

UPSTREAM_OPS is the emit table: every operator the lowering accepts (lowering/schemas.py) with the
upstream kernel library that registers it, as read from pytorch/executorch at commit cff6f4dd
(2026-08-22): kernels/portable/functions.yaml ("portable") and backends/cortex_m/ops/operators.yaml
("cortex_m"). A new operator in the lowering fails the first test until it gets a row here, and a
row may only be added for an operator one of those files lists. Anything else (aten::linear.out)
is decomposed by a pass before lowering. The one exception is ETMCU_OPS: etmcu's own int8 ops for
layers upstream has no int8 kernel for (docs/int8.md); a program that uses one loads on etmcu only.
"""

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import etmcu
from etmcu.lowering.schemas import SCHEMAS
from etmcu.reference import run_pte
from op_models import OP_MODELS
from zoo_util import ZOO, exported

UPSTREAM_OPS = {
    "aten::add.out": "portable",
    "aten::add.Scalar_out": "portable",
    "aten::sub.out": "portable",
    "aten::sub.Scalar_out": "portable",
    "aten::mul.out": "portable",
    "aten::mul.Scalar_out": "portable",
    "aten::div.out": "portable",
    "aten::div.Scalar_out": "portable",
    "aten::relu.out": "portable",
    "aten::hardtanh.out": "portable",
    "aten::clamp.out": "portable",
    "aten::sigmoid.out": "portable",
    "aten::tanh.out": "portable",
    "aten::_softmax.out": "portable",
    "aten::_log_softmax.out": "portable",
    "aten::convolution.out": "portable",
    "aten::addmm.out": "portable",
    "aten::mm.out": "portable",
    "aten::bmm.out": "portable",
    "aten::max_pool2d_with_indices.out": "portable",
    "aten::avg_pool2d.out": "portable",
    "aten::mean.out": "portable",
    "aten::sum.IntList_out": "portable",
    "aten::permute_copy.out": "portable",
    "aten::view_copy.out": "portable",
    "aten::expand_copy.out": "portable",
    "aten::cat.out": "portable",
    "aten::clone.out": "portable",
    "aten::full.out": "portable",
    "aten::eq.Scalar_out": "portable",
    "aten::where.self_out": "portable",
    "aten::_native_batch_norm_legit_no_training.out": "portable",
    "aten::upsample_nearest2d.vec_out": "portable",
    "aten::upsample_bilinear2d.vec_out": "portable",
    "aten::select_copy.int_out": "portable",
    "aten::slice_copy.Tensor_out": "portable",
    "aten::native_layer_norm.out": "portable",
    "aten::constant_pad_nd.out": "portable",
    "dim_order_ops::_to_dim_order_copy.out": "portable",
    "dim_order_ops::_clone_dim_order.out": "portable",
    "cortex_m::quantize_per_tensor.out": "cortex_m",
    "cortex_m::dequantize_per_tensor.out": "cortex_m",
    "cortex_m::quantized_add.out": "cortex_m",
    "cortex_m::quantized_mul.out": "cortex_m",
    "cortex_m::quantized_activation.out": "cortex_m",
    "cortex_m::softmax.out": "cortex_m",
    "cortex_m::quantized_linear.out": "cortex_m",
    "cortex_m::pad.out": "cortex_m",
    "cortex_m::quantized_conv2d.out": "cortex_m",
    "cortex_m::quantized_depthwise_conv2d.out": "cortex_m",
    "cortex_m::quantized_avg_pool2d.out": "cortex_m",
    "cortex_m::quantized_max_pool2d.out": "cortex_m",
}

# etmcu's own ops (kernels/cortex_m/ops.txt, "etmcu::"): upstream registers none of them.
ETMCU_OPS = {"etmcu::quantized_upsample_bilinear2d.out"}

# Registered by none of upstream's portable, quantized or Cortex-M libraries.
NOT_UPSTREAM = ["aten::linear.out"]


def test_every_op_the_lowering_can_emit_is_in_the_upstream_table():
    assert sorted(set(SCHEMAS) - set(UPSTREAM_OPS) - ETMCU_OPS) == []
    assert sorted(set(UPSTREAM_OPS) - set(SCHEMAS)) == []
    assert all(op.startswith("etmcu::") and op in SCHEMAS for op in ETMCU_OPS)
    for op in NOT_UPSTREAM:
        assert op not in SCHEMAS


@pytest.mark.parametrize("op", sorted(k for k in SCHEMAS if k.startswith("aten::")))
def test_aten_schema_matches_torch(op):
    """Argument names (schema order) and out count of each aten row equal torch's own schema
    of that overload, where this torch has it (1.13 lacks _native_batch_norm_legit*)."""
    name, overload = op.rsplit(".", 1)
    found = [s for s in torch._C._jit_get_schemas_for_operator(name)
             if s.overload_name == overload]
    if not found:
        pytest.skip(f"{op} is not in torch {torch.__version__}")
    schema = found[0]
    args, nouts = SCHEMAS[op]
    assert [a.name for a in schema.arguments if not a.is_out] == [n for _, n in args]
    assert sum(a.is_out for a in schema.arguments) == nouts


class _Linear(nn.Module):
    def __init__(self, bias):
        super().__init__()
        torch.manual_seed(3)
        self.fc = nn.Linear(6, 4, bias=bias)

    def forward(self, x):
        return torch.relu(self.fc(x))


class _LinearWeightInput(nn.Module):
    def forward(self, x, w):
        return F.linear(x, w)


@pytest.mark.parametrize("shape", [(6,), (3, 6), (2, 3, 6), (1, 2, 3, 6)])
@pytest.mark.parametrize("bias", [True, False])
def test_nd_linear_exports_as_views_around_a_matrix_product(shape, bias):
    x = torch.randn(shape)
    prog = etmcu.export(_Linear(bias), (x,))          # verify=True: equal to eager
    assert set(prog.ops) == {"aten::addmm.out" if bias else "aten::mm.out", "aten::relu.out"}
    assert prog.ops["aten::addmm.out" if bias else "aten::mm.out"] == 1
    with torch.no_grad():
        ref = _Linear(bias).eval()(x).numpy()
    (out,) = run_pte(prog.buffer, [x.numpy()])
    assert out.shape == ref.shape
    assert np.abs(out - ref).max() <= 1e-5 * max(np.abs(ref).max(), 1.0)


def test_linear_with_a_weight_input_transposes_it_at_run_time():
    x, w = torch.randn(2, 5, 6), torch.randn(4, 6)
    prog = etmcu.export(_LinearWeightInput(), (x, w))
    assert set(prog.ops) == {"aten::permute_copy.out", "aten::mm.out"}
    (out,) = run_pte(prog.buffer, [x.numpy(), w.numpy()])
    assert np.abs(out - F.linear(x, w).numpy()).max() <= 1e-5


def test_int8_nd_linear_is_a_cortex_m_linear():
    prog = etmcu.export(_Linear(True), (torch.randn(2, 3, 6),), quantize="int8", calibration=8)
    assert "cortex_m::quantized_linear.out" in prog.ops
    assert prog.fp32_ops == []


@pytest.mark.parametrize("name", ZOO + sorted(OP_MODELS))
def test_exports_use_only_upstream_ops(name):
    if name in OP_MODELS:
        cls = OP_MODELS[name]
        prog = etmcu.export(cls().eval(), tuple(torch.randn(s) for s in cls.INPUT_SHAPES))
    else:
        prog = exported(name)[1]
    assert set(prog.ops) <= set(UPSTREAM_OPS), sorted(set(prog.ops) - set(UPSTREAM_OPS))
