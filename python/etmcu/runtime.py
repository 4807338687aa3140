"""Run a .pte on the host runtime from Python, in-process: the same C++ runtime and kernels as
`./etmcu run` and the firmware, for checking programs in a loop from a notebook or a test.

    import etmcu
    prog = etmcu.Program("m.pte")              # (optionally data="m.ptd", method="forward")
    outs = prog.run(x)                         # numpy arrays (or tensors) in, numpy arrays out
    prog.input_shapes, prog.input_dtypes       # what it expects

How: ctypes over the host C API (tools/capi/etmcu_host_c.h), a shared library that
`./etmcu build` builds (build/host/tools/libetmcu_host_c.so; ETMCU_HOST_LIB overrides it). The
program is loaded once (pools sized from it, as the CLI does); each run() copies the inputs in,
executes the method and copies the outputs out in logical (C) order. Inputs are checked as
`./etmcu run --input x.npy` checks them (same messages); a float array for an int8 input of a
program with int8 I/O is quantized with its recorded scale and zero point, as the CLI does.
Errors of the runtime are raised as RuntimeError with its message.
"""

import ctypes
import os
from pathlib import Path

import numpy as np

_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_LIB = _ROOT / "build" / "host" / "tools" / "libetmcu_host_c.so"

_MAX_DIM = 16
_NONE, _INT, _BOOL, _DOUBLE, _TENSOR = 0, 2, 3, 4, 5
# ScalarType numbers (runtime/core/scalar_type.h) <-> numpy dtypes
_DTYPES = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64, 5: np.float16,
           6: np.float32, 7: np.float64, 11: np.bool_, 27: np.uint16, 28: np.uint32,
           29: np.uint64}
_CODES = {np.dtype(v): k for k, v in _DTYPES.items()}


class _Value(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("dtype", ctypes.c_int32), ("dim", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * _MAX_DIM), ("nbytes", ctypes.c_uint64),
                ("has_quant", ctypes.c_int32), ("zero_point", ctypes.c_int32),
                ("scale", ctypes.c_double), ("int_value", ctypes.c_int64),
                ("double_value", ctypes.c_double)]


_libs = {}


def _load(path):
    """The C API's shared library (one per path and process), with its signatures declared."""
    path = str(path)
    if path in _libs:
        return _libs[path]
    if not os.path.exists(path):
        raise RuntimeError(f"the host runtime library is not built ({path}): run ./etmcu build")
    lib = ctypes.CDLL(path)
    P, V = ctypes.c_void_p, ctypes.POINTER(_Value)
    lib.etmcu_host_open.restype = P
    lib.etmcu_host_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.c_char_p, ctypes.c_size_t]
    lib.etmcu_host_close.argtypes = [P]
    lib.etmcu_host_error.restype = ctypes.c_char_p
    lib.etmcu_host_error.argtypes = [P]
    for f in (lib.etmcu_host_num_inputs, lib.etmcu_host_num_outputs):
        f.restype, f.argtypes = ctypes.c_size_t, [P]
    for f in (lib.etmcu_host_input_info, lib.etmcu_host_output_info):
        f.restype, f.argtypes = ctypes.c_int, [P, ctypes.c_size_t, V]
    lib.etmcu_host_set_input.argtypes = [P, ctypes.c_size_t, ctypes.c_int32,
                                         ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                         ctypes.c_void_p, ctypes.c_size_t]
    lib.etmcu_host_run.argtypes = [P]
    lib.etmcu_host_output_copy.argtypes = [P, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
    _libs[path] = lib
    return lib


class Program:
    """One method of a .pte (and optional .ptd) loaded in-process; run() it as often as needed."""

    def __init__(self, path, data=None, method="forward", lib=None):
        self.path = str(path)
        self.data = None if data is None else str(data)
        self.method = method
        self._handle = None
        self._lib = _load(lib or os.environ.get("ETMCU_HOST_LIB", DEFAULT_LIB))
        err = ctypes.create_string_buffer(1024)
        h = self._lib.etmcu_host_open(self.path.encode(), (self.data or "").encode(),
                                      method.encode(), err, len(err))
        if not h:
            raise RuntimeError(f"{self.path}: {err.value.decode(errors='replace')}")
        self._handle = ctypes.c_void_p(h)
        self.inputs = [self._info(self._lib.etmcu_host_input_info, i)
                       for i in range(self._lib.etmcu_host_num_inputs(self._handle))]
        self.num_outputs = self._lib.etmcu_host_num_outputs(self._handle)
        self.input_shapes = [tuple(x.get("shape", [])) for x in self.inputs]
        self.input_dtypes = [x.get("dtype") for x in self.inputs]
        # int8 I/O: (scale, zero point) per input, None for float inputs
        self.input_quant = [x.get("quant") for x in self.inputs]

    def _check(self, rc, what):
        if rc != 0:
            msg = self._lib.etmcu_host_error(self._handle).decode(errors="replace")
            raise RuntimeError(f"{self.path}: {msg or what + ' failed'}")

    def _info(self, fn, i):
        v = _Value()
        self._check(fn(self._handle, i, ctypes.byref(v)), "describing a value")
        if v.kind == _TENSOR:
            d = dict(kind="tensor", dtype=np.dtype(_DTYPES.get(v.dtype, np.uint8)).name,
                     shape=[v.sizes[k] for k in range(v.dim)], nbytes=v.nbytes,
                     code=v.dtype)
            if v.has_quant:
                d["quant"] = (v.scale, v.zero_point)
            return d
        value = {_INT: v.int_value, _BOOL: bool(v.int_value), _DOUBLE: v.double_value}
        return dict(kind="scalar" if v.kind in value else "other", value=value.get(v.kind))

    def _set(self, i, x):
        want = self.inputs[i]
        if want["kind"] != "tensor":
            raise ValueError(f"input {i} of {self.path} is not a tensor (etmcu.Program sets "
                             "tensor inputs only)")
        if hasattr(x, "detach"):
            x = x.detach().cpu().numpy()
        a = np.asarray(x)
        t = np.dtype(want["dtype"])
        if a.dtype != t:
            if t == np.int8 and want.get("quant") and a.dtype.kind == "f":
                a = a.astype(np.float32)        # int8 I/O: quantized by the runtime as the CLI does
            elif a.dtype.kind == t.kind or (a.dtype.kind in "iub" and t.kind in "iu"
                                            and np.can_cast(a.dtype, t, "same_kind")):
                a = a.astype(t)                 # e.g. numpy's float64 default -> float32
        a = np.ascontiguousarray(a)
        code = _CODES.get(a.dtype)
        if code is None:
            raise ValueError(f"input {i} of {self.path}: numpy dtype {a.dtype} has no runtime "
                             f"type (the program expects {want['dtype']})")
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        self._check(self._lib.etmcu_host_set_input(self._handle, i, code, shape, a.ndim,
                                                    a.ctypes.data, a.nbytes), f"input {i}")

    def run(self, *inputs):
        """Run the method once. inputs: one array per program input (or one list/tuple of them);
        torch tensors are accepted. Returns the list of outputs: numpy arrays (int8 outputs of
        int8 I/O programs stay int8: see output_quant), Python numbers for scalar outputs."""
        if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = tuple(inputs[0])
        if len(inputs) != len(self.inputs):
            raise ValueError(f"{self.path} takes {len(self.inputs)} inputs, {len(inputs)} given")
        for i, x in enumerate(inputs):
            self._set(i, x)
        self._check(self._lib.etmcu_host_run(self._handle), "run")
        outs, self.output_quant = [], []
        for i in range(self.num_outputs):
            o = self._info(self._lib.etmcu_host_output_info, i)
            self.output_quant.append(o.get("quant"))
            if o["kind"] != "tensor":
                outs.append(o["value"])
                continue
            arr = np.empty(o["shape"], dtype=_DTYPES[o["code"]])
            self._check(self._lib.etmcu_host_output_copy(self._handle, i, arr.ctypes.data,
                                                         arr.nbytes), f"output {i}")
            outs.append(arr)
        return outs

    __call__ = run

    def close(self):
        if self._handle is not None:
            self._lib.etmcu_host_close(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: the library may be gone
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
