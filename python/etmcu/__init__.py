"""etmcu exporter: PyTorch nn.Module -> ExecuTorch .pte program for the etmcu runtime.

    import etmcu
    prog = etmcu.export(model, (torch.randn(1, 3, 32, 32),))
    prog.save("model.pte"); print(prog.summary())

Pipeline: front end (torch.fx trace + shape propagation) -> IR -> passes (BN folding, dead code)
-> lowering to upstream out-variant KernelCalls -> memory planning -> flatbuffer + segments.
"""

import torch

from .errors import ExportError
from .frontend.fx import trace
from .lowering.emit import lower
from .memory_planner import plan_memory
from .passes import run_default_passes
from .program import ExportedProgram
from .serialize.pte import build_pte

__all__ = ["export", "ExportError", "ExportedProgram"]


def export(module, example_inputs, *, method_name="forward", memory_regions=None,
           inplace=True, fold_bn=True, frontend="fx"):
    """Export `module` for inputs shaped like `example_inputs` (a tensor or tuple of tensors).

    memory_regions: optional list of byte budgets (None = unbounded) for memory_id 1..n.
    frontend: "fx" (module-level torch.fx tracing, the default) or "aten" (an ATen graph from
    torch.export on torch >= 2.1, make_fx on 1.13); both feed the same lowering.
    The module is put in eval mode (inference export). Raises ExportError on anything that
    cannot be exported faithfully.
    """
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if not isinstance(module, torch.nn.Module):
        raise ExportError(f"expected an nn.Module, got {type(module).__name__}", op="export")
    was_training = module.training
    module.eval()
    try:
        if frontend == "fx":
            graph = trace(module, example_inputs)
        elif frontend == "aten":
            from .frontend.aten import trace_aten
            graph = trace_aten(module, example_inputs)
        else:
            raise ExportError(f"unknown front end '{frontend}'", op="export")
    finally:
        module.train(was_training)
    run_default_passes(graph, fold_bn=fold_bn)
    method = lower(graph, method_name)
    plan = plan_memory(method, memory_regions, inplace=inplace)
    buffer, pool = build_pte([(method, plan)])
    offsets, segment = pool.layout()
    return ExportedProgram(buffer, method, plan, pool.nbytes, len(segment))
