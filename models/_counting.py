"""MAC and parameter counting for the zoo, the way the MLPerf Tiny reference tables count them.

MACs: one multiply-accumulate per weight use in Conv/Linear (bias adds, BatchNorm, pooling and
activations are not counted). Parameters: conv/linear weights and biases; BatchNorm statistics are
excluded because the exporter folds them into the preceding layer.
"""

import torch
from torch import nn


def count_macs_params(model: nn.Module, *example_inputs: torch.Tensor):
    """Return (macs, params) for one forward pass on `example_inputs`."""
    macs = 0

    def conv_hook(mod, inp, out):
        nonlocal macs
        k = mod.weight[0].numel()  # (Cin/groups) * prod(kernel)
        macs += out.numel() // out.shape[0] * k

    def linear_hook(mod, inp, out):
        nonlocal macs
        macs += out.numel() // out.shape[0] * mod.in_features

    handles = []
    params = 0
    for m in model.modules():
        if isinstance(m, (nn.Conv1d, nn.Conv2d)):
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
        else:
            continue
        params += m.weight.numel() + (m.bias.numel() if m.bias is not None else 0)
    model.eval()
    with torch.no_grad():
        model(*example_inputs)
    for h in handles:
        h.remove()
    return macs, params
