"""Reference interpreter for .pte files (host/Python only), used to check the exporter end to end.

It reads the file the way a runtime does - eh00 header, flatbuffer (decoded with `flatc --json`),
constant segment - allocates the planned arenas as raw bytes, binds every planned tensor to its
(memory_id, offset) and runs the KernelCalls in order with torch implementations keyed by the
operator name. Because tensors really share arena bytes, a wrong memory plan (two live tensors
overlapping) or a wrong argument layout shows up as a wrong answer, independently of the C++
runtime. It is an oracle for tests, not a product: no verification beyond what it needs.
"""

import numpy as np
import torch

from .serialize.ptd import read_ptd
from .serialize.pte import decode_json, parse_header

_DTYPES = {"BYTE": np.uint8, "CHAR": np.int8, "SHORT": np.int16, "INT": np.int32,
           "LONG": np.int64, "HALF": np.float16, "FLOAT": np.float32, "DOUBLE": np.float64,
           "BOOL": np.bool_}


class ReferenceProgram:
    def __init__(self, data: bytes, ptd=None):
        self.data = data
        self.external = read_ptd(ptd) if ptd is not None else {}
        self.dim_orders = {}     # id(numpy view) -> dim order, for the cortex_m layout checks
        self.doc = decode_json(data)
        header = parse_header(data)
        base = header["segment_base_offset"] if header else len(data)
        segs = self.doc.get("segments", [])
        cs = self.doc.get("constant_segment") or {}
        self.const_offsets = cs.get("offsets", [])
        if len(self.const_offsets) > 1:
            seg = segs[cs.get("segment_index", 0)]
            start = base + seg["offset"]
            self.const_bytes = data[start:start + seg["size"]]
        else:
            self.const_bytes = b""

    def run(self, inputs, method=0, on_instruction=None):
        """Run method `method` on `inputs`; returns copies of its outputs. on_instruction(n, out):
        called after instruction n with its (first) output tensor, a logical-order view that the
        next instructions may overwrite (copy what you keep)."""
        plan = self.doc["execution_plan"][method]
        self.dim_orders = {}
        arenas = [bytearray(max(int(s), 1)) for s in plan["non_const_buffer_sizes"]]
        values = []
        for ev in plan["values"]:
            kind, v = ev["val_type"], ev.get("val", {})
            if kind == "Tensor":
                values.append(self._tensor(v, arenas))
            elif kind == "Int":
                values.append(int(v["int_val"]))
            elif kind == "Double":
                values.append(float(v["double_val"]))
            elif kind == "Bool":
                values.append(bool(v["bool_val"]))
            elif kind == "Null":
                values.append(None)
            else:
                values.append((kind, list(v.get("items", []))))
        # Resolve lists after all scalars exist (IntList items are value indices).
        for i, v in enumerate(values):
            if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
                kind, items = v
                if kind == "IntList":
                    values[i] = [values[j] for j in items]
                elif kind == "TensorList":
                    values[i] = [values[j] for j in items]
                elif kind == "DoubleList":
                    values[i] = [float(x) for x in items]
                else:
                    values[i] = items
        for idx, x in zip(plan["inputs"], inputs):
            dst = values[idx]
            dst[...] = np.asarray(x, dtype=dst.dtype).reshape(dst.shape)
        ops = plan["operators"]
        for n_ins, ins in enumerate(plan["chains"][0]["instructions"]):
            a = ins["instr_args"]
            op = ops[a["op_index"]]
            key = op["name"] + ("." + op["overload"] if op.get("overload") else "")
            fn = KERNELS.get(key)
            if fn is None:
                raise NotImplementedError(f"reference interpreter lacks {key}")
            args = [values[j] for j in a["args"]]
            if key.startswith(("cortex_m::", "etmcu::")):
                check_layouts(key, args, self.dim_orders)
            fn(args)
            if on_instruction is not None and a["args"]:
                last = values[a["args"][-1]]      # the out tensor, or the TensorList of outs
                on_instruction(n_ins, last[0] if isinstance(last, list) else last)
        return [values[i].copy() for i in plan["outputs"]]

    def _tensor(self, v, arenas):
        """A numpy view of the tensor's bytes with its logical shape. A non-contiguous dim order
        (channels-last int8 activations) is honoured: the bytes are laid out in dim order and
        the returned array is a transposed view of them, so kernels index logically and every
        write lands on the right byte."""
        dtype = np.dtype(_DTYPES[v["scalar_type"]])
        shape = tuple(v.get("sizes", []))
        order = tuple(v.get("dim_order") or range(len(shape)))
        phys = tuple(shape[d] for d in order)
        inv = tuple(int(i) for i in np.argsort(order))
        n = int(np.prod(shape)) if shape else 1
        alloc = v.get("allocation_info")
        if alloc is not None:
            off = alloc["memory_offset_low"] | (alloc.get("memory_offset_high", 0) << 32)
            buf = arenas[alloc["memory_id"]]
            if off + n * dtype.itemsize > len(buf) and n:
                raise ValueError("planned tensor outside its arena")
            arr = np.frombuffer(buf, dtype=dtype, count=n, offset=off).reshape(phys)
        else:
            idx = v.get("data_buffer_idx", 0)
            extra = v.get("extra_tensor_info") or {}
            if extra.get("location") == "EXTERNAL":
                key = extra.get("fully_qualified_name", "")
                if key not in self.external:
                    raise ValueError(f"external tensor '{key}' is not in the .ptd")
                arr = np.frombuffer(self.external[key][0], dtype=dtype, count=n).reshape(phys)
            elif idx > 0:
                off = self.const_offsets[idx]
                arr = np.frombuffer(self.const_bytes, dtype=dtype, count=n,
                                    offset=off).reshape(phys)
            else:
                arr = np.zeros(phys, dtype)
        arr = arr.transpose(inv) if order != tuple(range(len(shape))) else arr
        self.dim_orders[id(arr)] = order
        return arr


def _t(x):
    return torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else x


def _store(out, value):
    out[...] = value.detach().numpy().astype(out.dtype).reshape(out.shape)


def _k(fn, nargs):
    """Single-output kernel: args[:nargs] are inputs, args[nargs] is out."""
    def kernel(args):
        _store(args[nargs], fn(*[_t(a) for a in args[:nargs]]))
    return kernel


A = torch.ops.aten
KERNELS = {
    "aten::add.out": _k(lambda a, b, al: torch.add(a, b, alpha=al), 3),
    "aten::add.Scalar_out": _k(lambda a, b, al: torch.add(a, b, alpha=al), 3),
    "aten::sub.out": _k(lambda a, b, al: torch.sub(a, b, alpha=al), 3),
    "aten::sub.Scalar_out": _k(lambda a, b, al: torch.sub(a, b, alpha=al), 3),
    "aten::mul.out": _k(torch.mul, 2),
    "aten::mul.Scalar_out": _k(torch.mul, 2),
    "aten::div.out": _k(torch.div, 2),
    "aten::div.Scalar_out": _k(torch.div, 2),
    "aten::relu.out": _k(torch.relu, 1),
    # IR-only ops (passes.decompose_activations turns the fp32 ones into kernels the runtime has)
    "aten::hardswish.out": _k(torch.nn.functional.hardswish, 1),
    "aten::hardsigmoid.out": _k(torch.nn.functional.hardsigmoid, 1),
    "aten::silu.out": _k(torch.nn.functional.silu, 1),
    "aten::hardtanh.out": _k(torch.nn.functional.hardtanh, 3),
    "aten::clamp.out": _k(torch.clamp, 3),
    "aten::sigmoid.out": _k(torch.sigmoid, 1),
    "aten::tanh.out": _k(torch.tanh, 1),
    "aten::_softmax.out": _k(A._softmax, 3),
    "aten::_log_softmax.out": _k(A._log_softmax, 3),
    "aten::convolution.out": _k(A.convolution, 9),
    "aten::addmm.out": _k(lambda s, a, b, beta, alpha: torch.addmm(s, a, b, beta=beta, alpha=alpha), 5),
    "aten::mm.out": _k(torch.mm, 2),
    "aten::bmm.out": _k(torch.bmm, 2),
    "aten::linear.out": _k(torch.nn.functional.linear, 3),
    "aten::avg_pool2d.out": _k(A.avg_pool2d, 7),
    "aten::mean.out": _k(lambda x, d, k, dt: torch.mean(x, d, k), 4),
    "aten::sum.IntList_out": _k(lambda x, d, k, dt: torch.sum(x, d, k), 4),
    "aten::permute_copy.out": _k(lambda x, d: x.permute(d), 2),
    "aten::view_copy.out": _k(lambda x, s: x.reshape(s), 2),
    "aten::expand_copy.out": _k(lambda x, s, i: x.expand(s), 3),
    "aten::cat.out": _k(lambda ts, d: torch.cat([_t(t) for t in ts], d), 2),
    "aten::upsample_bilinear2d.vec_out": _k(
        lambda x, size, ac, sf: torch.nn.functional.interpolate(
            x, size=None if size is None else list(size), mode="bilinear", align_corners=ac,
            scale_factor=None if sf is None else list(sf)), 4),
    "aten::select_copy.int_out": _k(lambda x, d, i: torch.select(x, d, i), 3),
    "aten::slice_copy.Tensor_out": _k(
        lambda x, d, s, e, st: x[(slice(None),) * (d % x.dim()) + (slice(s, e, st),)], 5),
    "aten::clone.out": _k(lambda x, mf: x.clone(), 2),
    "dim_order_ops::_to_dim_order_copy.out": lambda args: _store(args[3], _t(args[0])),
    "dim_order_ops::_clone_dim_order.out": lambda args: _store(args[3], _t(args[0])),
    "aten::full.out": _k(lambda s, v: torch.full(s, v), 2),
    "aten::eq.Scalar_out": _k(torch.eq, 2),
    "aten::where.self_out": _k(torch.where, 3),
    "aten::upsample_nearest2d.vec_out": _k(A.upsample_nearest2d.vec, 3),
    "aten::constant_pad_nd.out": _k(A.constant_pad_nd, 3),
}


def _max_pool(args):
    out, idx = A.max_pool2d_with_indices(*[_t(a) for a in args[:6]])
    _store(args[6], out)
    if args[7].size:            # an empty indices tensor: not written (passes.drop_unused_pool_indices)
        _store(args[7], idx)


def _batch_norm(args):
    x, w, b, rm, rv, mom, eps = [_t(a) for a in args[:7]]
    _store(args[7], torch.nn.functional.batch_norm(x, rm, rv, w, b, False, mom, eps))


def _layer_norm(args):
    out, mean, rstd = A.native_layer_norm(*[_t(a) for a in args[:5]])
    _store(args[5], out)
    _store(args[6], mean)
    _store(args[7], rstd)


KERNELS["aten::max_pool2d_with_indices.out"] = _max_pool
KERNELS["aten::_native_batch_norm_legit_no_training.out"] = _batch_norm
KERNELS["aten::native_layer_norm.out"] = _layer_norm


from .reference_int8 import INT8_KERNELS, check_layouts  # noqa: E402

KERNELS.update(INT8_KERNELS)


def run_pte(data: bytes, inputs, ptd=None):
    """Run `data` (.pte bytes, with `ptd`: the .ptd bytes of its external constants) on `inputs`
    (numpy arrays); returns the output arrays."""
    return ReferenceProgram(data, ptd).run(inputs)
