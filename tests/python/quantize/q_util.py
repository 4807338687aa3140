"""Shared, cached pieces of the int8 export tests (exports and 200-input runs cost seconds)."""

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
for p in (ROOT, ROOT / "python"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import pytest  # noqa: E402

from etmcu import export, quant_eval  # noqa: E402

CLI = ROOT / "build" / "host" / "tools" / "etmcu-cli"
CORPUS = ROOT.parent / "shared" / "pte-corpus"  # shared/ sits beside the checkout (CI too)
KWS_PTE = CORPUS / "upstream" / "examples__arduino__examples__KeywordSpotting__model.pte"
N_EVAL = 200
ZOO = quant_eval.ZOO


@functools.lru_cache(maxsize=None)
def model(name):
    return quant_eval.zoo_model(name)


@functools.lru_cache(maxsize=None)
def int8(name):
    mod, m = model(name)
    return export(m, quant_eval.example_inputs(mod), quantize="int8")


@functools.lru_cache(maxsize=None)
def fp32(name):
    mod, m = model(name)
    return export(m, quant_eval.example_inputs(mod))


@functools.lru_cache(maxsize=None)
def int8_trunk(name):
    mod, m = model(name)
    t = quant_eval.trunk(name, m)
    return None if t is m else export(t, quant_eval.example_inputs(mod), quantize="int8")


@functools.lru_cache(maxsize=None)
def inputs(name):
    return quant_eval.eval_inputs(model(name)[0], N_EVAL)


@functools.lru_cache(maxsize=None)
def eager_outputs(name):
    return quant_eval.eager(model(name)[1], inputs(name))


@functools.lru_cache(maxsize=None)
def reference_outputs(name, which="full"):
    prog = int8(name) if which == "full" else int8_trunk(name)
    return quant_eval.run_reference(prog, inputs(name))


def runtime_outputs(name, tmp_path, which="full"):
    if not CLI.exists():
        pytest.fail(f"host runtime CLI not built: {CLI} (./etmcu build)")
    prog = int8(name) if which == "full" else int8_trunk(name)
    pte = prog.save(tmp_path / f"{name}_{which}.pte")
    try:
        return quant_eval.run_runtime(CLI, pte, inputs(name), tmp_path)
    except RuntimeError as e:
        pytest.fail(str(e))
