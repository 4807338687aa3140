"""Small test-only models covering operators and argument forms the zoo does not use.

Used by test_e2e.py (host runtime) and test_exporter.py (reference interpreter). Seeded.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Seq1d(nn.Module):
    """conv1d (+ folded BN1d), 'same' padding, bmm/transpose, scalar-first sub/div, log_softmax."""
    INPUT_SHAPES = [(2, 4, 8), (1, 6, 1)]

    def __init__(self):
        super().__init__()
        torch.manual_seed(20)
        self.conv = nn.Conv1d(4, 6, 3, padding="same")
        self.bn = nn.BatchNorm1d(6)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.5, 1.5)

    def forward(self, x, y):
        a = self.bn(self.conv(x))                  # [2,6,8]
        b = torch.bmm(a, a.transpose(1, 2))        # [2,6,6]
        c = 1.0 - b / 10.0
        d = 2.0 / (torch.sigmoid(c) + 1.0)
        e = d + y.expand(2, 6, 6)
        f = F.relu6(e.view(2, 36) * 3.0)
        g = torch.cat([f, torch.clamp(f, min=1.0)], dim=-1).mean(dim=1, keepdim=True)
        return F.log_softmax(f - g, dim=1)


class NoBias(nn.Module):
    """Optional arguments as Null: bias-free depthwise conv without BN, LayerNorm without
    affine, N-D linear (views around addmm), sum, adaptive pooling to 2x2, interpolate by size."""
    INPUT_SHAPES = [(1, 8, 12, 12)]

    def __init__(self):
        super().__init__()
        torch.manual_seed(21)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.ln = nn.LayerNorm(12, elementwise_affine=False)
        self.fc = nn.Linear(12, 5)
        self.pool = nn.AdaptiveAvgPool2d(2)

    def forward(self, x):
        y = torch.tanh(self.dw(x))
        z = self.fc(self.ln(y))                        # [1,8,12,5]: [96,12] addmm, viewed
        s = z.sum(dim=-1, keepdim=True)                # [1,8,12,1]
        p = self.pool(y)                               # [1,8,2,2]
        u = F.interpolate(p, size=(4, 4), mode="nearest")
        return torch.cat([s.flatten(1), u.flatten(1)], dim=1)


class Gate(nn.Module):
    """eq/where, a BatchNorm that cannot be folded, max pool with padding and ceil_mode."""
    INPUT_SHAPES = [(1, 4, 9, 9)]

    def __init__(self):
        super().__init__()
        torch.manual_seed(22)
        self.bn = nn.BatchNorm2d(4)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)

    def forward(self, x):
        r = torch.relu(x)
        mask = r == 0.0
        y = torch.where(mask, self.bn(x), r)
        return self.pool(y)


OP_MODELS = {"seq1d": Seq1d, "nobias": NoBias, "gate": Gate}
