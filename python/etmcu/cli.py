"""Command line: `python -m etmcu.cli export FILE.py:NAME -o OUT.pte --input-shape 1,3,32,32 ...`.

NAME is an nn.Module subclass constructible without arguments, or a function returning a module.
Inputs for tracing are seeded random tensors of the given shapes (the program is static-shape;
the values only drive shape propagation). Prints what was exported.
"""

import argparse
import importlib.util
import inspect
import sys
import traceback
from pathlib import Path

import torch

from . import FRONTENDS, default_frontend, export
from .errors import ExportError
from .frontend.probe import frame_text

_DTYPES = {"float32": torch.float32, "float": torch.float32, "int32": torch.int32,
           "int64": torch.int64, "int8": torch.int8, "uint8": torch.uint8}


def _load(spec):
    if ":" not in spec:
        raise SystemExit(f"expected FILE.py:NAME, got '{spec}'")
    file, name = spec.rsplit(":", 1)
    path = Path(file).resolve()
    if not path.exists():
        raise SystemExit(f"no such file: {file}")
    # Let zoo-style files import their siblings/packages (e.g. `from models._layers import ...`).
    for p in (path.parent, path.parent.parent):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    mod_spec = importlib.util.spec_from_file_location(f"_etmcu_user_{path.stem}", path)
    mod = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(mod)
    except SyntaxError as e:
        raise SystemExit(f"{file}:{e.lineno}: syntax error: {e.msg}\n  {(e.text or '').strip()}")
    except Exception as e:  # noqa: BLE001 - the user's module failed at import time
        where = _user_frame_in(e, path)
        raise SystemExit(f"importing {file} failed: {type(e).__name__}: {e}"
                         + (f"\n  at {where}" if where else ""))
    obj = getattr(mod, name, None)
    if obj is None:
        raise SystemExit(f"{file} has no attribute '{name}'")
    if not callable(obj):
        raise SystemExit(f"{spec}: '{name}' is a {type(obj).__name__}; expected an nn.Module "
                         "class or a function returning a module")
    needed = _required_params(obj)
    if needed:
        what = "class" if isinstance(obj, type) else "function"
        raise SystemExit(
            f"{spec}: the {what} '{name}' needs arguments ({', '.join(needed)}); the command line "
            f"calls it with none. Add a function to {path.name} that returns the configured model, "
            f"e.g.\n    def make_model():\n        return {name}(...)\n  and export "
            f"{file}:make_model")
    try:
        model = obj()
    except Exception as e:  # noqa: BLE001 - the user's constructor failed
        where = _user_frame_in(e, path)
        raise SystemExit(f"{spec}: calling {name}() failed: {type(e).__name__}: {e}"
                         + (f"\n  at {where}" if where else ""))
    if not isinstance(model, torch.nn.Module):
        raise SystemExit(f"{spec} did not produce an nn.Module (got {type(model).__name__})")
    return model, mod


def _required_params(obj):
    """Names of the parameters `obj()` would be missing (empty when it can be called bare)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p.name for p in sig.parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                   p.KEYWORD_ONLY)]


def _user_frame_in(e, path):
    """'file:line: code' of the innermost traceback frame in the user's model file."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if Path(f.filename).resolve() == path]
    return frame_text(frames[-1]) if frames else ""


def _shape(text):
    try:
        return tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad shape '{text}' (expected e.g. 1,3,32,32)")


def _regions(text):
    return [None if s in ("", "none", "inf") else int(s) for s in text.split(",")]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="etmcu")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("export", help="export a PyTorch module to a .pte program")
    ex.add_argument("model", help="FILE.py:NAME (nn.Module class or factory function)")
    ex.add_argument("-o", "--output", required=True, help="output .pte path")
    ex.add_argument("--input-shape", action="append", type=_shape, default=[],
                    help="shape of one input, e.g. 1,3,32,32 (repeat per input; default: the "
                         "file's INPUT_SHAPES if it defines them)")
    ex.add_argument("--input-dtype", action="append", default=[], choices=sorted(_DTYPES),
                    help="dtype per input (default float32; one value applies to all)")
    ex.add_argument("--memory-regions", type=_regions, default=None,
                    help="byte budgets of planned memory regions 1..n, e.g. 65536,none")
    ex.add_argument("--no-inplace", action="store_true", help="disable in-place buffer reuse")
    ex.add_argument("--no-overlap", action="store_true",
                    help="disable offset overlaps (outs over the start of a dying input where the "
                         "kernel's contract allows): whole-tensor plan")
    ex.add_argument("--external-constants", action="store_true",
                    help="write the constants to a .ptd beside the .pte (same stem), found by name at "
                         "method load; run with --data FILE.ptd")
    ex.add_argument("--frontend", choices=FRONTENDS, default=None,
                    help="fx (torch.fx tracing) or export (torch.export.export + "
                         "run_decompositions, torch >= 2.1); default: export on torch >= 2.1, "
                         "fx on older torch (docs/exporter.md)")
    ex.add_argument("--seed", type=int, default=0, help="seed for the tracing inputs")
    ex.add_argument("--quantize", choices=["int8"], default=None,
                    help="post-training static int8 quantization to upstream's cortex_m ops")
    ex.add_argument("--calibration", default=None, metavar="N|DIR",
                    help="with --quantize: N generated samples (default 32) or a directory of "
                         ".npy/.npz samples")
    ex.add_argument("--int8-io", action="store_true",
                    help="with --quantize int8: the method's inputs and outputs are the int8 "
                         "tensors (4-D ones channels-last); their scale and zero point are in the "
                         "program (./etmcu inspect shows them, ./etmcu run quantizes float .npy "
                         "inputs with them)")
    ex.add_argument("--softmax", choices=["int8", "fp32"], default="int8",
                    help="with --quantize: softmax in int8 (cortex_m::softmax, default) or fp32")
    ex.add_argument("--scratch-target", choices=["portable", "dsp"], default="portable",
                    help="CMSIS-NN build the scratch buffers are sized for (default: portable, "
                         "the etmcu kernels)")
    args = ap.parse_args(argv)

    model, mod = _load(args.model)
    shapes = args.input_shape or [tuple(s) for s in getattr(mod, "INPUT_SHAPES", [])]
    if not shapes:
        raise SystemExit("give --input-shape for every model input")
    dtypes = args.input_dtype or ["float32"]
    if len(dtypes) == 1:
        dtypes = dtypes * len(shapes)
    if len(dtypes) != len(shapes):
        raise SystemExit("--input-dtype must be given once or once per --input-shape")
    frontend = args.frontend or default_frontend()
    print(f"front end: {frontend} (torch {torch.__version__}"
          + ("" if args.frontend else ", the default for this torch") + ")", flush=True)
    gen = torch.Generator().manual_seed(args.seed)
    inputs = []
    for shape, dt in zip(shapes, dtypes):
        t = torch.randn(shape, generator=gen)
        inputs.append(t.to(_DTYPES[dt]) if _DTYPES[dt] != torch.float32 else t)
    try:
        calibration = args.calibration
        if calibration is not None and calibration.isdigit():
            calibration = int(calibration)
        if calibration is not None and args.quantize is None:
            raise ExportError("--calibration needs --quantize int8", op="export")
        if args.int8_io and args.quantize is None:
            raise ExportError("--int8-io needs --quantize int8", op="export")
        prog = export(model, tuple(inputs), memory_regions=args.memory_regions,
                      inplace=not args.no_inplace, overlap=not args.no_overlap,
                      quantize=args.quantize,
                      calibration=calibration, scratch_target=args.scratch_target,
                      softmax=args.softmax, frontend=frontend,
                      seed=args.seed, external_constants=args.external_constants,
                      int8_io=args.int8_io)
    except ExportError as e:
        print(f"etmcu export: error: {e}", file=sys.stderr)
        return 1
    prog.save(args.output)
    print(f"exported {args.model} -> {args.output}"
          + (f" + {prog.ptd_path(args.output)}" if prog.external_data is not None else ""))
    print(prog.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
