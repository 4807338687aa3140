"""etmcu exporter: PyTorch nn.Module -> ExecuTorch .pte program for the etmcu runtime.

    import etmcu
    prog = etmcu.export(model, (torch.randn(1, 3, 32, 32),))
    prog.save("model.pte"); print(prog.summary())

Pipeline: front end (torch.fx trace + shape propagation) -> IR -> passes (BN folding, dead code)
-> lowering to upstream out-variant KernelCalls -> memory planning -> flatbuffer + segments.
"""

from .errors import ExportError

# torch and the exporter's modules are imported on first use, not with the package: the tools
# that only read programs (tools/firmware/etmcu_fw.py, through etmcu.layers) start in 0.3 s
# instead of 2.7 (torch's import), which the firmware tests paid once per firmware run.

__all__ = ["export", "ExportError", "ExportedProgram", "Program", "default_frontend", "FRONTENDS"]


def __getattr__(name):
    # etmcu.Program (runtime.py): run a .pte on the host runtime; etmcu.ExportedProgram
    if name == "Program":
        from .runtime import Program
        return Program
    if name == "ExportedProgram":
        from .program import ExportedProgram
        return ExportedProgram
    raise AttributeError(f"module 'etmcu' has no attribute '{name}'")

FRONTENDS = ("fx", "export")


def _torch_version():
    import torch
    parts = []
    for p in torch.__version__.split("+")[0].split(".")[:2]:
        digits = "".join(c for c in p if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def default_frontend():
    """"export" (torch.export) on torch >= 2.1, where it exists; "fx" (torch.fx) before."""
    import torch
    return "export" if _torch_version() >= (2, 1) and hasattr(torch, "export") else "fx"


def export(module, example_inputs, *, method_name="forward", memory_regions=None,
           inplace=True, fold_bn=True, frontend=None, verify=True, quantize=None,
           calibration=None, scratch_target="etmcu", linear="per_tensor", softmax="int8",
           seed=0, external_constants=False, int8_io=False, overlap=True, debug_info=True,
           upstream_ops=False, requant="dyadic"):
    """Export `module` for inputs shaped like `example_inputs` (a tensor or tuple of tensors).

    memory_regions: optional list of byte budgets (None = unbounded) for memory_id 1..n.
    frontend: "fx" (module-level torch.fx tracing) or "export" (the ATen graph of
    torch.export.export(...).run_decompositions(); on torch 1.13, which has no torch.export, the
    same ATen front end fed by make_fx); None (default): default_frontend(), "export" on
    torch >= 2.1 and "fx" before. "aten" is an old name of "export". Both feed the same lowering.
    verify: run the finished .pte with the reference interpreter (etmcu/reference.py: real arena
    bytes, so the memory plan is exercised) on the example inputs and require it to match eager
    (max |err| <= 1e-4 x output scale); a mismatch is an ExportError, never a silent file.
    The module is put in eval mode (inference export). Raises ExportError on anything that
    cannot be exported faithfully.

    quantize="int8": post-training static quantization to upstream's cortex_m::* int8 ops
    (docs/quantization.md). calibration: an int N (N seeded standard-normal samples, default
    32), a directory of .npy/.npz samples, or a list of samples (tensors / tuples of tensors).
    scratch_target: what the planned scratch buffers are sized for: "etmcu" (default) CMSIS-NN's
    portable C path and etmcu's optimised kernels (their depthwise plane, so that it lives in the
    arena; docs/kernels.md "Buffers"), "portable" CMSIS-NN's portable C path alone, "dsp"
    CMSIS-NN's DSP-extension builds (upstream's Arduino example's sizes).
    linear: "per_tensor" (default: cortex_m::quantized_linear with per-tensor weights, as
    upstream) or "per_channel" (per-channel weights through a 1x1 cortex_m::quantized_conv2d
    on the [B, in, 1, 1] view; more accurate, same ops library).
    softmax: "int8" (default: cortex_m::softmax on the last dim, output scale 1/256 and zero
    point -128, as CMSIS-NN requires) or "fp32" (dequantize before the softmax: float
    probabilities instead of 1/256 steps).
    debug_info: write one frame per instruction (Chain.stacktrace): the layer's module path,
    source file and line, and for int8 the fp32 layer it approximates with its scale and zero
    point; profiles and `etmcu compare` print layer names from it, the runtime ignores it.
    False: no frames (as upstream's programs), a few bytes per instruction smaller.
    external_constants: put every constant in a separate .ptd (prog.external_data; saved beside
    the .pte), named blobs the runtime finds by name at method load, as upstream's
    external_constants=True does; the .pte then carries no constant bytes.
    overlap: let outs overlap the start of a dying input where the op's kernel declares an
    offset contract (lowering/overlap.py; memory_planner.py) and the planned bytes need it;
    "every": also where they do not (the tests of the kernels' overlap paths); False:
    whole-tensor plan only.
    int8_io: with quantize="int8", the method's inputs and outputs are the int8 tensors (4-D ones
    channels-last) instead of float32: the caller quantizes/dequantizes with the (scale, zero
    point) recorded in the program (named data "etmcu.io_quant.<method>", prog.io_quant,
    `./etmcu inspect`, MethodMeta::input_quant/output_quant), as MLPerf Tiny feeds int8 models.
    requant: with quantize="int8", the convolutions' and linear layers' requantization factors:
    "dyadic" (default) makes each channel's (a linear layer's) factor m / 2**21 (its weight scale
    widened by at most 2**-9; factors below 2**-12 or above 1/2 keep frexp's), which the CV32E40P
    kernels apply with one 32-bit multiply; "frexp" the plain Q31 multiplier and shift of upstream's
    quantizer. Both are ordinary (multiplier, shift) pairs: every runtime computes the same outputs
    (docs/quantization.md "Dyadic requantization").
    upstream_ops: with quantize="int8", emit only operators upstream ExecuTorch registers: the
    layers etmcu's own int8 ops would take (bilinear upsampling) stay fp32 and are reported, so
    upstream's runtime loads the program too.
    For int8 the verification runs the .pte on the example inputs and records the error vs
    eager (prog.verified_error) without a threshold: quantization error is expected.
    """
    import torch

    from .frontend.fx import trace
    from .lowering.emit import lower
    from .memory_planner import plan_memory
    from .passes import run_default_passes
    from .program import ExportedProgram
    from .serialize.ptd import ExternalConstants, build_ptd
    from .serialize.pte import build_pte
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if not isinstance(module, torch.nn.Module):
        raise ExportError(f"expected an nn.Module, got {type(module).__name__}", op="export")
    if frontend is None:
        frontend = default_frontend()
    if frontend == "aten":
        frontend = "export"
    if frontend not in FRONTENDS:
        raise ExportError(f"unknown front end '{frontend}' (choose one of: {', '.join(FRONTENDS)})",
                          op="export")
    from .frontend.probe import check_inputs
    was_training = module.training
    module.eval()
    try:
        check_inputs(module, example_inputs, frontend)
        if frontend == "fx":
            graph = trace(module, example_inputs)
        else:
            from .frontend.aten import trace_aten
            graph = trace_aten(module, example_inputs)
    finally:
        module.train(was_training)
    run_default_passes(graph, fold_bn=fold_bn)
    qinfo = None
    if int8_io and quantize != "int8":
        raise ExportError("int8_io (--int8-io) needs quantize='int8' (--quantize int8)",
                          op="export")
    if quantize is not None:
        if quantize != "int8":
            raise ExportError(f"unknown quantization '{quantize}' (supported: int8)",
                              op="quantize")
        from .calibration import calibration_samples
        from .passes import eliminate_dead_code
        from .passes import lift_1d
        from .quantize import quantize_graph
        lift_1d(graph)
        samples = calibration_samples(calibration, example_inputs, seed=seed)
        if linear not in ("per_tensor", "per_channel"):
            raise ExportError(f"linear must be 'per_tensor' or 'per_channel', got '{linear}'",
                              op="quantize")
        if softmax not in ("fp32", "int8"):
            raise ExportError(f"softmax must be 'fp32' or 'int8', got '{softmax}'", op="quantize")
        if requant not in ("dyadic", "frexp"):
            raise ExportError(f"requant must be 'dyadic' or 'frexp', got '{requant}'",
                              op="quantize")
        _, qinfo = quantize_graph(graph, samples, scratch_target=scratch_target,
                                  linear_per_channel=linear == "per_channel",
                                  int8_softmax=softmax == "int8", int8_io=int8_io,
                                  upstream_ops=upstream_ops, dyadic=requant == "dyadic")
        eliminate_dead_code(graph)
    from .passes import decompose_activations
    decompose_activations(graph)
    method = lower(graph, method_name)
    if qinfo is not None and qinfo.io_quant is not None:
        method.io_quant = qinfo.io_quant
    plan = plan_memory(method, memory_regions, inplace=inplace, overlap=overlap)
    external = ExternalConstants() if external_constants else None
    buffer, pool = build_pte([(method, plan)], external, debug_info=debug_info)
    offsets, segment = pool.layout()
    prog = ExportedProgram(buffer, method, plan, pool.nbytes, len(segment))
    if external is not None:
        prog.external_data = build_ptd(external)
        prog.constant_bytes = external.nbytes
    if qinfo is not None:
        prog.quantization = "int8"
        prog.fp32_ops = list(qinfo.fp32_ops)
        prog.calibration_samples = len(samples)
        prog.io_quant = qinfo.io_quant
    if verify:
        prog.verified_error = _verify(module, example_inputs, prog,
                                      tolerance=None if qinfo is not None else 1e-4)
    return prog


def _verify(module, example_inputs, prog, tolerance=1e-4):
    import numpy as np
    import torch

    from .reference import run_pte
    was_training = module.training
    module.eval()
    try:
        # on copies: the model may write into its inputs. Without oneDNN: Debian 13's torch 2.6
        # computes nn.LSTM through it 0.26 away from the LSTM's own equations on this project's
        # CI machines (its native kernels agree with them to 6e-8), which failed a correct export.
        with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
            ref = module(*[x.clone() for x in example_inputs])
    finally:
        module.train(was_training)
    refs, stack = [], [ref]
    while stack:        # same flattening order as the fx front end's outputs
        v = stack.pop(0)
        if isinstance(v, (list, tuple)):
            stack[:0] = list(v)
        elif isinstance(v, dict):
            stack[:0] = list(v.values())
        else:
            refs.append(v)
    xs = [x.numpy() for x in example_inputs]
    io = prog.io_quant
    if io is not None:     # int8 I/O: quantize as the caller would, dequantize the outputs
        from .quantize import dequantize_array, quantize_array
        xs = [quantize_array(x, s, z) for x, (s, z) in zip(xs, io["inputs"])]
    outs = run_pte(prog.buffer, xs, ptd=prog.external_data)
    if io is not None:
        outs = [dequantize_array(o, s, z) for o, (s, z) in zip(outs, io["outputs"])]
    worst = 0.0
    for o, r in zip(outs, refs):
        r = r.numpy()
        if r.dtype == np.bool_ or not np.issubdtype(r.dtype, np.floating):
            if not np.array_equal(o, r):
                raise ExportError("exported program disagrees with eager (non-float output)",
                                  op="verify")
            continue
        scale = max(float(np.abs(r).max()) if r.size else 0.0, 1e-12)
        err = float(np.abs(o.astype(np.float64) - r).max()) / scale if r.size else 0.0
        if tolerance is None:
            if not np.isfinite(err):
                raise ExportError("int8 program produced non-finite outputs", op="verify")
        elif not err <= tolerance:
            raise ExportError(f"exported program disagrees with eager: max |err| = {err:.2e} x "
                              "output scale (an exporter bug: please report it)", op="verify")
        worst = max(worst, err)
    return worst
