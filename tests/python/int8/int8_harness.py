"""Harness of the int8 kernel tests: the single-op runner (tests/kernels/int8/run_op.cpp) built
in build/host (or $ETMCU_INT8_RUN_OP, or build/int8), and a helper to call one kernel."""

import atexit
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

DTYPES = {np.dtype(np.uint8): 0, np.dtype(np.int8): 1, np.dtype(np.int16): 2,
          np.dtype(np.int32): 3, np.dtype(np.int64): 4, np.dtype(np.float32): 6,
          np.dtype(np.float64): 7, np.dtype(np.uint16): 27}


def _runner(variant="ref"):
    name = "int8_run_op" if variant == "ref" else f"int8_run_op_{variant}"
    cands = [os.environ.get("ETMCU_INT8_RUN_OP" if variant == "ref" else f"ETMCU_INT8_RUN_OP_{variant.upper()}", ""),
             ROOT / f"build/host/tests/kernels/int8/{name}",
             ROOT / f"build/int8/tests/kernels/int8/{name}"]
    for c in cands:
        if c and Path(c).is_file():
            return str(c)
    return None


class T:
    """A tensor argument: `phys` holds the bytes in memory order; `sizes` and `dim_order` are the
    logical metadata. NHWC arrays become channels-last [N,C,H,W] tensors with nhwc(...)."""

    def __init__(self, phys, sizes=None, dim_order=None, write=False, arena_offset=None):
        self.arena_offset = arena_offset   # bytes at this offset of the call's shared arena
        self.phys = np.ascontiguousarray(phys)
        self.sizes = list(sizes if sizes is not None else self.phys.shape)
        self.dim_order = list(dim_order if dim_order is not None else range(len(self.sizes)))
        self.write = write


def nhwc(a, write=False):
    n, h, w, c = a.shape
    return T(a, [n, c, h, w], [0, 2, 3, 1], write)


def out_like(phys_shape, dtype, sizes=None, dim_order=None):
    return T(np.zeros(phys_shape, dtype=dtype), sizes, dim_order, write=True)


def out_nhwc(shape, dtype=np.int8):
    return nhwc(np.zeros(shape, dtype=dtype), write=True)


class Ref:
    def __init__(self, i):
        self.i = i


class _Server:
    """One `runner --serve` process: it runs the calls of this test process one after another, as
    separate runs would (run_op.cpp keeps nothing between calls), without a process start per call
    (about 0.1 s for an ASan build, thousands of calls per variant). Its stderr (a sanitizer's
    report) goes to a file that a failure shows."""

    def __init__(self, runner):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen([runner, "--serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, text=True, bufsize=1)

    def run(self, spec):
        """(exit code, stdout, stderr) as one run of `runner spec` gives them."""
        self.p.stdin.write(f"{spec}\n")
        self.p.stdin.flush()
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:   # the runner died in this call (a sanitizer's abort, a crash)
                self.p.wait()
                self.err.seek(0)
                return self.p.returncode or -1, "".join(out), self.err.read()
            if line.startswith("exit ") and line[5:].strip().lstrip("-").isdigit():
                return int(line[5:]), "".join(out), ""
            out.append(line)

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait()


_servers = {}


def _run(runner, spec):
    """Runs one call through the runner's server in this process (restarted after a crash)."""
    srv = _servers.get(runner)
    if srv is None or srv.p.poll() is not None:
        srv = _servers[runner] = _Server(runner)
    rc, out, err = srv.run(spec)
    if srv.p.poll() is not None:
        del _servers[runner]
    return subprocess.CompletedProcess([runner, str(spec)], rc, out, err)


@atexit.register
def _close_servers():
    for srv in _servers.values():
        srv.close()


class Call:
    def __init__(self, runner, tmp, trusted=None):
        self.runner = runner
        self.tmp = tmp
        self.n = 0
        # the same kernels without their argument checks (int8_run_op_<variant>_trusted): every
        # call the checked runner accepts must give the same bits there too
        self.trusted = trusted

    def __call__(self, op, args, expect_error=False, arena_bytes=None):
        """Runs `op` with args (T, int, float, bool, list, None, Ref). Returns the written tensors
        (in memory order, shaped like their `phys`), or the error line when expect_error."""
        self.n += 1
        jargs, outs = [], []
        for i, a in enumerate(args):
            if isinstance(a, T):
                f = self.tmp / f"c{self.n}_a{i}.bin"
                a.phys.tofile(f)
                d = {"dtype": DTYPES[a.phys.dtype], "sizes": a.sizes, "dim_order": a.dim_order,
                     "file": str(f)}
                if a.arena_offset is not None:
                    d["arena_offset"] = int(a.arena_offset)
                if a.write:
                    d["write"] = str(self.tmp / f"c{self.n}_o{i}.bin")
                    outs.append((a, d["write"]))
                jargs.append({"tensor": d})
            elif isinstance(a, Ref):
                jargs.append({"ref": a.i})
            elif a is None:
                jargs.append({"none": None})
            elif isinstance(a, (bool, np.bool_)):
                jargs.append({"bool": bool(a)})
            elif isinstance(a, (int, np.integer)):
                jargs.append({"int": int(a)})
            elif isinstance(a, (float, np.floating)):
                jargs.append({"double": float(a)})
            elif isinstance(a, (list, tuple)):
                jargs.append({"int_list": [int(v) for v in a]})
            else:
                raise TypeError(a)
        spec = self.tmp / f"c{self.n}.json"
        doc = {"op": op, "args": jargs}
        if arena_bytes is not None:
            doc["arena_bytes"] = int(arena_bytes)
        spec.write_text(json.dumps(doc))
        p = _run(self.runner, spec)
        if expect_error:
            assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
            return p.stdout.strip()
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        # the kernel's temp declaration for this call (run_op.cpp), for the scratch-contract tests
        self.temp_declared = int(p.stdout.split("temp_declared ")[1].split()[0])
        result = [np.fromfile(path, dtype=a.phys.dtype).reshape(a.phys.shape) for a, path in outs]
        if self.trusted is not None:
            t = _run(self.trusted, spec)
            assert t.returncode == 0, ("without argument checks", t.returncode, t.stdout, t.stderr)
            assert f"temp_declared {self.temp_declared}" in t.stdout, t.stdout
            for r, (a, path) in zip(result, outs):
                got = np.fromfile(path, dtype=a.phys.dtype).reshape(a.phys.shape)
                assert np.array_equal(got, r), f"{op}: the kernels without argument checks differ"
        return result


def make_call(tmp_path, variant="ref"):
    """A caller of one kernel through the runner built over `variant`'s cortex_m kernels (ref:
    kernels/cortex_m/ref; scalar, xpulp: kernels/cortex_m/opt with isa/<variant>, ref for the ops opt
    does not provide)."""
    runner = _runner(variant)
    if runner is None:
        name = "int8_run_op" if variant == "ref" else f"int8_run_op_{variant}"
        pytest.skip(f"{name} not built (cmake --build build/host --target {name})")
    trusted = _runner(f"{variant}_trusted") if variant in ("rv32", "xpulp") else None
    return Call(runner, tmp_path, trusted)
