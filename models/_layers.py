"""Shared building blocks for the zoo: Keras-style 'same' padding and reproducible initialisation.

The MLPerf Tiny reference models are Keras models; Keras' 'same' padding puts the odd extra pixel
at the bottom/right for strided layers, which PyTorch's symmetric `padding=` cannot express. We
use an explicit ZeroPad2d there so output shapes (and so MAC counts) match the reference.
"""

import torch
from torch import nn


def same_pad(in_hw, kernel, stride):
    """Keras 'same' padding for a 2-D layer: (left, right, top, bottom)."""
    pads = []
    for size, k, s in zip(in_hw, kernel, stride):
        out = -(-size // s)
        total = max((out - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    (top, bottom), (left, right) = pads
    return (left, right, top, bottom)


def conv_same(in_ch, out_ch, kernel, stride, in_hw, groups=1):
    """Conv2d with Keras 'same' padding; symmetric cases use the conv's own padding (no pad op)."""
    kernel = (kernel, kernel) if isinstance(kernel, int) else tuple(kernel)
    stride = (stride, stride) if isinstance(stride, int) else tuple(stride)
    left, right, top, bottom = same_pad(in_hw, kernel, stride)
    out_hw = tuple(-(-s // st) for s, st in zip(in_hw, stride))
    if left == right and top == bottom:
        conv = nn.Conv2d(in_ch, out_ch, kernel, stride, padding=(top, left), groups=groups)
        return conv, out_hw
    conv = nn.Conv2d(in_ch, out_ch, kernel, stride, padding=0, groups=groups)
    return nn.Sequential(nn.ZeroPad2d((left, right, top, bottom)), conv), out_hw


def he_normal_(model: nn.Module):
    """Keras' he_normal kernel initialiser (the MLPerf Tiny references use it): keeps activations
    at a useful scale through deep ReLU stacks, so outputs really depend on the input (a weak
    random init makes every input give nearly the same output, which would make tests blind)."""
    for m in model.modules():
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Linear)):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            if m.bias is not None:
                nn.init.uniform_(m.bias, -0.1, 0.1)


def randomize_batchnorm(model: nn.Module):
    """Give BatchNorm layers non-trivial statistics so folding is actually exercised by tests."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
