"""ATen-graph front end: the path for torch.export (torch >= 2.1), testable today via make_fx.

`torch.export.export(m, args).run_decompositions()` and torch 1.13's
`torch.fx.experimental.proxy_tensor.make_fx(m)(*args)` both give an fx graph whose call nodes are
ATen OpOverloads (`aten.convolution.default`, `aten.add.Tensor`, ...) with positional
arguments. This module maps those functional ops onto the same IR out-variant nodes the fx
front end emits, filling omitted arguments from the op's own schema, so BN folding, lowering,
memory planning and serialisation are shared unchanged. The driver loop (shape propagation by
running the graph once, constant folding, error reporting) is FxFrontend's.

What differs from the module-level fx front end: views arrive as `view`/`_reshape_alias`/
`_unsafe_view`/`as_strided` (aliases when they describe the contiguous layout), linear arrives
decomposed as `t` + `addmm` (the `t` of a parameter is constant-folded), and parameters are
`get_attr` constants (make_fx) or lifted placeholders listed in the export graph signature.
"""

import operator
import re

import numpy as np
import torch

from ..ir import Tensor
from .fx import FxFrontend, _adaptive_avg_common, _norm_dim, np_dtype
from .fx import _binary as _fx_binary

aten = torch.ops.aten


def _fill(target, args, kwargs):
    """Positional argument list of an OpOverload call with every default filled in."""
    out = []
    for i, a in enumerate(target._schema.arguments):
        if i < len(args):
            out.append(args[i])
        elif a.name in kwargs:
            out.append(kwargs[a.name])
        elif a.has_default_value():
            out.append(a.default_value)
        else:
            out.append(None)
    return out


def _contiguous_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return list(reversed(strides))


def _alias(fe, a, res):
    x = fe.tensor(a[0])
    return fe.alias(x, tuple(res.shape))


def _as_strided(fe, a, res):
    x = fe.tensor(a[0])
    size, stride = list(a[1]), list(a[2])
    offset = a[3] if len(a) > 3 and a[3] is not None else 0
    live = [st for s, st in zip(size, stride) if s != 1]
    want = [st for s, st in zip(size, _contiguous_strides(size)) if s != 1]
    if offset or live != want or int(np.prod(size)) != int(np.prod(x.shape)):
        raise fe.error("as_strided with a non-contiguous layout is not supported")
    return fe.alias(x, tuple(res.shape))


def _binary(kind):
    """The fx front end's handler: tensor (op) tensor, tensor (op) scalar and scalar (op) tensor
    (`1.0 - x` arrives here as sub.Tensor(1.0, x)) give the same calls in both front ends."""
    inner = _fx_binary(kind)

    def h(fe, a, res):
        kwargs = {"alpha": a[2]} if kind in ("add", "sub") else {}
        return inner(fe, [a[0], a[1]], kwargs, res)
    return h


# `c / x` arrives decomposed as mul(reciprocal(x), c). A reciprocal whose only user is such a mul
# emits nothing (its value stands for x) and the mul emits the fx front end's scalar-first
# div.out(c, x): the same program, and the single division is the more exact one in general.
def _reciprocal(fe, a, res, fusable):
    x = fe.tensor(a[0])
    if fusable:
        return x
    return _fx_binary("div")(fe, [1.0, x], {}, res)


def _div_by_reciprocal(n):
    """Handler for a mul whose tensor operand is a fusable reciprocal (the fx node says which)."""
    recip_first = isinstance(n.args[0], torch.fx.Node) and _is_fused_reciprocal(n.args[0])

    def h(fe, args, kwargs, res):
        x, c = (args[0], args[1]) if recip_first else (args[1], args[0])
        return _fx_binary("div")(fe, [c, x], {}, res)
    return h


def _is_fused_reciprocal(node):
    return (node.op == "call_function" and node.target is aten.reciprocal.default
            and _fusable_reciprocal(node))


def _fusable_reciprocal(n):
    users = list(n.users)
    if len(users) != 1:
        return False
    u = users[0]
    if not isinstance(u.target, torch._ops.OpOverload) or u.target not in (
            aten.mul.Tensor, aten.mul.Scalar):
        return False
    other = u.args[1] if u.args[0] is n else u.args[0]
    return isinstance(other, (int, float)) and not isinstance(other, bool)


_VIEW_TARGETS = ("view.default", "_unsafe_view.default", "reshape.default", "view_copy.default")


def _key(node):
    t = node.target
    if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
        return ""
    return f"{t._schema.name.split('::')[-1]}.{t._overloadname}"


def _nd_linear(n, key):
    """nn.Linear on an N-D input arrives as view(x, [-1, in]) -> addmm/mm with t(W) -> view back.
    Returns a handler emitting the fx front end's linear.out(x, W, b) on the N-D input (the views
    then alias it and the folded W^T is unused), or None when `n` is not that pattern."""
    stack = n.meta.get("source_fn_stack") or []
    if not stack or stack[-1][1] not in (torch.nn.Linear, torch.nn.functional.linear):
        return None
    bias_first = key == "addmm.default"
    inp, wt = (n.args[1], n.args[2]) if bias_first else (n.args[0], n.args[1])
    users = list(n.users)
    if not (isinstance(inp, torch.fx.Node) and _key(inp) in _VIEW_TARGETS
            and isinstance(wt, torch.fx.Node) and _key(wt) in ("t.default", "permute.default")
            and isinstance(wt.args[0], torch.fx.Node) and wt.args[0].op == "get_attr"
            and len(users) == 1 and _key(users[0]) in _VIEW_TARGETS):
        return None
    src, out = inp.args[0], users[0]
    if not isinstance(src, torch.fx.Node) or "val" not in src.meta or "val" not in out.meta \
            or src.meta["val"].dim() <= 2:
        return None

    def h(fe, args, kwargs, res):
        x, w = fe.tensor(fe.env[src]), fe.tensor(fe.env[wt.args[0]], "weight")
        b = args[0] if bias_first else None
        return fe.emit("aten::linear.out", [x, w, b], [tuple(out.meta["val"].shape)],
                       [x.dtype])[0]
    return h


def _adaptive_avg(fe, a, res):
    return _adaptive_avg_common(fe, a[0], a[1], res)


def _simple(op, n_args):
    def h(fe, a, res):
        return fe.emit1(op, list(a[:n_args]), res)
    return h


def _softmax(op):
    def h(fe, a, res):
        x = fe.tensor(a[0])
        return fe.emit1(op, [x, _norm_dim(a[1], len(x.shape)), bool(a[2])], res)
    return h


def _permute(fe, a, res):
    x = fe.tensor(a[0])
    dims = [_norm_dim(d, len(x.shape)) for d in a[1]]
    return fe.emit1("aten::permute_copy.out", [x, dims], res)


def _transpose(fe, a, res):
    x = fe.tensor(a[0])
    dims = list(range(len(x.shape)))
    i, j = _norm_dim(a[1], len(dims)), _norm_dim(a[2], len(dims))
    dims[i], dims[j] = dims[j], dims[i]
    return fe.emit1("aten::permute_copy.out", [x, dims], res)


def _t(fe, a, res):
    x = fe.tensor(a[0])
    return fe.emit1("aten::permute_copy.out", [x, list(range(len(x.shape)))[::-1]], res)


def _max_pool(fe, a, res):
    x = fe.tensor(a[0])
    k = list(a[1])
    s = list(a[2]) if a[2] else list(k)
    out, idx = fe.emit("aten::max_pool2d_with_indices.out",
                       [x, k, s, list(a[3]), list(a[4]), bool(a[5])],
                       [tuple(res[0].shape), tuple(res[1].shape)], [x.dtype, np.int64])
    return (out, idx)


def _avg_pool(fe, a, res):
    x = fe.tensor(a[0])
    k = list(a[1])
    s = list(a[2]) if a[2] else list(k)
    return fe.emit1("aten::avg_pool2d.out", [x, k, s, list(a[3]), bool(a[4]), bool(a[5]), a[6]], res)


def _reduce(op):
    def h(fe, a, res):
        x = fe.tensor(a[0])
        if a[3] is not None:
            raise fe.error("reductions with dtype= are not supported")
        dims = list(range(len(x.shape))) if a[1] is None else [_norm_dim(d, len(x.shape)) for d in a[1]]
        return fe.emit1(op, [x, dims, bool(a[2]), None], res)
    return h


def _cat(fe, a, res):
    return fe.emit1("aten::cat.out", [[fe.tensor(t) for t in a[0]], _norm_dim(a[1], len(res.shape))], res)


def _batch_norm(fe, x, w, b, rm, rv, momentum, eps, res0):
    out, m, v = fe.emit("aten::_native_batch_norm_legit_no_training.out",
                        [x, w, b, fe.tensor(rm), fe.tensor(rv), float(momentum), float(eps)],
                        [x.shape, (0,), (0,)], [x.dtype] * 3)
    return (out, m, v)


def _native_batch_norm(fe, a, res):
    x, w, b, rm, rv, training, momentum, eps = a[:8]
    if training:
        raise fe.error("batch norm in training mode is not supported")
    return _batch_norm(fe, fe.tensor(x), w, b, rm, rv, momentum, eps, res[0])


def _bn_legit(fe, a, res):
    x, w, b, rm, rv, training, momentum, eps = a[:8]
    if training:
        raise fe.error("batch norm in training mode is not supported")
    return _batch_norm(fe, fe.tensor(x), w, b, rm, rv, momentum, eps, res[0])


def _bn_no_training(fe, a, res):
    x, w, b, rm, rv, momentum, eps = a[:7]
    return _batch_norm(fe, fe.tensor(x), w, b, rm, rv, momentum, eps, res[0])


def _layer_norm(fe, a, res):
    x = fe.tensor(a[0])
    outs = fe.emit("aten::native_layer_norm.out", [x, list(a[1]), a[2], a[3], float(a[4])],
                   [tuple(r.shape) for r in res], [x.dtype] * 3)
    return tuple(outs)


def _expand(fe, a, res):
    x = fe.tensor(a[0])
    if tuple(res.shape) == x.shape:
        return x
    return fe.emit1("aten::expand_copy.out", [x, list(res.shape), False], res)


def _to_copy(fe, a, res):
    x = fe.tensor(a[0])
    if np_dtype(res.dtype) == x.dtype:
        return fe.emit1("aten::clone.out", [x, None], res)
    return fe.emit1("dim_order_ops::_to_dim_order_copy.out", [x, False, list(range(len(x.shape)))], res)


def _upsample(fe, a, res):
    x = fe.tensor(a[0])
    size = list(a[1]) if a[1] is not None else None
    scales = [float(s) for s in a[2]] if a[2] is not None else None
    return fe.emit1("aten::upsample_nearest2d.vec_out", [x, size, scales], res)


def _upsample_size(fe, a, res):
    """upsample_nearest2d(input, output_size, scales_h, scales_w): the same vec_out call the fx
    front end writes (scale factors when they were given, else the output size)."""
    x = fe.tensor(a[0])
    if a[2] is not None and a[3] is not None:
        return fe.emit1("aten::upsample_nearest2d.vec_out", [x, None, [float(a[2]), float(a[3])]],
                        res)
    return fe.emit1("aten::upsample_nearest2d.vec_out", [x, list(a[1]), None], res)


def _clamp(fe, a, res):
    x = fe.tensor(a[0])
    cv = lambda v: None if v is None else float(v)  # noqa: E731
    return fe.emit1("aten::clamp.out", [x, cv(a[1]), cv(a[2])], res)


def _eq(fe, a, res):
    return fe.emit1("aten::eq.Scalar_out", [fe.tensor(a[0]), a[1]], res)


_VIEWS = ["view.default", "_reshape_alias.default", "_unsafe_view.default", "reshape.default",
          "view_copy.default", "squeeze.dim", "squeeze.default", "unsqueeze.default",
          "unsqueeze_copy.default", "squeeze_copy.dim", "flatten.using_ints", "alias.default",
          "detach.default", "lift_fresh_copy.default", "dropout.default"]

ATEN_HANDLERS = {
    "add.Tensor": _binary("add"), "add.Scalar": _binary("add"),
    "sub.Tensor": _binary("sub"), "sub.Scalar": _binary("sub"),
    "mul.Tensor": _binary("mul"), "mul.Scalar": _binary("mul"),
    "div.Tensor": _binary("div"), "div.Scalar": _binary("div"),
    "relu.default": _simple("aten::relu.out", 1),
    "sigmoid.default": _simple("aten::sigmoid.out", 1),
    "tanh.default": _simple("aten::tanh.out", 1),
    "hardtanh.default": lambda fe, a, res: fe.emit1(
        "aten::hardtanh.out", [fe.tensor(a[0]), float(a[1]), float(a[2])], res),
    "clamp.default": _clamp,
    "_softmax.default": _softmax("aten::_softmax.out"),
    "_log_softmax.default": _softmax("aten::_log_softmax.out"),
    "convolution.default": _simple("aten::convolution.out", 9),
    "addmm.default": _simple("aten::addmm.out", 5),
    "mm.default": _simple("aten::mm.out", 2),
    "bmm.default": _simple("aten::bmm.out", 2),
    "linear.default": _simple("aten::linear.out", 3),
    "permute.default": _permute, "permute_copy.default": _permute,
    "transpose.int": _transpose, "t.default": _t,
    "max_pool2d_with_indices.default": _max_pool,
    "avg_pool2d.default": _avg_pool,
    "_adaptive_avg_pool2d.default": _adaptive_avg, "adaptive_avg_pool2d.default": _adaptive_avg,
    "mean.dim": _reduce("aten::mean.out"), "sum.dim_IntList": _reduce("aten::sum.IntList_out"),
    "cat.default": _cat,
    "expand.default": _expand, "expand_copy.default": _expand,
    "clone.default": lambda fe, a, res: fe.emit1("aten::clone.out", [fe.tensor(a[0]), None], res),
    "_to_copy.default": _to_copy,
    "upsample_nearest2d.vec": _upsample, "upsample_nearest2d.default": _upsample_size,
    "constant_pad_nd.default": lambda fe, a, res: fe.emit1(
        "aten::constant_pad_nd.out", [fe.tensor(a[0]), list(a[1]), float(a[2])], res),
    "native_layer_norm.default": _layer_norm,
    "native_batch_norm.default": _native_batch_norm,
    "_native_batch_norm_legit.default": _bn_legit,
    "_native_batch_norm_legit_no_training.default": _bn_no_training,
    "eq.Scalar": _eq,
    "where.self": _simple("aten::where.self_out", 3),
    "as_strided.default": _as_strided, "as_strided_.default": _as_strided,
}
for _v in _VIEWS:
    ATEN_HANDLERS[_v] = _alias


def _from_dropout(n):
    """torch.export (2.x) writes eval-mode nn.Dropout / F.dropout as aten.clone; its node records
    the source function. A clone the user wrote stays a clone.out."""
    stack = n.meta.get("source_fn_stack") or []
    if not stack:
        return False
    fn = stack[-1][1]
    if isinstance(fn, type):
        return issubclass(fn, torch.nn.modules.dropout._DropoutNd)
    return fn in (torch.nn.functional.dropout, torch.nn.functional.dropout2d,
                  torch.nn.functional.dropout1d, torch.dropout) or fn == "dropout"


def _from_adaptive_pool(n):
    stack = n.meta.get("source_fn_stack") or []
    return bool(stack) and stack[-1][1] in (torch.nn.AdaptiveAvgPool2d,
                                            torch.nn.functional.adaptive_avg_pool2d)


def _mean_sorted(fe, a, res):
    """Global average pooling's mean: dims in ascending order, as the fx front end emits it (the
    same reduction; the program is then byte-identical)."""
    x = fe.tensor(a[0])
    dims = sorted(_norm_dim(d, len(x.shape)) for d in a[1])
    return fe.emit1("aten::mean.out", [x, dims, bool(a[2]), None], res)


ATEN_HANDLERS["mean.dim_sorted"] = _mean_sorted


class AtenFrontend(FxFrontend):
    """FxFrontend driver with handlers keyed by ATen OpOverload instead of module/function."""

    def _handler(self, n):
        if n.op != "call_function":
            return None
        if n.target is operator.getitem:
            return lambda fe, args, kwargs, res: args[0][args[1]]
        if not isinstance(n.target, torch._ops.OpOverload):
            return None
        key = f"{n.target._schema.name.split('::')[-1]}.{n.target._overloadname}"
        if key == "clone.default" and _from_dropout(n):
            key = "dropout.default"      # eval-mode dropout: a view, as the fx front end makes it
        if key == "mean.dim" and _from_adaptive_pool(n):
            key = "mean.dim_sorted"      # its decomposition reduces over [-1, -2]; fx writes [2, 3]
        if key in ("mul.Tensor", "mul.Scalar") and any(
                isinstance(x, torch.fx.Node) and _is_fused_reciprocal(x) for x in n.args[:2]):
            return _div_by_reciprocal(n)
        if key in ("addmm.default", "mm.default"):
            h = _nd_linear(n, key)
            if h is not None:
                return h
        if key == "reciprocal.default":
            fusable = _fusable_reciprocal(n)
            return lambda fe, args, kwargs, res: _reciprocal(fe, list(args), res, fusable)
        h = ATEN_HANDLERS.get(key)
        if h is None:
            return None
        target = n.target
        return lambda fe, args, kwargs, res: h(fe, _fill(target, list(args), kwargs), res)


# Ops kept whole by run_decompositions(): the core ATen table would lower them to ops the runtime
# has no kernel for (nearest upsampling becomes aten.index.Tensor with computed index tensors),
# while etmcu and upstream's portable library implement them directly.
_KEEP = ("upsample_nearest2d.vec", "upsample_nearest2d.default")


def _decomp_table():
    table = torch.export.default_decompositions()
    for name in _KEEP:
        packet, overload = name.split(".")
        op = getattr(getattr(aten, packet), overload)
        if op in table:
            del table[op]
    return table


def export_graph(module, example_inputs):
    """torch.export.export(module, inputs).run_decompositions(...) as a GraphModule with the
    parameters bound (`ExportedProgram.module()`); tracing failures become one ExportError."""
    from .fx import trace_error
    try:
        ep = torch.export.export(module, tuple(example_inputs), strict=True)
        if hasattr(torch.export, "default_decompositions"):     # torch 2.6 has it
            ep = ep.run_decompositions(_decomp_table())
        else:
            ep = ep.run_decompositions()
    except Exception as e:  # noqa: BLE001 - dynamo/export errors: one message, no traceback
        raise trace_error(e, module, "torch.export") from None
    return ep.module()


def _fqn(path):
    """A layer's qualified name ("net.1") from an nn_module_stack path. torch.export normalises
    most to that already; dynamo's own spellings remain when forward's first argument is not
    called `self` or for containers: "getattr(L.s.net, '1')", "L['self'].blocks['a']"."""
    dynamo = path.startswith(("L[", "L.", "L__self__", "getattr("))
    prev = None
    while prev != path:           # getattr(A, 'k') -> A.k, innermost first
        prev = path
        path = re.sub(r"getattr\(([^(),]*),\s*['\"]([^'\"]+)['\"]\)", r"\1.\2", path)
    path = re.sub(r"\[['\"]?([^\]'\"]+)['\"]?\]", r".\1", path)      # x['k'], x[0] -> x.k
    if dynamo:                    # drop the root: L.self / L.<first argument> / L__self__
        path = re.sub(r"^(L__self__|L\.[A-Za-z_]\w*)", "", path)
    return path.strip(".")


def module_path(n):
    """The module path ("net.0") of the innermost layer an ATen node came from, from torch.export's
    `nn_module_stack` (outermost first; values (path, type)). "" at top level."""
    stack = n.meta.get("nn_module_stack") or {}
    for value in reversed(list(stack.values())):
        path = value[0] if isinstance(value, (tuple, list)) and value else value
        if isinstance(path, str) and _fqn(path):
            return _fqn(path)
    return ""


def trace_aten(module, example_inputs):
    """ATen graph of `module`: torch.export when available (torch >= 2.1), else make_fx."""
    if hasattr(torch, "export") and hasattr(torch.export, "export"):
        gm = export_graph(module, example_inputs)
        for n in gm.graph.nodes:     # the layer names of profiles and fp32 reports, as fx's
            n.meta["etmcu_module"] = module_path(n)
        return AtenFrontend(gm, example_inputs, eager=module).run()
    from torch.fx.experimental.proxy_tensor import make_fx
    from .fx import trace_error
    try:
        with torch.no_grad():
            gm = make_fx(module)(*[x.clone() for x in example_inputs])   # it runs the model
    except Exception as e:  # noqa: BLE001
        raise trace_error(e, module, "make_fx") from None
    return AtenFrontend(gm, example_inputs, eager=module).run()
