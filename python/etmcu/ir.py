"""Front-end-independent graph IR: what every front end produces and the lowering consumes.

A Graph is a straight-line list of Nodes in execution order. Each Node names an ExecuTorch
out-variant operator (`aten::convolution.out`, ...) and carries its arguments in *schema order*
without the out tensor(s), with every default already filled in; the lowering only has to box
them into values. The special op `etmcu::alias` marks a view (reshape/flatten/squeeze/identity):
no instruction, the output shares the input's bytes (memory plan alias, as upstream does).

Keeping this the contract means a torch.export front end (torch >= 2.1, aten graphs whose
nodes already are `aten.<op>.<overload>` with positional args) only has to map functional aten
ops to their out-variant keys below; folding, lowering, planning and serialisation are shared.
"""

from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple

import numpy as np

ALIAS = "etmcu::alias"


@dataclass(eq=False)
class Tensor:
    """One tensor value: static shape, numpy dtype, and constant data if it is a constant."""

    id: int
    shape: Tuple[int, ...]
    dtype: np.dtype
    data: Optional[np.ndarray] = None
    name: str = ""
    dim_order: Optional[Tuple[int, ...]] = None   # None = contiguous (0, 1, ..., n-1)
    scratch: bool = False        # a kernel's working buffer: planned, live only at its call

    @property
    def is_const(self):
        return self.data is not None

    @property
    def nbytes(self):
        n = 1
        for s in self.shape:
            n *= s
        return n * np.dtype(self.dtype).itemsize

    @property
    def order(self):
        return tuple(self.dim_order) if self.dim_order is not None else tuple(range(len(self.shape)))

    def __repr__(self):
        kind = "const" if self.is_const else "t"
        return f"%{kind}{self.id}{list(self.shape)}"


@dataclass(eq=False)
class Node:
    op: str                      # out-variant key, e.g. "aten::add.out", or ALIAS
    args: List[Any]              # schema-order arguments (Tensor, [Tensor], python scalars/lists, None)
    outputs: List[Tensor]
    source: str = ""             # "file:line: code" of the user's line, for errors and debugging
    module: str = ""             # module path of the layer it came from ("net.0"), "" at top level

    def tensor_inputs(self):
        out = []
        for a in self.args:
            if isinstance(a, Tensor):
                out.append(a)
            elif isinstance(a, (list, tuple)):
                out.extend(x for x in a if isinstance(x, Tensor))
        return out


@dataclass
class Graph:
    inputs: List[Tensor] = field(default_factory=list)
    outputs: List[Tensor] = field(default_factory=list)
    nodes: List[Node] = field(default_factory=list)
    _next_id: int = 0

    def new_tensor(self, shape, dtype=np.float32, data=None, name="", dim_order=None):
        t = Tensor(self._next_id, tuple(int(s) for s in shape), np.dtype(dtype), data, name,
                   tuple(dim_order) if dim_order is not None else None)
        self._next_id += 1
        return t

    def constant(self, array, name=""):
        array = np.ascontiguousarray(array)
        return self.new_tensor(array.shape, array.dtype, array, name)

    def users(self):
        """Map tensor id -> list of nodes reading it (graph outputs are not nodes)."""
        users = {}
        for n in self.nodes:
            for t in n.tensor_inputs():
                users.setdefault(t.id, []).append(n)
        return users
