"""torch.fx front end (torch 1.13): trace an nn.Module and translate it into the etmcu IR.

Why fx: torch 1.13 has neither torch.export nor dynamo. `symbolic_trace` gives a graph of module
calls, torch functions and tensor methods; running that graph once on the example inputs with an
fx Interpreter gives every node's concrete result, i.e. shape propagation for every node plus the
values of shape arithmetic (`x.size(0)`), which become static constants.

Each fx node is translated by a handler into IR nodes that already name the upstream out-variant
operator with schema-ordered arguments (see etmcu/ir.py). Anything without a handler is an
ExportError naming the op and the user's source line; nothing is guessed.

Nodes whose tensor inputs are all constants are constant-folded from the interpreter's result
(e.g. `self.weight.t()`, `torch.zeros(...)`), so they cost no instruction on the device.
"""

import operator
import os
import re
import traceback

import numpy as np
import torch
import torch.fx
import torch.nn.functional as F
from torch import nn

from ..errors import ExportError
from ..ir import ALIAS, Graph, Tensor
from .recurrent import gru_module, lstm_module

_TORCH_DIR = os.path.dirname(torch.__file__)
_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*\n([^\n]*)')


_ETMCU_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# torch 1.13's fx records stack traces innermost frame first; torch 2.x (fx and torch.export) in
# Python's usual order, innermost last.
_INNERMOST_FIRST = int(torch.__version__.split(".")[0]) < 2


def user_source(fx_node):
    """The innermost stack frame of the user's code (not torch, etmcu or Python's own
    '<frozen ...>' frames): 'file:line: code'."""
    trace = getattr(fx_node, "stack_trace", None) or ""
    frames = _FRAME_RE.findall(trace)
    if not _INNERMOST_FIRST:
        frames.reverse()
    for fname, line, code in frames:
        path = os.path.abspath(fname)
        if not (path.startswith(_TORCH_DIR) or path.startswith(_ETMCU_DIR) or fname.startswith("<")):
            return f"{fname}:{line}: {code.strip()}"
    return ""


def np_dtype(torch_dtype):
    return torch.empty(0, dtype=torch_dtype).numpy().dtype


def _norm_dim(d, rank):
    return d + rank if d < 0 else d


def _pair(v, n=2):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return [int(v[0])] * n
        return [int(x) for x in v]
    return [int(v)] * n


def _op_name(fx_node, gm=None):
    t = fx_node.target
    if fx_node.op == "call_module" and gm is not None:
        mod = gm.get_submodule(t)
        return f"{type(mod).__module__}.{type(mod).__name__}"
    if fx_node.op == "call_function":
        if isinstance(t, torch._ops.OpOverload):
            return str(t)                      # e.g. aten.erf.default
        mod = getattr(t, "__module__", None) or ""
        name = getattr(t, "__name__", repr(t))
        if mod in ("_operator", "operator"):
            return f"operator.{name}"
        return f"{mod}.{name}" if mod else name
    if fx_node.op == "call_method":
        return f"Tensor.{t}"
    return str(t)


def _has_tensor(v):
    if isinstance(v, torch.Tensor):
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_tensor(x) for x in v)
    if isinstance(v, dict):
        return any(_has_tensor(x) for x in v.values())
    return False


def _has_ir_tensor(v, dynamic_only=False):
    if isinstance(v, Tensor):
        return not (dynamic_only and v.is_const)
    if isinstance(v, (list, tuple)):
        return any(_has_ir_tensor(x, dynamic_only) for x in v)
    if isinstance(v, dict):
        return any(_has_ir_tensor(x, dynamic_only) for x in v.values())
    return False


class _Recorder(torch.fx.Interpreter):
    """Runs the traced graph once and remembers every node's result (shape propagation)."""

    def __init__(self, gm):
        super().__init__(gm)
        self.results = {}

    def run_node(self, n):
        r = super().run_node(n)
        self.results[n] = r
        return r


class FxFrontend:
    """Translate a traced GraphModule + recorded results into an etmcu IR Graph."""

    def __init__(self, gm, example_inputs, eager=None):
        self.gm = gm
        self.eager = eager
        self.example_inputs = example_inputs
        self.g = Graph()
        self.env = {}
        self.node = None          # the fx node being translated (for error messages)
        self.source = ""
        self.module = ""          # module path of the fx node being translated ("net.0")
        self._const_cache = {}
        # Parameters and buffers by identity -> their fully qualified name ("fc1.weight"): the name
        # a constant keeps (it is the key of an external constant in the .ptd, as upstream's).
        self._fqn = {}
        for name, t in list(gm.named_parameters()) + list(gm.named_buffers()):
            self._fqn.setdefault(id(t), name)

    # ---- helpers used by handlers -------------------------------------------------------------
    def error(self, message, op=None):
        return ExportError(message, op=op or (_op_name(self.node, self.gm) if self.node else None),
                           source=self.source)

    def const(self, tensor, name=""):
        """A constant IR tensor for a torch tensor (parameters are cached by identity)."""
        key = id(tensor)
        hit = self._const_cache.get(key)
        if hit is not None and hit[0] is tensor:
            return hit[1]
        data = tensor.detach().cpu().contiguous().numpy().copy()
        t = self.g.constant(data, self._fqn.get(key, name))
        self._const_cache[key] = (tensor, t)
        return t

    def emit(self, op, args, out_shapes, out_dtypes=None):
        """Append one IR node; returns its output tensors."""
        out_dtypes = out_dtypes or [np.float32] * len(out_shapes)
        outs = [self.g.new_tensor(s, d) for s, d in zip(out_shapes, out_dtypes)]
        self.g.nodes.append(_node(op, args, outs, self.source, self.module))
        return outs

    def emit1(self, op, args, like):
        """One-output node whose output shape/dtype is the torch example result `like`."""
        return self.emit(op, args, [tuple(like.shape)], [np_dtype(like.dtype)])[0]

    def alias(self, x, shape):
        """A view: same bytes, new shape, no instruction."""
        if tuple(shape) == tuple(x.shape):
            return x
        if x.is_const:
            return self.g.constant(x.data.reshape(shape), x.name)
        return self.emit(ALIAS, [x], [tuple(shape)], [x.dtype])[0]

    def tensor(self, v, what="argument"):
        if not isinstance(v, Tensor):
            raise self.error(f"expected a tensor {what}, got {type(v).__name__}")
        return v

    # ---- driver -------------------------------------------------------------------------------
    def run(self):
        recorder = _Recorder(self.gm)
        with torch.no_grad():   # on copies: a graph may write into its inputs (x.add_(1))
            traced_out = recorder.run(*_copies(self.example_inputs))
        results = recorder.results
        self._check_against_eager(traced_out)
        placeholders = iter(self.example_inputs)
        for n in self.gm.graph.nodes:
            self.node = n
            self.source = user_source(n)
            self.module = n.meta.get("etmcu_module", "")
            res = results.get(n)
            if n.op == "placeholder":
                ex = next(placeholders, None)
                if ex is None:          # forward(x, scale=2.0) called with x only: the default
                    if n.args and not _has_tensor(n.args[0]):
                        self.env[n] = n.args[0]
                        continue
                    raise self.error(f"forward() has more inputs than the {len(self.example_inputs)} "
                                     f"given (next: '{n.target}'): give --input-shape for each",
                                     op="forward")
                t = self.g.new_tensor(tuple(ex.shape), np_dtype(ex.dtype), name=n.name)
                self.g.inputs.append(t)
                self.env[n] = t
                continue
            if n.op == "output":
                self._output(n)
                continue
            if n.op == "get_attr":
                self.env[n] = self.const(res, n.target) if isinstance(res, torch.Tensor) else res
                continue
            args = self._resolve(n.args)
            kwargs = self._resolve(n.kwargs)
            if not _has_tensor(res):
                # Python values: shape arithmetic and the like; static by construction.
                if _has_ir_tensor((args, kwargs), dynamic_only=True) and not _is_shape_query(n):
                    raise self.error("produces a Python value computed from tensor data "
                                     "(data-dependent values cannot be exported)")
                self.env[n] = res
                continue
            if not _has_ir_tensor((args, kwargs), dynamic_only=True) and _foldable(n):
                self.env[n] = self._fold(res)
                continue
            handler = self._handler(n)
            if handler is None:
                name = _op_name(n, self.gm)
                raise self.error(f"unsupported operation '{name}'", op=name)
            if n.op == "call_module":
                mod = self.gm.get_submodule(n.target)
                self.env[n] = handler(self, mod, args, kwargs, res)
            else:
                self.env[n] = handler(self, args, kwargs, res)
        return self.g

    def _check_against_eager(self, traced_out):
        """fx can mis-trace silently (e.g. `y += 1` on an aliased tensor becomes out of place),
        so the traced graph must reproduce eager on the example inputs before we lower it."""
        if self.eager is None:
            return
        with torch.no_grad():
            eager_out = self.eager(*_copies(self.example_inputs))
        flat_t, flat_e = [], []
        for src, dst in ((traced_out, flat_t), (eager_out, flat_e)):
            stack = [src]
            while stack:
                v = stack.pop()
                if isinstance(v, (list, tuple)):
                    stack.extend(v)
                elif isinstance(v, dict):
                    stack.extend(v.values())
                elif isinstance(v, torch.Tensor):
                    dst.append(v)
        ok = len(flat_t) == len(flat_e) and all(
            a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-6)
            for a, b in zip(flat_t, flat_e))
        if not ok:
            raise ExportError("the torch.fx trace does not reproduce eager execution on the example "
                              "inputs (in-place updates of aliased tensors, or Python control flow "
                              "that fx cannot see); rewrite that code out of place", op="trace")

    def _fold(self, res):
        if isinstance(res, torch.Tensor):
            return self.const(res.clone())
        return type(res)(self._fold(r) for r in res)

    def _resolve(self, a):
        if isinstance(a, torch.fx.Node):
            return self.env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(self._resolve(x) for x in a)
        if isinstance(a, dict):
            return {k: self._resolve(v) for k, v in a.items()}
        if isinstance(a, slice):
            return slice(self._resolve(a.start), self._resolve(a.stop), self._resolve(a.step))
        return a

    def _handler(self, n):
        if n.op == "call_module":
            mod = self.gm.get_submodule(n.target)
            for cls in type(mod).__mro__:
                h = MODULE_HANDLERS.get(cls)
                if h is not None:
                    return h
            return None
        if n.op == "call_function":
            return FUNCTION_HANDLERS.get(n.target)
        if n.op == "call_method":
            return METHOD_HANDLERS.get(n.target)
        return None

    def _output(self, n):
        flat = []

        def walk(v):
            if isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for k in v:
                    walk(v[k])
            else:
                flat.append(v)

        walk(self._resolve(n.args[0]))
        seen = set()
        for v in flat:
            if not isinstance(v, Tensor):
                raise self.error("model outputs must be tensors", op="output")
            if v.is_const or v in self.g.inputs or v.id in seen:
                # An output must own planned memory the runtime can hand back: copy it.
                v = self.emit("aten::clone.out", [v, None], [v.shape], [v.dtype])[0]
            seen.add(v.id)
            self.g.outputs.append(v)


def _copies(xs):
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in xs]


def _node(op, args, outs, source, module=""):
    from ..ir import Node
    return Node(op, list(args), outs, source, module)


_SHAPE_METHODS = {"size", "dim", "numel", "ndimension", "nelement"}


def _is_shape_query(n):
    if n.op == "call_method" and n.target in _SHAPE_METHODS:
        return True
    if n.op == "call_function" and n.target is getattr and n.args[1] in ("shape", "ndim", "dtype"):
        return True
    return False


def _foldable(n):
    # Random number generators must not be baked into constants silently.
    return n.target not in (torch.rand, torch.randn, torch.randint, torch.rand_like,
                            torch.randn_like, F.dropout)


def _get(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _check_inplace(fe, inplace):
    if inplace and len(fe.node.args[0].users) > 1:
        raise fe.error("in-place operation whose input is used again afterwards "
                       "(rewrite it out of place)")


# ---- elementwise ----------------------------------------------------------------------------

def _scalar(fe, v, x):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise fe.error(f"unsupported scalar operand of type {type(v).__name__}")
    return float(v) if np.issubdtype(x.dtype, np.floating) else v


def _binary(kind):
    def handler(fe, args, kwargs, res):
        a, b = args[0], args[1]
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        if kind == "div" and kwargs.get("rounding_mode") is not None:
            raise fe.error("div with rounding_mode is not supported")
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise fe.error("binary op without tensor operands")
        if alpha != 1 and kind not in ("add", "sub"):
            raise fe.error("alpha is only valid for add/sub")
        tail = [alpha] if kind in ("add", "sub") else []
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            return fe.emit1(f"aten::{kind}.out", [a, b] + tail, res)
        if isinstance(a, Tensor):
            return fe.emit1(f"aten::{kind}.Scalar_out", [a, _scalar(fe, b, a)] + tail, res)
        # scalar (op) tensor
        if kind in ("add", "mul"):
            return fe.emit1(f"aten::{kind}.Scalar_out", [b, _scalar(fe, a, b)] + tail, res)
        const = fe.g.constant(np.array(a, dtype=b.dtype))  # 0-dim constant, like upstream
        return fe.emit1(f"aten::{kind}.out", [const, b] + tail, res)
    return handler


def _rbinary(kind):
    inner = _binary(kind)

    def handler(fe, args, kwargs, res):
        return inner(fe, [args[1], args[0]], kwargs, res)
    return handler


def _iop(kind):
    """`a += b` etc.: fx records operator.iadd; fine as out-of-place if `a` is not read again."""
    inner = _binary(kind)

    def handler(fe, args, kwargs, res):
        _check_inplace(fe, True)
        return inner(fe, args, kwargs, res)
    return handler


def _unary(op):
    def handler(fe, args, kwargs, res):
        _check_inplace(fe, kwargs.get("inplace", False))
        return fe.emit1(op, [fe.tensor(args[0])], res)
    return handler


def _relu6(fe, args, kwargs, res):
    _check_inplace(fe, _get(args, kwargs, 1, "inplace", False))
    return fe.emit1("aten::hardtanh.out", [fe.tensor(args[0]), 0.0, 6.0], res)


def _hardtanh(fe, args, kwargs, res):
    _check_inplace(fe, _get(args, kwargs, 3, "inplace", False))
    lo = float(_get(args, kwargs, 1, "min_val", -1.0))
    hi = float(_get(args, kwargs, 2, "max_val", 1.0))
    return fe.emit1("aten::hardtanh.out", [fe.tensor(args[0]), lo, hi], res)


def _clamp(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    lo = _get(args, kwargs, 1, "min")
    hi = _get(args, kwargs, 2, "max")
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        raise fe.error("clamp with tensor bounds is not supported")
    lo = None if lo is None else _scalar(fe, lo, x)
    hi = None if hi is None else _scalar(fe, hi, x)
    return fe.emit1("aten::clamp.out", [x, lo, hi], res)


def _softmax(op):
    def handler(fe, args, kwargs, res):
        x = fe.tensor(args[0])
        dim = _get(args, kwargs, 1, "dim")
        if dim is None:
            raise fe.error("softmax without an explicit dim is not supported")
        if kwargs.get("dtype") is not None:
            raise fe.error("softmax with dtype= is not supported")
        return fe.emit1(op, [x, _norm_dim(dim, len(x.shape)), False], res)
    return handler


def _eq(fe, args, kwargs, res):
    a, b = args[0], args[1]
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        return fe.emit1("aten::eq.Scalar_out", [a, _scalar(fe, b, a)], res)
    raise fe.error("eq between two tensors is not supported")


def _where(fe, args, kwargs, res):
    cond, a, b = args[0], args[1], args[2]
    if not all(isinstance(v, Tensor) for v in (cond, a, b)):
        consts = [v if isinstance(v, Tensor) else fe.g.constant(np.array(v, dtype=np.float32))
                  for v in (a, b)]
        a, b = consts
    return fe.emit1("aten::where.self_out", [fe.tensor(cond), a, b], res)


# ---- convolution / linear / normalisation ---------------------------------------------------

def _conv_common(fe, x, w, b, stride, padding, dilation, groups, res, nd):
    x = fe.tensor(x)
    stride, dilation = _pair(stride, nd), _pair(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0] * nd
        elif padding == "same":
            ksize = w.shape[2:]
            pads = []
            for k, d in zip(ksize, dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            if any(lo != hi for lo, hi in pads):
                flat = []
                for lo, hi in reversed(pads):
                    flat += [lo, hi]
                shape = list(x.shape)
                for i, (lo, hi) in enumerate(pads):
                    shape[2 + i] += lo + hi
                x = fe.emit("aten::constant_pad_nd.out", [x, flat, 0.0], [tuple(shape)], [x.dtype])[0]
                padding = [0] * nd
            else:
                padding = [lo for lo, _ in pads]
        else:
            raise fe.error(f"unsupported padding '{padding}'")
    padding = _pair(padding, nd)
    return fe.emit1("aten::convolution.out",
                    [x, fe.tensor(w, "weight"), b, stride, padding, dilation, False, [0] * nd,
                     int(groups)], res)


def _conv_module(fe, mod, args, kwargs, res):
    if mod.padding_mode != "zeros":
        raise fe.error(f"Conv padding_mode='{mod.padding_mode}' is not supported")
    nd = len(mod.kernel_size)
    if nd not in (1, 2):
        raise fe.error(f"Conv{nd}d is not supported")
    w = fe.const(mod.weight, "weight")
    b = fe.const(mod.bias, "bias") if mod.bias is not None else None
    return _conv_common(fe, args[0], w, b, mod.stride, mod.padding, mod.dilation, mod.groups, res, nd)


def _conv_fn(nd):
    def handler(fe, args, kwargs, res):
        x, w = args[0], args[1]
        b = _get(args, kwargs, 2, "bias")
        return _conv_common(fe, x, w, b, _get(args, kwargs, 3, "stride", 1),
                            _get(args, kwargs, 4, "padding", 0), _get(args, kwargs, 5, "dilation", 1),
                            _get(args, kwargs, 6, "groups", 1), res, nd)
    return handler


def _linear_common(fe, x, w, b, res):
    x, w = fe.tensor(x), fe.tensor(w, "weight")
    if len(x.shape) != 2:
        return fe.emit1("aten::linear.out", [x, w, b], res)
    # 2-D input: out = b + x @ W^T. The transpose is folded into a constant when W is one
    # (no runtime permute as upstream's decomposition would emit), else done by permute_copy.
    if w.is_const:
        wt = fe.g.constant(np.ascontiguousarray(w.data.T), w.name + ".T")
    else:
        wt = fe.emit("aten::permute_copy.out", [w, [1, 0]], [w.shape[::-1]], [w.dtype])[0]
    if b is None:
        return fe.emit1("aten::mm.out", [x, wt], res)
    return fe.emit1("aten::addmm.out", [b, x, wt, 1, 1], res)


def _linear_module(fe, mod, args, kwargs, res):
    b = fe.const(mod.bias, "bias") if mod.bias is not None else None
    return _linear_common(fe, args[0], fe.const(mod.weight, "weight"), b, res)


def _linear_fn(fe, args, kwargs, res):
    return _linear_common(fe, args[0], args[1], _get(args, kwargs, 2, "bias"), res)


def _batch_norm(fe, x, w, b, rm, rv, momentum, eps, res):
    x = fe.tensor(x)
    if rm is None or rv is None:
        raise fe.error("batch norm without running statistics (batch statistics) is not supported")
    out, _, _ = fe.emit("aten::_native_batch_norm_legit_no_training.out",
                        [x, w, b, fe.tensor(rm), fe.tensor(rv), float(momentum), float(eps)],
                        [x.shape, (0,), (0,)], [x.dtype, x.dtype, x.dtype])
    return out


def _bn_module(fe, mod, args, kwargs, res):
    if mod.training and not mod.track_running_stats:
        raise fe.error("BatchNorm in training mode is not supported")
    w = fe.const(mod.weight, "bn.weight") if mod.weight is not None else None
    b = fe.const(mod.bias, "bn.bias") if mod.bias is not None else None
    rm = fe.const(mod.running_mean, "bn.running_mean") if mod.running_mean is not None else None
    rv = fe.const(mod.running_var, "bn.running_var") if mod.running_var is not None else None
    return _batch_norm(fe, args[0], w, b, rm, rv, mod.momentum if mod.momentum is not None else 0.1,
                       mod.eps, res)


def _bn_fn(fe, args, kwargs, res):
    if _get(args, kwargs, 5, "training", False):
        raise fe.error("batch_norm(training=True) is not supported")
    return _batch_norm(fe, args[0], _get(args, kwargs, 3, "weight"), _get(args, kwargs, 4, "bias"),
                       _get(args, kwargs, 1, "running_mean"), _get(args, kwargs, 2, "running_var"),
                       _get(args, kwargs, 6, "momentum", 0.1), _get(args, kwargs, 7, "eps", 1e-5), res)


def _layer_norm_common(fe, x, shape, w, b, eps, res):
    x = fe.tensor(x)
    shape = [int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
    axis = len(x.shape) - len(shape)
    stat_shape = tuple(x.shape[:axis]) + (1,) * len(shape)
    out, _, _ = fe.emit("aten::native_layer_norm.out", [x, shape, w, b, float(eps)],
                        [x.shape, stat_shape, stat_shape], [x.dtype] * 3)
    return out


def _ln_module(fe, mod, args, kwargs, res):
    w = fe.const(mod.weight, "ln.weight") if mod.weight is not None else None
    b = fe.const(mod.bias, "ln.bias") if mod.bias is not None else None
    return _layer_norm_common(fe, args[0], mod.normalized_shape, w, b, mod.eps, res)


def _ln_fn(fe, args, kwargs, res):
    return _layer_norm_common(fe, args[0], _get(args, kwargs, 1, "normalized_shape"),
                              _get(args, kwargs, 2, "weight"), _get(args, kwargs, 3, "bias"),
                              _get(args, kwargs, 4, "eps", 1e-5), res)


# ---- pooling / reductions -------------------------------------------------------------------

def _max_pool_common(fe, x, k, s, p, d, ceil, ret_idx, res):
    if ret_idx:
        raise fe.error("max_pool2d(return_indices=True) is not supported")
    x = fe.tensor(x)
    if len(x.shape) != 4:
        raise fe.error("max_pool2d needs a 4-D [N,C,H,W] input")
    k = _pair(k)
    s = _pair(s) if s not in (None, []) else list(k)
    out, _ = fe.emit("aten::max_pool2d_with_indices.out", [x, k, s, _pair(p), _pair(d), bool(ceil)],
                     [tuple(res.shape)] * 2, [x.dtype, np.int64])
    return out


def _maxpool_module(fe, mod, args, kwargs, res):
    return _max_pool_common(fe, args[0], mod.kernel_size, mod.stride, mod.padding, mod.dilation,
                            mod.ceil_mode, mod.return_indices, res)


def _maxpool_fn(fe, args, kwargs, res):
    return _max_pool_common(fe, args[0], _get(args, kwargs, 1, "kernel_size"),
                            _get(args, kwargs, 2, "stride"), _get(args, kwargs, 3, "padding", 0),
                            _get(args, kwargs, 4, "dilation", 1), _get(args, kwargs, 5, "ceil_mode", False),
                            _get(args, kwargs, 6, "return_indices", False), res)


def _avg_pool_common(fe, x, k, s, p, ceil, count_pad, divisor, res):
    x = fe.tensor(x)
    if len(x.shape) != 4:
        raise fe.error("avg_pool2d needs a 4-D [N,C,H,W] input")
    k = _pair(k)
    s = _pair(s) if s not in (None, []) else list(k)
    return fe.emit1("aten::avg_pool2d.out",
                    [x, k, s, _pair(p), bool(ceil), bool(count_pad),
                     None if divisor is None else int(divisor)], res)


def _avgpool_module(fe, mod, args, kwargs, res):
    return _avg_pool_common(fe, args[0], mod.kernel_size, mod.stride, mod.padding, mod.ceil_mode,
                            mod.count_include_pad, mod.divisor_override, res)


def _avgpool_fn(fe, args, kwargs, res):
    return _avg_pool_common(fe, args[0], _get(args, kwargs, 1, "kernel_size"),
                            _get(args, kwargs, 2, "stride"), _get(args, kwargs, 3, "padding", 0),
                            _get(args, kwargs, 4, "ceil_mode", False),
                            _get(args, kwargs, 5, "count_include_pad", True),
                            _get(args, kwargs, 6, "divisor_override"), res)


def _adaptive_avg_common(fe, x, size, res):
    x = fe.tensor(x)
    if len(x.shape) != 4:
        raise fe.error("adaptive_avg_pool2d needs a 4-D input")
    oh, ow = res.shape[2], res.shape[3]
    h, w = x.shape[2], x.shape[3]
    if (oh, ow) == (1, 1):
        # Upstream decomposes global pooling into mean over H,W with keepdim.
        return fe.emit1("aten::mean.out", [x, [2, 3], True, None], res)
    if h % oh == 0 and w % ow == 0:
        k = [h // oh, w // ow]
        return fe.emit1("aten::avg_pool2d.out", [x, k, k, [0, 0], False, True, None], res)
    raise fe.error(f"adaptive_avg_pool2d from {h}x{w} to {oh}x{ow} (not a whole-window pooling)")


def _adaptive_module(fe, mod, args, kwargs, res):
    return _adaptive_avg_common(fe, args[0], mod.output_size, res)


def _adaptive_fn(fe, args, kwargs, res):
    return _adaptive_avg_common(fe, args[0], _get(args, kwargs, 1, "output_size"), res)


def _reduce(op):
    def handler(fe, args, kwargs, res):
        x = fe.tensor(args[0])
        dim = _get(args, kwargs, 1, "dim")
        keepdim = bool(_get(args, kwargs, 2, "keepdim", False))
        if kwargs.get("dtype") is not None:
            raise fe.error("reductions with dtype= are not supported")
        rank = len(x.shape)
        dims = list(range(rank)) if dim is None else (
            [dim] if isinstance(dim, int) else list(dim))
        dims = [_norm_dim(d, rank) for d in dims]
        return fe.emit1(op, [x, dims, keepdim, None], res)
    return handler


# ---- shape ops ------------------------------------------------------------------------------

def _view_like(fe, args, kwargs, res):
    return fe.alias(fe.tensor(args[0]), tuple(res.shape))


def _view_module(fe, mod, args, kwargs, res):
    return fe.alias(fe.tensor(args[0]), tuple(res.shape))


def _dropout_fn(fe, args, kwargs, res):
    if _get(args, kwargs, 2, "training", True) and fe.gm.training:
        raise fe.error("dropout in training mode is not supported")
    return fe.alias(fe.tensor(args[0]), tuple(res.shape))


def _permute_common(fe, x, dims, res):
    dims = [_norm_dim(int(d), len(x.shape)) for d in dims]
    if dims == sorted(dims):
        return x
    return fe.emit1("aten::permute_copy.out", [x, dims], res)


def _permute(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    dims = args[1:] if len(args) > 2 or isinstance(args[1], int) else args[1]
    if "dims" in kwargs:
        dims = kwargs["dims"]
    return _permute_common(fe, x, list(dims), res)


def _transpose(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    rank = len(x.shape)
    a = _norm_dim(_get(args, kwargs, 1, "dim0"), rank)
    b = _norm_dim(_get(args, kwargs, 2, "dim1"), rank)
    dims = list(range(rank))
    dims[a], dims[b] = dims[b], dims[a]
    return _permute_common(fe, x, dims, res)


def _t(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    return _permute_common(fe, x, list(range(len(x.shape)))[::-1], res)


def _cat(fe, args, kwargs, res):
    tensors = [fe.tensor(t) for t in _get(args, kwargs, 0, "tensors")]
    dim = _get(args, kwargs, 1, "dim", 0)
    return fe.emit1("aten::cat.out", [tensors, _norm_dim(dim, len(res.shape))], res)


def _expand(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    if tuple(res.shape) == x.shape:
        return x
    return fe.emit1("aten::expand_copy.out", [x, list(res.shape), False], res)


def _clone(fe, args, kwargs, res):
    return fe.emit1("aten::clone.out", [fe.tensor(args[0]), None], res)


def _to(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    dt = np_dtype(res.dtype)
    if dt == x.dtype:
        return fe.alias(x, x.shape)
    if res.device.type != "cpu":
        raise fe.error("device moves are not supported")
    return fe.emit1("dim_order_ops::_to_dim_order_copy.out",
                    [x, False, list(range(len(x.shape)))], res)


def _pad(fe, args, kwargs, res):
    x = fe.tensor(args[0])
    pad = [int(p) for p in _get(args, kwargs, 1, "pad")]
    mode = _get(args, kwargs, 2, "mode", "constant")
    value = _get(args, kwargs, 3, "value", None)
    if mode != "constant":
        raise fe.error(f"pad mode '{mode}' is not supported (only 'constant')")
    return fe.emit1("aten::constant_pad_nd.out", [x, pad, float(value or 0.0)], res)


def _pad_module(fe, mod, args, kwargs, res):
    return fe.emit1("aten::constant_pad_nd.out",
                    [fe.tensor(args[0]), [int(p) for p in mod.padding], float(mod.value)], res)


def _interp_common(fe, x, size, scale, mode, align_corners, recompute, res):
    x = fe.tensor(x)
    if mode not in ("nearest", "bilinear"):
        raise fe.error(f"interpolate mode '{mode}' is not supported (only 'nearest', 'bilinear')")
    if len(x.shape) != 4:
        raise fe.error("interpolate needs a 4-D [N,C,H,W] input")
    if mode == "bilinear":
        ac = bool(align_corners)
        if size is not None or recompute:
            return fe.emit1("aten::upsample_bilinear2d.vec_out",
                            [x, list(res.shape[2:]), ac, None], res)
        scales = [float(s) for s in (scale if isinstance(scale, (list, tuple)) else [scale])]
        return fe.emit1("aten::upsample_bilinear2d.vec_out",
                        [x, None, ac, scales * 2 if len(scales) == 1 else scales], res)
    if size is not None or recompute:
        return fe.emit1("aten::upsample_nearest2d.vec_out", [x, list(res.shape[2:]), None], res)
    scales = [float(s) for s in _pair(scale)] if not isinstance(scale, (list, tuple)) else \
        [float(s) for s in scale]
    if len(scales) == 1:
        scales = scales * 2
    return fe.emit1("aten::upsample_nearest2d.vec_out", [x, None, scales], res)


def _interp_fn(fe, args, kwargs, res):
    scale = _get(args, kwargs, 2, "scale_factor")
    if scale is not None and not isinstance(scale, (list, tuple)):
        scale = [float(scale)] * 2
    return _interp_common(fe, args[0], _get(args, kwargs, 1, "size"), scale,
                          _get(args, kwargs, 3, "mode", "nearest"),
                          _get(args, kwargs, 4, "align_corners"),
                          _get(args, kwargs, 5, "recompute_scale_factor"), res)


def _upsample_module(fe, mod, args, kwargs, res):
    scale = mod.scale_factor
    if scale is not None and not isinstance(scale, (list, tuple)):
        scale = [float(scale)] * 2
    return _interp_common(fe, args[0], mod.size, scale, mod.mode, getattr(mod, "align_corners", None),
                          getattr(mod, "recompute_scale_factor", None), res)


def _mm(fe, args, kwargs, res):
    return fe.emit1("aten::mm.out", [fe.tensor(args[0]), fe.tensor(args[1])], res)


def _bmm(fe, args, kwargs, res):
    return fe.emit1("aten::bmm.out", [fe.tensor(args[0]), fe.tensor(args[1])], res)


def _matmul(fe, args, kwargs, res):
    a, b = fe.tensor(args[0]), fe.tensor(args[1])
    ra, rb = len(a.shape), len(b.shape)
    dt = np_dtype(res.dtype)
    if ra == 2 and rb == 2:
        return fe.emit1("aten::mm.out", [a, b], res)
    if ra >= 3 and rb == 2:
        rows = int(np.prod(a.shape[:-1]))
        a2 = fe.alias(a, (rows, a.shape[-1]))
        out = fe.emit("aten::mm.out", [a2, b], [(rows, b.shape[1])], [dt])[0]
        return fe.alias(out, tuple(res.shape))
    if ra == rb and ra >= 3 and a.shape[:-2] == b.shape[:-2]:
        batch = int(np.prod(a.shape[:-2]))
        a3 = fe.alias(a, (batch,) + a.shape[-2:])
        b3 = fe.alias(b, (batch,) + b.shape[-2:])
        out = fe.emit("aten::bmm.out", [a3, b3], [(batch, a.shape[-2], b.shape[-1])], [dt])[0]
        return fe.alias(out, tuple(res.shape))
    raise fe.error(f"matmul of shapes {list(a.shape)} and {list(b.shape)} is not supported "
                   "(supported: 2-D x 2-D, N-D x 2-D, equal-batch N-D x N-D)")


def _getitem(fe, args, kwargs, res):
    obj, idx = args[0], args[1]
    if isinstance(obj, Tensor):
        return _index_tensor(fe, obj, idx, res)
    return obj[idx]


def _index_tensor(fe, x, idx, res):
    """Basic indexing with ints, slices (step > 0) and `...`, e.g. y[:, -1] (the last time step):
    slice_copy per sliced dim, select_copy per int. Anything else (tensors, None, bools) is
    advanced indexing, which the runtime has no kernel for."""
    items = list(idx) if isinstance(idx, tuple) else [idx]
    if any(not (isinstance(i, (int, slice)) or i is Ellipsis) or isinstance(i, bool)
           for i in items):
        raise fe.error("tensor indexing is supported with ints, slices and ... only",
                       op="Tensor.__getitem__")
    if Ellipsis in items:
        k = items.index(Ellipsis)
        items[k:k + 1] = [slice(None)] * (len(x.shape) - (len(items) - 1))
    if len(items) > len(x.shape):
        raise fe.error(f"too many indices for a {len(x.shape)}-D tensor", op="Tensor.__getitem__")
    dim = 0
    for i in items:
        size = x.shape[dim]
        if isinstance(i, int):
            j = i + size if i < 0 else i
            if not 0 <= j < size:
                raise fe.error(f"index {i} out of range for dim {dim} of size {size}",
                               op="Tensor.__getitem__")
            shape = x.shape[:dim] + x.shape[dim + 1:]
            x = fe.emit("aten::select_copy.int_out", [x, dim, j], [shape], [x.dtype])[0]
            continue
        start, stop, step = i.indices(size)
        if step < 1:
            raise fe.error("negative slice steps are not supported", op="Tensor.__getitem__")
        if (start, stop, step) != (0, size, 1):
            n = len(range(start, stop, step))
            shape = x.shape[:dim] + (n,) + x.shape[dim + 1:]
            x = fe.emit("aten::slice_copy.Tensor_out", [x, dim, start, stop, step], [shape],
                        [x.dtype])[0]
        dim += 1
    if tuple(x.shape) != tuple(res.shape):
        raise fe.error("internal: indexing gave another shape than PyTorch",
                       op="Tensor.__getitem__")
    return x


def _identity_module(fe, mod, args, kwargs, res):
    return fe.alias(fe.tensor(args[0]), tuple(res.shape))


def _act_module(op):
    def handler(fe, mod, args, kwargs, res):
        _check_inplace(fe, getattr(mod, "inplace", False))
        return fe.emit1(op, [fe.tensor(args[0])], res)
    return handler


def _softmax_module(op):
    inner = _softmax(op)

    def handler(fe, mod, args, kwargs, res):
        return inner(fe, [args[0], mod.dim], {}, res)
    return handler


def _hardtanh_module(fe, mod, args, kwargs, res):
    _check_inplace(fe, mod.inplace)
    return fe.emit1("aten::hardtanh.out", [fe.tensor(args[0]), float(mod.min_val), float(mod.max_val)],
                    res)


MODULE_HANDLERS = {
    nn.Conv1d: _conv_module,
    nn.Conv2d: _conv_module,
    nn.Linear: _linear_module,
    nn.BatchNorm1d: _bn_module,
    nn.BatchNorm2d: _bn_module,
    nn.ReLU: _act_module("aten::relu.out"),
    nn.Hardtanh: _hardtanh_module,          # also ReLU6 (a Hardtanh subclass)
    nn.Sigmoid: _act_module("aten::sigmoid.out"),
    nn.Tanh: _act_module("aten::tanh.out"),
    nn.LSTM: lstm_module,
    nn.GRU: gru_module,
    nn.Hardswish: _act_module("aten::hardswish.out"),
    nn.Hardsigmoid: _act_module("aten::hardsigmoid.out"),
    nn.SiLU: _act_module("aten::silu.out"),
    nn.Softmax: _softmax_module("aten::_softmax.out"),
    nn.LogSoftmax: _softmax_module("aten::_log_softmax.out"),
    nn.MaxPool2d: _maxpool_module,
    nn.AvgPool2d: _avgpool_module,
    nn.AdaptiveAvgPool2d: _adaptive_module,
    nn.Flatten: _view_module,
    nn.Unflatten: _view_module,
    nn.Dropout: _identity_module,
    nn.Identity: _identity_module,
    nn.ConstantPad1d: _pad_module,
    nn.ConstantPad2d: _pad_module,          # also ZeroPad2d
    nn.Upsample: _upsample_module,          # also UpsamplingNearest2d
    nn.LayerNorm: _ln_module,
}

_add, _sub, _mul, _div = _binary("add"), _binary("sub"), _binary("mul"), _binary("div")

FUNCTION_HANDLERS = {
    operator.add: _add, torch.add: _add,
    operator.sub: _sub, torch.sub: _sub,
    operator.mul: _mul, torch.mul: _mul,
    operator.truediv: _div, torch.div: _div,
    operator.iadd: _iop("add"), operator.isub: _iop("sub"),
    operator.imul: _iop("mul"), operator.itruediv: _iop("div"),
    operator.matmul: _matmul, torch.matmul: _matmul,
    operator.getitem: _getitem,
    operator.eq: _eq, torch.eq: _eq,
    torch.where: _where,
    torch.relu: _unary("aten::relu.out"), F.relu: _unary("aten::relu.out"),
    F.relu6: _relu6, F.hardtanh: _hardtanh,
    torch.sigmoid: _unary("aten::sigmoid.out"), F.sigmoid: _unary("aten::sigmoid.out"),
    F.hardswish: _unary("aten::hardswish.out"), F.hardsigmoid: _unary("aten::hardsigmoid.out"),
    F.silu: _unary("aten::silu.out"),
    torch.tanh: _unary("aten::tanh.out"), F.tanh: _unary("aten::tanh.out"),
    torch.clamp: _clamp, torch.clip: _clamp,
    torch.softmax: _softmax("aten::_softmax.out"), F.softmax: _softmax("aten::_softmax.out"),
    torch.log_softmax: _softmax("aten::_log_softmax.out"),
    F.log_softmax: _softmax("aten::_log_softmax.out"),
    torch.conv1d: _conv_fn(1), F.conv1d: _conv_fn(1),
    torch.conv2d: _conv_fn(2), F.conv2d: _conv_fn(2),
    F.linear: _linear_fn,
    F.batch_norm: _bn_fn,
    F.layer_norm: _ln_fn,
    F.max_pool2d: _maxpool_fn, torch.max_pool2d: _maxpool_fn,
    F.avg_pool2d: _avgpool_fn, torch._C._nn.avg_pool2d: _avgpool_fn,
    F.adaptive_avg_pool2d: _adaptive_fn,
    torch.mean: _reduce("aten::mean.out"), torch.sum: _reduce("aten::sum.IntList_out"),
    torch.flatten: _view_like, torch.reshape: _view_like,
    torch.squeeze: _view_like, torch.unsqueeze: _view_like,
    F.dropout: _dropout_fn,
    torch.permute: _permute, torch.transpose: _transpose, torch.t: _t,
    torch.cat: _cat, torch.concat: _cat,
    torch.clone: _clone,
    F.pad: _pad,
    F.interpolate: _interp_fn,
    torch.mm: _mm, torch.bmm: _bmm,
}
if hasattr(F, "_max_pool2d"):
    FUNCTION_HANDLERS[F._max_pool2d] = _maxpool_fn
if hasattr(torch._C._nn, "pad"):
    FUNCTION_HANDLERS[torch._C._nn.pad] = _pad

METHOD_HANDLERS = {
    "add": _add, "sub": _sub, "mul": _mul, "div": _div,
    "__radd__": _rbinary("add"), "__rsub__": _rbinary("sub"),
    "__rmul__": _rbinary("mul"), "__rtruediv__": _rbinary("div"),
    "relu": _unary("aten::relu.out"), "sigmoid": _unary("aten::sigmoid.out"),
    "tanh": _unary("aten::tanh.out"), "clamp": _clamp, "clip": _clamp,
    "softmax": _softmax("aten::_softmax.out"), "log_softmax": _softmax("aten::_log_softmax.out"),
    "mean": _reduce("aten::mean.out"), "sum": _reduce("aten::sum.IntList_out"),
    "view": _view_like, "reshape": _view_like, "flatten": _view_like,
    "squeeze": _view_like, "unsqueeze": _view_like, "contiguous": _view_like,
    "view_as": _view_like, "reshape_as": _view_like,
    "permute": _permute, "transpose": _transpose, "t": _t,
    "expand": _expand, "expand_as": _expand, "clone": _clone,
    "matmul": _matmul, "mm": _mm, "bmm": _bmm,
    "to": _to, "float": _to, "type_as": _to,
    "eq": _eq,
}


_DATA_DEPENDENT = ("control flow", "data-dependent", "data dependent", "GuardOnDataDependent",
                   "Could not guard on", "Proxy object cannot be iterated", "cannot be used as inputs",
                   "dynamic control flow", "Dynamic control flow", "could not extract specialized")


def trace_error(e, module, tracer_name):
    """One ExportError for an exception raised while tracing: where (layer and source line), why,
    and what to do, instead of the tracer's traceback."""
    from .probe import locate
    layer, where = locate(e, module)
    text = " ".join(str(e).split("\n")[0].split())[:300] or type(e).__name__
    hint = None
    if any(k in str(e) for k in _DATA_DEPENDENT) or (
            tracer_name == "torch.fx" and "Proxy" in str(e)):
        what = "a tensor's value" if tracer_name != "torch.fx" else \
            "a traced value (a tensor's value, or its shape: torch.fx does not know shapes)"
        msg = (f"data-dependent control flow: Python `if`/`for`/`while`/range() (or bool(), "
               f"int(), iteration) on {what} decides what the model computes, so there is no "
               "single static graph to export")
        hint = ("compute every branch and select with torch.where, or move the decision out of "
                "the model")
        if tracer_name == "torch.fx":
            hint += ("; control flow on shapes exports with --frontend export (torch >= 2.1), "
                     "which fixes the shapes")
        hint += ". Dynamic shapes are out of scope: a program has the example inputs' static shapes"
    elif any(f.name == "__iter__" and f.filename.endswith(os.path.join("fx", "proxy.py"))
             for f in traceback.extract_tb(e.__traceback__)):
        msg = ("torch.fx cannot unpack a traced value into several names (`a, b = t.chunk(2)`, "
               "`out, state = layer(x)`): it does not know how many parts there are")
        hint = ("index the result instead (`parts = t.chunk(2)`, then `parts[0]`), or use "
                "--frontend export (torch >= 2.1)")
    else:
        msg = f"{tracer_name} could not trace the model: {type(e).__name__}: {text}"
    if layer:
        msg = f"{layer}: {msg}"
    return ExportError(msg, op="trace", source=where, hint=hint, show_op=False)


class _ModuleTracer(torch.fx.Tracer):
    """fx's Tracer that also records, on every node, the path of the innermost module being
    called ("net.0"): torch 1.13's fx keeps no module stack, and a user needs the layer's name,
    not the one source line `x = self.net(x)` every layer of a Sequential shares."""

    def __init__(self):
        super().__init__()
        self._stack = []

    def call_module(self, m, forward, args, kwargs):
        try:
            path = self.path_of_module(m)
        except NameError:
            path = ""
        self._stack.append(path)
        try:
            out = super().call_module(m, forward, args, kwargs)
            # A recurrent layer returns (output, state): give fx its structure so that
            # `y, (h, c) = self.lstm(x)` unpacks (a bare Proxy cannot be unpacked).
            if isinstance(m, nn.LSTM) and isinstance(out, torch.fx.Proxy):
                return (out[0], (out[1][0], out[1][1]))
            if isinstance(m, nn.GRU) and isinstance(out, torch.fx.Proxy):
                return (out[0], out[1])
            return out
        finally:
            self._stack.pop()

    def create_node(self, *args, **kwargs):
        node = super().create_node(*args, **kwargs)
        node.meta["etmcu_module"] = self._stack[-1] if self._stack else ""
        return node


def trace(module, example_inputs):
    """Trace `module` with torch.fx (recording user stack traces) and translate it to IR."""
    tracer = _ModuleTracer()
    tracer.record_stack_traces = True
    try:
        graph = tracer.trace(module)
    except Exception as e:  # fx's own errors (control flow on tensors, etc.)
        raise trace_error(e, module, "torch.fx") from None
    gm = torch.fx.GraphModule(tracer.root, graph)
    gm.eval()
    return FxFrontend(gm, example_inputs, eager=module).run()
