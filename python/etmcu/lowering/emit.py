"""Lowering: IR graph -> one ExecuTorch method (value table, operators, KernelCall instructions).

Mirrors upstream's emitter so our files look like the ones in the corpus:
  * value order: constant tensors first (in order of first use), then method inputs, then per
    instruction its out tensor(s) followed by the boxed non-tensor arguments;
  * every schema argument is materialised (defaults too), ints inside int lists are boxed as
    separate Int values (IntList items are value indices), optional None is a Null value;
  * KernelCall args = schema args, then out tensor(s), then the return: the out again for one
    output, or a TensorList of all outs for several (max_pool2d_with_indices, batch/layer norm);
  * a view (`etmcu::alias`) gets its own Tensor value but no instruction; the memory planner
    gives it the same bytes as its source.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..errors import ExportError
from ..ir import ALIAS, Graph, Tensor
from .overlap import OVERLAP_CONTRACTS
from .schemas import INPLACE_ARGS, SCHEMAS, split_key


@dataclass
class Method:
    name: str
    values: List[tuple] = field(default_factory=list)      # (kind, payload); Tensor payload = IR Tensor
    inputs: List[int] = field(default_factory=list)
    outputs: List[int] = field(default_factory=list)
    operators: List[Tuple[str, str]] = field(default_factory=list)
    instructions: List[Tuple[int, List[int]]] = field(default_factory=list)
    # Planner view of the instruction stream (tensor ids).
    reads: List[List[int]] = field(default_factory=list)
    writes: List[List[int]] = field(default_factory=list)
    inplace_ok: List[bool] = field(default_factory=list)
    # Per instruction: the tensor ids its out may occupy exactly (the op's alias contract).
    inplace_args: List[List[int]] = field(default_factory=list)
    # Per instruction: (input tensor id, out tensor id, d, e) when the op's offset-overlap
    # contract (lowering/overlap.py) lets its out start d bytes before that input and/or e bytes
    # after it (None: not in that direction), else None.
    overlaps: List[Optional[Tuple[int, int, Optional[int], Optional[int]]]] = \
        field(default_factory=list)
    aliases: List[Tuple[int, int]] = field(default_factory=list)   # (source id, view id)
    tensors: Dict[int, Tensor] = field(default_factory=dict)      # every tensor with a value
    tensor_value: Dict[int, int] = field(default_factory=dict)    # tensor id -> value index
    sources: List[str] = field(default_factory=list)              # user source per instruction
    modules: List[str] = field(default_factory=list)              # layer (module path) per instruction
    refs: List[Any] = field(default_factory=list)   # int8: (module, source, scale, zp) it approximates
    input_tensors: List[Tensor] = field(default_factory=list)
    output_tensors: List[Tensor] = field(default_factory=list)
    io_quant: Optional[dict] = None      # int8 I/O: {"inputs"/"outputs": [(scale, zero point)]}

    def op_counts(self):
        counts = {}
        for op_index, _ in self.instructions:
            name, overload = self.operators[op_index]
            key = f"{name}.{overload}" if overload else name
            counts[key] = counts.get(key, 0) + 1
        return counts


class _Emitter:
    def __init__(self, graph: Graph, name: str):
        self.g = graph
        self.m = Method(name)
        self.op_index = {}
        self.shared = {}

    # Read-only argument values (scalars, None, int and float lists) are shared by every call that
    # passes the same one: each value costs the method allocator an EValue (and a list its
    # items), and no kernel writes its non-tensor arguments. Doubles are keyed by repr so -0.0
    # and 0.0 stay apart.
    _SHAREABLE = ("Int", "Bool", "Double", "Null", "IntList", "DoubleList")

    def value(self, kind, payload):
        key = None
        if kind in self._SHAREABLE:
            key = (kind, repr(payload) if kind in ("Double", "DoubleList") else
                   (tuple(payload) if isinstance(payload, list) else payload))
            if key in self.shared:
                return self.shared[key]
        self.m.values.append((kind, payload))
        if key is not None:
            self.shared[key] = len(self.m.values) - 1
        return len(self.m.values) - 1

    def tensor_value(self, t: Tensor):
        idx = self.m.tensor_value.get(t.id)
        if idx is None:
            idx = self.value("Tensor", t)
            self.m.tensor_value[t.id] = idx
            self.m.tensors[t.id] = t
        return idx

    def operator(self, key):
        if key not in self.op_index:
            self.op_index[key] = len(self.m.operators)
            self.m.operators.append(split_key(key))
        return self.op_index[key]

    def arg(self, kind, v, node):
        """Box one schema argument into value(s); returns its value index."""
        optional = kind.endswith("?")
        base = kind.rstrip("?")
        if v is None:
            if not optional:
                raise ExportError(f"missing required argument of kind {kind}", op=node.op,
                                  source=node.source)
            return self.value("Null", None)
        if base == "Tensor":
            return self.tensor_value(v)
        if base == "Tensor[]":
            return self.value("TensorList", [self.tensor_value(t) for t in v])
        if base == "int[]":
            items = [self.value("Int", int(x)) for x in v]
            return self.value("IntList", items)
        if base == "float[]":
            return self.value("DoubleList", [float(x) for x in v])
        if base in ("int", "ScalarType", "MemoryFormat"):
            return self.value("Int", int(v))
        if base == "bool":
            return self.value("Bool", bool(v))
        if base == "float":
            return self.value("Double", float(v))
        if base == "Scalar":
            if isinstance(v, (bool, np.bool_)):
                return self.value("Bool", bool(v))
            if isinstance(v, (int, np.integer)):
                return self.value("Int", int(v))
            return self.value("Double", float(v))
        raise ExportError(f"internal: unknown argument kind {kind}", op=node.op)

    def run(self):
        # Constants first, in order of first use, then the method inputs (upstream's order).
        for n in self.g.nodes:
            for t in n.tensor_inputs():
                if t.is_const:
                    self.tensor_value(t)
        for t in self.g.inputs:
            self.m.inputs.append(self.tensor_value(t))
        self.m.input_tensors = list(self.g.inputs)
        for n in self.g.nodes:
            if n.op == ALIAS:
                src, dst = n.args[0], n.outputs[0]
                self.tensor_value(src)
                self.tensor_value(dst)
                self.m.aliases.append((src.id, dst.id))
                continue
            if n.op not in SCHEMAS:
                raise ExportError(f"no lowering for operator '{n.op}'", op=n.op, source=n.source)
            schema, nouts = SCHEMAS[n.op]
            if len(n.args) != len(schema) or len(n.outputs) != nouts:
                raise ExportError(f"internal: {n.op} built with {len(n.args)} args/"
                                  f"{len(n.outputs)} outs, schema wants {len(schema)}/{nouts}",
                                  op=n.op, source=n.source)
            out_idx = [self.tensor_value(o) for o in n.outputs]
            args = [self.arg(kind, v, n) for (kind, _), v in zip(schema, n.args)]
            args += out_idx
            args.append(out_idx[0] if nouts == 1 else self.value("TensorList", list(out_idx)))
            self.m.instructions.append((self.operator(n.op), args))
            self.m.reads.append([t.id for t in n.tensor_inputs() if not t.is_const])
            # Scratch tensors are written by the kernel at this call only (lifetime [k, k]).
            self.m.writes.append([o.id for o in n.outputs] +
                                 [t.id for t in n.tensor_inputs() if t.scratch])
            cand = [n.args[i] for i in INPLACE_ARGS.get(n.op, ())]
            self.m.inplace_args.append([t.id for t in cand if isinstance(t, Tensor)
                                        and not t.is_const])
            self.m.inplace_ok.append(bool(self.m.inplace_args[-1]))
            # (input, out, d: out before the input, e: out after it; None where not allowed)
            ov = OVERLAP_CONTRACTS.get(n.op)
            d = ov[1](n.args, n.outputs[0]) if ov is not None else None
            e = ov[2](n.args, n.outputs[0]) if ov is not None and ov[2] is not None else None
            src = n.args[ov[0]] if ov is not None else None
            self.m.overlaps.append((src.id, n.outputs[0].id, d, e)
                                   if (d is not None or e is not None)
                                   and isinstance(src, Tensor) and not src.is_const else None)
            self.m.sources.append(n.source)
            self.m.modules.append(n.module)
            self.m.refs.append(getattr(n, "ref", None))
        for t in self.g.outputs:
            self.m.outputs.append(self.tensor_value(t))
        self.m.output_tensors = list(self.g.outputs)
        return self.m


def lower(graph: Graph, name="forward") -> Method:
    return _Emitter(graph, name).run()
