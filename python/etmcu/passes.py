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
            nodes.append(Node("aten::permute_copy.out", [w, [1, 0]], [wt], n.source, n.module))
        x2 = x
        if len(x.shape) != 2:
            x2 = graph.new_tensor((rows, x.shape[-1]), x.dtype)
            nodes.append(Node(ALIAS, [x], [x2], n.source, n.module))
        y2 = out if len(out.shape) == 2 else graph.new_tensor((rows, w.shape[0]), out.dtype)
        if b is None:
            nodes.append(Node("aten::mm.out", [x2, wt], [y2], n.source, n.module))
        else:
            nodes.append(Node("aten::addmm.out", [b, x2, wt, 1, 1], [y2], n.source, n.module))
        if y2 is not out:
            nodes.append(Node(ALIAS, [y2], [out], n.source, n.module))
    graph.nodes = nodes
    return graph


CONV = "aten::convolution.out"
# Ops that compute element by element, so they run unchanged on the [N, C, 1, L] view.
_ELEMENTWISE_1 = ("aten::relu.out", "aten::hardtanh.out", "aten::clamp.out", "aten::sigmoid.out",
                  "aten::tanh.out", "aten::hardswish.out", "aten::hardsigmoid.out",
                  "aten::silu.out")
_ELEMENTWISE_2 = ("aten::add.out", "aten::mul.out")


def lift_1d(graph):
    """Run 1-D layers on the 2-D kernels: a Conv1d over [N, C, L] becomes a convolution with a
    (1, k) kernel over the view [N, C, 1, L], and the element-wise ops, adds and time means that
    follow it run on that view too, so a chain of Conv1d layers stays 4-D (and channels-last in
    int8) from end to end, with views only where a 3-D tensor is really read. Views cost no
    instruction. Used by the int8 export, whose kernels are 2-D only."""
    as4 = {}           # 3-D tensor id -> the 4-D tensor [N, C, 1, L] holding the same bytes
    nodes = []

    def view4(x, n):
        if x.id not in as4:
            t = graph.new_tensor((x.shape[0], x.shape[1], 1, x.shape[2]), x.dtype)
            nodes.append(Node(ALIAS, [x], [t], n.source, n.module))
            as4[x.id] = t
        return as4[x.id]

    def back(y4, y, n):
        nodes.append(Node(ALIAS, [y4], [y], n.source, n.module))
        as4[y.id] = y4

    for n in graph.nodes:
        y = n.outputs[0] if n.outputs else None
        if n.op == CONV and len(n.args[0].shape) == 3 and not n.args[6] and n.args[1].is_const:
            x, w, b, stride, padding, dilation, _, _, groups = n.args
            x4 = view4(x, n)
            w4 = graph.constant(w.data.reshape(w.shape[0], w.shape[1], 1, w.shape[2]), w.name)
            y4 = graph.new_tensor((y.shape[0], y.shape[1], 1, y.shape[2]), y.dtype)
            nodes.append(Node(CONV, [x4, w4, b, [1, stride[0]], [0, padding[0]],
                                     [1, dilation[0]], False, [0, 0], groups], [y4],
                              n.source, n.module))
            back(y4, y, n)
        elif n.op in _ELEMENTWISE_1 and n.args[0].id in as4 and y.shape == n.args[0].shape:
            y4 = graph.new_tensor(as4[n.args[0].id].shape, y.dtype)
            nodes.append(Node(n.op, [as4[n.args[0].id]] + list(n.args[1:]), [y4], n.source,
                              n.module))
            back(y4, y, n)
        elif (n.op in _ELEMENTWISE_2 and hasattr(n.args[1], "id") and n.args[0].id in as4
              and n.args[1].id in as4 and n.args[0].shape == n.args[1].shape == y.shape):
            y4 = graph.new_tensor(as4[n.args[0].id].shape, y.dtype)
            nodes.append(Node(n.op, [as4[n.args[0].id], as4[n.args[1].id]] + list(n.args[2:]),
                              [y4], n.source, n.module))
            back(y4, y, n)
        elif (n.op == "aten::constant_pad_nd.out" and len(n.args[0].shape) == 3
              and len(n.args[1]) == 2 and not n.args[0].is_const):
            # padding of the time axis (Conv1d padding='same' with an even kernel): W of the view
            x = n.args[0]
            y4 = graph.new_tensor((y.shape[0], y.shape[1], 1, y.shape[2]), y.dtype)
            nodes.append(Node(n.op, [view4(x, n)] + list(n.args[1:]), [y4], n.source, n.module))
            back(y4, y, n)
        elif (n.op == "aten::mean.out" and len(n.args[0].shape) == 3 and n.args[3] is None
              and not n.args[0].is_const and [d % 3 for d in (n.args[1] or [])] == [2]):
            # mean over time: a global average over the [N, C, 1, L] view, then a view back
            x = n.args[0]
            y4 = graph.new_tensor((x.shape[0], x.shape[1], 1, 1), y.dtype)
            nodes.append(Node(n.op, [view4(x, n), [2, 3], True, None], [y4], n.source,
                              n.module))
            nodes.append(Node(ALIAS, [y4], [y], n.source, n.module))
        else:
            nodes.append(n)
    graph.nodes = nodes
    eliminate_dead_code(graph)
    return graph


def decompose_activations(graph):
    """Hardswish, Hardsigmoid and SiLU left in fp32 (int8 ones became lookup tables) become the
    portable kernels' ops: hardsigmoid(x) = hardtanh(x + 3, 0, 6) / 6, hardswish(x) = x *
    hardsigmoid(x), silu(x) = x * sigmoid(x). The front ends emit them as one op each so the
    int8 export sees one activation."""
    nodes = []
    for n in graph.nodes:
        if n.op not in ("aten::hardswish.out", "aten::hardsigmoid.out", "aten::silu.out"):
            nodes.append(n)
            continue
        x, (y,) = n.args[0], n.outputs

        def node(op, args, out=None):
            t = out if out is not None else graph.new_tensor(x.shape, x.dtype)
            nodes.append(Node(op, args, [t], n.source, n.module))
            return t

        if n.op == "aten::silu.out":
            node("aten::mul.out", [x, node("aten::sigmoid.out", [x])], y)
            continue
        shifted = node("aten::add.Scalar_out", [x, 3.0, 1])
        clipped = node("aten::hardtanh.out", [shifted, 0.0, 6.0])
        if n.op == "aten::hardsigmoid.out":
            node("aten::div.Scalar_out", [clipped, 6.0], y)
        else:
            node("aten::div.Scalar_out", [node("aten::mul.out", [x, clipped]), 6.0], y)
    graph.nodes = nodes
    return graph


MAX_POOL = "aten::max_pool2d_with_indices.out"


def drop_unused_pool_indices(graph):
    """A max pool whose int64 indices nothing reads (every nn.MaxPool2d without return_indices)
    gets an indices tensor with no elements, which the portable kernel does not write: no int64
    buffer, 8 bytes per output element, is planned for it. (Upstream's portable kernel wants
    indices of the output's shape; such a program is etmcu-only.)"""
    users = graph.users()
    outputs = {t.id for t in graph.outputs}
    for n in graph.nodes:
        if n.op != MAX_POOL or len(n.outputs) != 2:
            continue
        idx = n.outputs[1]
        if users.get(idx.id) or idx.id in outputs or not idx.nbytes:
            continue
        n.outputs[1] = graph.new_tensor((0,) * len(idx.shape), idx.dtype, name="no_indices")
    return graph


def run_default_passes(graph, fold_bn=True):
    decompose_linear(graph)
    if fold_bn:
        fold_batchnorm(graph)
    eliminate_dead_code(graph)
    drop_unused_pool_indices(graph)
    return graph
