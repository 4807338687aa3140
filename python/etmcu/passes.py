"""Graph passes on the IR that run before lowering.

fold_batchnorm: inference batch norm is an affine map per channel, so when it directly follows a
convolution or a 2-D linear (addmm/mm with constant weights) whose output nobody else reads, it
is folded into that layer's weights and bias: one instruction and one activation buffer less,
and no BN constants on the device. Otherwise it stays a `_native_batch_norm_legit_no_training`.

decompose_linear: `aten::linear.out` is not an operator upstream's portable library registers, so
a program using it would not load there. A linear on an N-D input becomes a view to
[prod(leading dims), in], a 2-D addmm/mm with the transposed weight (a constant when the weight
is one), and a view back, which is the shape of upstream's edge decomposition; views cost no
instruction (they alias the bytes).
"""

import numpy as np

from .errors import ExportError
from .ir import ALIAS, Node


BN = "aten::_native_batch_norm_legit_no_training.out"



def _bias_name(w):
    """The folded bias is named after its layer ("conv1.weight" -> "conv1.bias")."""
    layer = (w.name or "layer").removesuffix(".T").removesuffix(".weight")
    return f"{layer}.bias"

def _bn_affine(bn):
    """(scale, shift) with bn(x) = x * scale + shift per channel, or None if not constant."""
    _, w, b, mean, var, _, eps = bn.args
    for t in (w, b, mean, var):
        if t is not None and not t.is_const:
            return None
    inv = 1.0 / np.sqrt(var.data.astype(np.float64) + eps)
    scale = inv * (w.data.astype(np.float64) if w is not None else 1.0)
    shift = -mean.data.astype(np.float64) * scale
    if b is not None:
        shift = shift + b.data.astype(np.float64)
    return scale, shift


def fold_batchnorm(graph):
    producers = {o.id: n for n in graph.nodes for o in n.outputs}
    users = graph.users()
    outputs = {t.id for t in graph.outputs}
    removed = set()
    for bn in graph.nodes:
        if bn.op != BN:
            continue
        x = bn.args[0]
        prod = producers.get(x.id)
        if prod is None or len(users.get(x.id, [])) != 1 or x.id in outputs:
            continue
        affine = _bn_affine(bn)
        if affine is None:
            continue
        scale, shift = affine
        if prod.op == "aten::convolution.out" and not prod.args[6]:
            w, bias = prod.args[1], prod.args[2]
            if not w.is_const or (bias is not None and not bias.is_const):
                continue
            wd = w.data.astype(np.float64) * scale.reshape((-1,) + (1,) * (w.data.ndim - 1))
            bd = (bias.data.astype(np.float64) if bias is not None else 0.0) * scale + shift
            prod.args[1] = graph.constant(wd.astype(w.dtype), w.name)
            prod.args[2] = graph.constant(bd.astype(w.dtype), _bias_name(w))
        elif prod.op in ("aten::addmm.out", "aten::mm.out") and len(x.shape) == 2:
            wt = prod.args[2] if prod.op == "aten::addmm.out" else prod.args[1]
            bias = prod.args[0] if prod.op == "aten::addmm.out" else None
            if not wt.is_const or (bias is not None and not bias.is_const):
                continue
            if prod.op == "aten::addmm.out" and (prod.args[3] != 1 or prod.args[4] != 1):
                continue
            wd = wt.data.astype(np.float64) * scale.reshape(1, -1)
            bd = (bias.data.astype(np.float64) if bias is not None else 0.0) * scale + shift
            new_w = graph.constant(wd.astype(wt.dtype), wt.name)
            new_b = graph.constant(np.broadcast_to(bd, (x.shape[1],)).astype(wt.dtype), _bias_name(wt))
            prod.op = "aten::addmm.out"
            prod.args = [new_b, prod.args[0] if bias is None else prod.args[1], new_w, 1, 1]
        else:
            continue
        prod.outputs = [bn.outputs[0]]
        prod.source = prod.source or bn.source
        removed.add(id(bn))
    graph.nodes = [n for n in graph.nodes if id(n) not in removed]
    return graph


def eliminate_dead_code(graph):
    """Drop nodes none of whose outputs reach a graph output (keeps the plan honest)."""
    live = {t.id for t in graph.outputs}
    kept = []
    for n in reversed(graph.nodes):
        if any(o.id in live for o in n.outputs):
            kept.append(n)
            for t in n.tensor_inputs():
                live.add(t.id)
    graph.nodes = list(reversed(kept))
    return graph


LINEAR = "aten::linear.out"


def decompose_linear(graph):
    nodes = []
    for n in graph.nodes:
        if n.op != LINEAR:
            nodes.append(n)
            continue
        x, w, b = n.args
        (out,) = n.outputs
        if x.order != tuple(range(len(x.shape))):
            raise ExportError("linear on a tensor that is not contiguous", op=n.op, source=n.source)
        rows = 1
        for s in x.shape[:-1]:
            rows *= s
        if w.is_const:
            wt = graph.constant(np.ascontiguousarray(w.data.T), w.name + ".T")
        else:
            wt = graph.new_tensor(w.shape[::-1], w.dtype)
            nodes.append(Node("aten::permute_copy.out", [w, [1, 0]], [wt], n.source))
        x2 = x
        if len(x.shape) != 2:
            x2 = graph.new_tensor((rows, x.shape[-1]), x.dtype)
            nodes.append(Node(ALIAS, [x], [x2], n.source))
        y2 = out if len(out.shape) == 2 else graph.new_tensor((rows, w.shape[0]), out.dtype)
        if b is None:
            nodes.append(Node("aten::mm.out", [x2, wt], [y2], n.source))
        else:
            nodes.append(Node("aten::addmm.out", [b, x2, wt, 1, 1], [y2], n.source))
        if y2 is not out:
            nodes.append(Node(ALIAS, [y2], [out], n.source))
    graph.nodes = nodes
    return graph


def run_default_passes(graph, fold_bn=True):
    decompose_linear(graph)
    if fold_bn:
        fold_batchnorm(graph)
    eliminate_dead_code(graph)
    return graph
