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
    model.etmcu_factory = obj
    return model, mod


def _init_depends_on_rng(factory, model):
    """True when building the module again from another global random state gives other
    weights: its initialisation is unseeded, so every export makes a different program."""
    state = torch.random.get_rng_state()
    try:
        torch.seed()                   # a fresh random state, as another process would have
        other = factory()
    except Exception:  # noqa: BLE001 - it was built once already; do not fail on the check
        return False
    finally:
        torch.random.set_rng_state(state)
    a, b = model.state_dict(), other.state_dict()
    return a.keys() == b.keys() and any(
        not torch.equal(a[k], b[k]) for k in a if isinstance(a[k], torch.Tensor) and
        a[k].shape == b[k].shape and a[k].is_floating_point())


def load_weights(model, path):
    """Load trained weights into `model`: a state_dict saved with torch.save(model.state_dict()),
    a checkpoint dict holding one under 'state_dict' / 'model_state_dict' / 'model', or a whole
    saved module. Every parameter and buffer must match by name and shape."""
    p = Path(path)
    if not p.exists():
        raise ExportError(f"--weights: no such file: {path}", op="weights")
    try:
        obj = torch.load(str(p), map_location="cpu")
    except Exception as e:  # noqa: BLE001 - not a torch.save file
        raise ExportError(f"--weights {path}: cannot be read by torch.load ({type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''})", op="weights")
    if isinstance(obj, torch.nn.Module):
        obj = obj.state_dict()
    if isinstance(obj, dict):
        for key in ("state_dict", "model_state_dict", "model"):
            if key in obj and isinstance(obj[key], dict):
                obj = obj[key]
                break
    if not isinstance(obj, dict) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        raise ExportError(f"--weights {path}: expected a state_dict (torch.save(model.state_dict(), "
                          f"...)), got a {type(obj).__name__}", op="weights")
    if obj and all(k.startswith("module.") for k in obj):      # saved from DataParallel
        obj = {k[len("module."):]: v for k, v in obj.items()}
    own = model.state_dict()
    missing = [k for k in own if k not in obj]
    unexpected = [k for k in obj if k not in own]
    shapes = [f"{k}: file {list(obj[k].shape)}, model {list(own[k].shape)}"
              for k in own if k in obj and obj[k].shape != own[k].shape]
    problems = []
    if missing:
        problems.append(f"missing from the file: {', '.join(missing[:8])}"
                        + (f" (+{len(missing) - 8} more)" if len(missing) > 8 else ""))
    if unexpected:
        problems.append(f"not in the model: {', '.join(unexpected[:8])}"
                        + (f" (+{len(unexpected) - 8} more)" if len(unexpected) > 8 else ""))
    if shapes:
        problems.append("different shapes: " + "; ".join(shapes[:8]))
    if problems:
        raise ExportError(f"--weights {path} does not match the model: " + "; ".join(problems),
                          op="weights")
    model.load_state_dict(obj, strict=True)
    return len(obj)


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
    ex.add_argument("--every-overlap", action="store_true",
                    help="keep every offset overlap the kernels allow, also those the planned bytes "
                         "do not need (by default dropped: an out over its input costs its kernel "
                         "time); for tests of the kernels' overlap paths")
    ex.add_argument("--external-constants", action="store_true",
                    help="write the constants to a .ptd beside the .pte (same stem), found by name at "
                         "method load; run with --data FILE.ptd")
    ex.add_argument("--frontend", choices=FRONTENDS, default=None,
                    help="fx (torch.fx tracing) or export (torch.export.export + "
                         "run_decompositions, torch >= 2.1); default: export on torch >= 2.1, "
                         "fx on older torch (docs/exporter.md)")
    ex.add_argument("--seed", type=int, default=0, help="seed for the tracing inputs")
    ex.add_argument("--weights", metavar="FILE.pt",
                    help="trained weights to load before exporting: a state_dict saved with "
                         "torch.save(model.state_dict(), FILE.pt) (or a checkpoint holding one)")
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
    ex.add_argument("--upstream-ops", action="store_true",
                    help="with --quantize int8: only operators upstream ExecuTorch registers, so "
                         "its runtime loads the program too (layers only etmcu's own int8 ops "
                         "cover, bilinear upsampling, stay fp32 and are reported)")
    ex.add_argument("--no-debug-info", action="store_true",
                    help="no per-instruction frames (layer names, source lines) in the program")
    ex.add_argument("--softmax", choices=["int8", "fp32"], default="int8",
                    help="with --quantize: softmax in int8 (cortex_m::softmax, default) or fp32")
    ex.add_argument("--requant", choices=["dyadic", "frexp"], default="dyadic",
                    help="with --quantize int8: the convolutions' and linear layers' "
                         "requantization factors: dyadic (default: m / 2**21, one 32-bit multiply "
                         "on the CV32E40P) or frexp (upstream's quantizer's Q31 form); same "
                         "outputs on every runtime")
    ex.add_argument("--scratch-target", choices=["etmcu", "portable", "dsp"], default="etmcu",
                    help="what the planned scratch is sized for: etmcu (default: CMSIS-NN's portable "
                         "C and etmcu's optimised kernels), portable (CMSIS-NN's portable C), dsp "
                         "(CMSIS-NN's DSP builds)")
    args = ap.parse_args(argv)

    model, mod = _load(args.model)
    if args.weights:
        try:
            n = load_weights(model, args.weights)
        except ExportError as e:
            print(f"etmcu export: error: {e}", file=sys.stderr)
            return 1
        print(f"weights: {n} tensors from {args.weights}", flush=True)
    unseeded = not args.weights and _init_depends_on_rng(model.etmcu_factory, model)
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
        if args.upstream_ops and args.quantize is None:
            raise ExportError("--upstream-ops needs --quantize int8", op="export")
        overlap = False if args.no_overlap else "every" if args.every_overlap else True
        prog = export(model, tuple(inputs), memory_regions=args.memory_regions,
                      inplace=not args.no_inplace, overlap=overlap,
                      quantize=args.quantize,
                      calibration=calibration, scratch_target=args.scratch_target,
                      softmax=args.softmax, frontend=frontend,
                      seed=args.seed, external_constants=args.external_constants,
                      int8_io=args.int8_io, debug_info=not args.no_debug_info,
                      upstream_ops=args.upstream_ops, requant=args.requant)
    except ExportError as e:
        print(f"etmcu export: error: {e}", file=sys.stderr)
        return 1
    prog.save(args.output)
    print(f"exported {args.model} -> {args.output}"
          + (f" + {prog.ptd_path(args.output)}" if prog.external_data is not None else ""))
    print(prog.summary())
    if unseeded:
        print(f"etmcu export: warning: {args.model} builds different weights from another random "
              "state (unseeded initialisation): each export makes a different program. Load "
              "trained weights with --weights FILE.pt, or seed the module (torch.manual_seed(...) "
              "before creating its layers)", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
