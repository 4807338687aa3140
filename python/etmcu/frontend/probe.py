"""Before tracing: run the model once in eager mode and turn user mistakes into one clear message.

Both front ends trace the model, and a model that cannot even run on the example inputs (wrong
--input-shape, integer inputs into a float layer, a layer we can never export) otherwise fails
deep inside torch with a long traceback. Forward hooks track which submodule is running, so an
exception names the layer (its module path, the source line that calls it), the shapes and dtypes
it received, torch's one-line reason, and what to do. Shared by the fx and torch.export paths.
"""

import inspect
import os
import traceback

import torch
from torch import nn

from ..errors import ExportError

_TORCH_DIR = os.path.dirname(torch.__file__)
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Layers no front end can export: there is no out-variant kernel for them in the runtime, and their
# decompositions (loops over time steps, data-dependent sequence handling) are not static graphs here.
_UNSUPPORTED = {
    nn.RNN: "nn.RNN is not supported: use nn.GRU or nn.LSTM (fp32, unrolled over the time "
            "steps; --frontend fx), or 1-D convolutions",
    nn.RNNCellBase: "recurrent cells are not supported: write the cell with nn.Linear and "
                    "elementwise ops",
    nn.MultiheadAttention: "nn.MultiheadAttention is not supported: write the attention with "
                           "nn.Linear, matmul and softmax",
    nn.Transformer: "nn.Transformer layers are not supported",
    nn.TransformerEncoderLayer: "nn.Transformer layers are not supported",
    nn.TransformerDecoderLayer: "nn.Transformer layers are not supported",
    nn.Embedding: "nn.Embedding is not supported (the runtime has no gather kernel)",
}


def _user_frame(frames):
    """The innermost frame of the user's code in a list of FrameSummary (not torch, not etmcu)."""
    for f in reversed(frames):
        path = os.path.abspath(f.filename)
        if not path.startswith(_TORCH_DIR) and not path.startswith(_HERE) and "<" not in f.filename:
            return f
    return None


def frame_text(f):
    if f is None:
        return ""
    return f"{_short(f.filename)}:{f.lineno}: {(f.line or '').strip()}"


def _short(path):
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def describe(v):
    """'float32[1, 3, 28, 28]' for a tensor, recursively for tuples/lists."""
    if isinstance(v, torch.Tensor):
        return f"{str(v.dtype).replace('torch.', '')}{list(v.shape)}"
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(describe(x) for x in v) + ")"
    return type(v).__name__


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _param_dtype(module):
    for p in module.parameters():
        return p.dtype
    return None


# Exported by the fx front end only (frontend/recurrent.py unrolls them).
_FX_ONLY = {
    nn.LSTM: "nn.LSTM is exported by the fx front end only (--frontend fx: unrolled over the time "
             "steps, fp32)",
    nn.GRU: "nn.GRU is exported by the fx front end only (--frontend fx: unrolled over the time "
            "steps, fp32)",
}


def check_inputs(module, example_inputs, frontend="fx"):
    """Run `module` on `example_inputs` once; raise ExportError (never a torch traceback) when it
    fails or contains a layer that cannot be exported."""
    names = {m: n for n, m in module.named_modules()}
    stack, calls, first_inputs = [], {}, {}

    def pre(m, inputs):
        stack.append((m, inputs))
        if m not in calls:
            calls[m] = _user_frame(traceback.extract_stack()[:-1])
            first_inputs[m] = describe(tuple(inputs))[1:-1]

    def post(m, inputs, output):
        if stack and stack[-1][0] is m:
            stack.pop()

    handles = []
    for m in names:
        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
    try:
        with torch.no_grad():   # on copies: a model that writes into its input must not
            module(*[x.clone() if isinstance(x, torch.Tensor) else x for x in example_inputs])
    except Exception as e:  # noqa: BLE001 - anything torch raises becomes one message
        failing, inputs = stack[-1] if stack else (module, tuple(example_inputs))
        path = names.get(failing, "")
        where = _user_frame(traceback.extract_tb(e.__traceback__))
        layer = f"layer '{path}' ({type(failing).__name__})" if path else \
            f"the model ({type(failing).__name__})"
        msg = (f"{layer} fails on its input {describe(tuple(inputs))[1:-1]} (model inputs "
               f"{describe(tuple(example_inputs))[1:-1]}): {_first_line(e)}")
        call = calls.get(failing)
        if path and call is not None and frame_text(call) != frame_text(where):
            msg += f"\n  '{path}' is called at {frame_text(call)}"
        pdt = _param_dtype(failing)
        nonfloat = [x for x in example_inputs if isinstance(x, torch.Tensor)
                    and not x.is_floating_point()]
        if nonfloat and pdt is not None and pdt.is_floating_point:
            hint = (f"the layer's weights are {str(pdt).replace('torch.', '')}; --input-dtype sets the "
                    "dtype of the inputs the model is traced with, it does not quantize. Keep "
                    "float32 inputs; for an int8 program add --quantize int8 (docs/quantization.md)")
        else:
            hint = ("give --input-shape (once per input) with the shapes the model expects; the "
                    "program has exactly those static shapes (dynamic shapes are not supported)")
        raise ExportError(msg, op="run", source=frame_text(where), hint=hint,
                          show_op=False) from None
    finally:
        for h in handles:
            h.remove()
    unsupported = {**_UNSUPPORTED, **({} if frontend == "fx" else _FX_ONLY)}
    for m, path in names.items():
        for cls, why in unsupported.items():
            if isinstance(m, cls):
                msg = f"layer '{path or type(m).__name__}' ({type(m).__name__})"
                if m in first_inputs:
                    msg += f" on input {first_inputs[m]}"
                msg += f": {why}"
                if calls.get(m) is not None:
                    msg += f"\n  '{path}' is called at {frame_text(calls[m])}"
                raise ExportError(msg, op=f"{type(m).__module__}.{type(m).__name__}",
                                  source=_definition(module, path), show_op=False)


def _definition(module, path):
    """'file:line: code' of the attribute assignment creating submodule `path` in its parent's
    __init__, or the parent class's definition line."""
    parent_path, _, attr = path.rpartition(".")
    parent = module.get_submodule(parent_path) if parent_path else module
    try:
        lines, start = inspect.getsourcelines(type(parent).__init__)
        src = inspect.getsourcefile(type(parent).__init__)
    except (OSError, TypeError):
        return ""
    for i, line in enumerate(lines):
        if f"self.{attr}" in line and "=" in line:
            return f"{_short(src)}:{start + i}: {line.strip()}"
    return f"{_short(src)}:{start}: {lines[0].strip()}" if lines else ""


def _module_at(root, filename, lineno):
    """Module paths whose class's forward() spans filename:lineno (the layer running that line)."""
    hits = []
    for path, m in root.named_modules():
        fwd = type(m).forward
        try:
            src = os.path.abspath(inspect.getsourcefile(fwd) or "")
            lines, start = inspect.getsourcelines(fwd)
        except (OSError, TypeError):
            continue
        if src == os.path.abspath(filename) and start <= lineno < start + len(lines):
            hits.append(path)
    return hits


def locate(e, root):
    """(layer description, 'file:line: code') of the user code an exception came from: the innermost
    user frame of its traceback (fx tracing runs the user's forward), else the 'File ..., line N'
    frames torch.export/dynamo write into their messages (dynamo interprets the bytecode, so the
    user's frames are not on the Python stack)."""
    frames = traceback.extract_tb(e.__traceback__)
    f = _user_frame(frames)
    if f is None:
        stack = getattr(e, "real_stack", None)
        if stack:
            f = _user_frame(list(stack))
    if f is None:
        import re
        found = re.findall(r'File "([^"]+)", line (\d+), in [^\n]*\n\s*([^\n]*)', str(e))
        summ = [traceback.FrameSummary(fn, int(ln), "", line=code) for fn, ln, code in found]
        f = _user_frame(summ)
    if f is None:
        return "", ""
    paths = _module_at(root, f.filename, f.lineno)
    layer = ""
    if paths:
        layer = (f"layer '{paths[0]}'" if paths[0] else "the model's forward()") + (
            f" (and {len(paths) - 1} more of that class)" if len(paths) > 1 else "")
    return layer, frame_text(f)
