"""Run a .pte on the host runtime from Python: the same C++ runtime and kernels as `./etmcu run`
and the firmware, for checking programs in a loop from a notebook or a test.

    import etmcu
    prog = etmcu.Program("m.pte")              # (optionally data="m.ptd", method="forward")
    outs = prog.run(x)                         # numpy arrays (or tensors) in, numpy arrays out
    prog.input_shapes, prog.input_dtypes       # what it expects

How: each run() calls the host runtime's command line (build/host/tools/etmcu-cli run) with the
inputs as .npy files and reads its .npy outputs, so values cross exactly (no text round trip).
Every call starts one process (a few milliseconds); it is a checking tool, not a fast path.
Errors of the runtime (bad shapes, missing kernels) are raised as RuntimeError with its message.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CLI = _ROOT / "build" / "host" / "tools" / "etmcu-cli"


class Program:
    def __init__(self, path, data=None, method="forward", cli=None):
        self.path = str(path)
        self.data = None if data is None else str(data)
        self.method = method
        self.cli = str(cli or os.environ.get("ETMCU_CLI", DEFAULT_CLI))
        if not os.path.exists(self.cli):
            raise RuntimeError(f"the host runtime is not built ({self.cli}): run ./etmcu build")
        if not os.path.exists(self.path):
            raise RuntimeError(f"no such program: {self.path}")
        p = subprocess.run([self.cli, "inspect", self.path, "--json"], capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{self.path}: {(p.stderr or p.stdout).strip()}")
        info = json.loads(p.stdout)
        meth = next((m for m in info["methods"] if m["name"] == method), None)
        if meth is None:
            raise RuntimeError(f"{self.path} has no method '{method}' "
                               f"(it has {', '.join(m['name'] for m in info['methods'])})")
        self.inputs = meth["inputs"]
        self.input_shapes = [tuple(x.get("shape", [])) for x in self.inputs]
        self.input_dtypes = [x.get("dtype") for x in self.inputs]

    def run(self, *inputs):
        """Run the method once. inputs: one array per program input (or one list/tuple of them);
        torch tensors are accepted. Returns the list of output arrays (numpy)."""
        if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = tuple(inputs[0])
        if len(inputs) != len(self.inputs):
            raise ValueError(f"{self.path} takes {len(self.inputs)} inputs, {len(inputs)} given")
        with tempfile.TemporaryDirectory(prefix="etmcu-run-") as tmp:
            cmd = [self.cli, "run", self.path, "--method", self.method, "--json",
                   "--output-dir", os.path.join(tmp, "out")]
            if self.data:
                cmd += ["--data", self.data]
            for i, x in enumerate(inputs):
                if hasattr(x, "detach"):
                    x = x.detach().cpu().numpy()
                a = np.asarray(x)
                want = self.input_dtypes[i]
                if want and a.dtype != np.dtype(want if want != "bool" else np.bool_):
                    a = a.astype(want)       # e.g. float64 numpy defaults to the program's dtype
                f = os.path.join(tmp, f"in{i}.npy")
                np.save(f, np.ascontiguousarray(a))
                cmd += ["--input", f]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError((p.stderr or p.stdout).strip())
            outs = json.loads(p.stdout.strip().splitlines()[-1])["outputs"]
            result = []
            for i, o in enumerate(outs):
                f = os.path.join(tmp, "out", f"output_{i}.npy")
                # tensors come back as arrays (exact bytes); scalars as the runtime printed them
                result.append(np.load(f) if os.path.exists(f) else o.get("value", o))
            return result

    __call__ = run
