"""A small CNN on f32[1,3,32,32] that touches most supported ops.

conv+BN (folded), ReLU6, depthwise conv, grouped conv, MaxPool2d, AvgPool2d, a BatchNorm that
cannot be folded (its input is also used elsewhere), sigmoid gating (mul), cat, nearest
upsampling, padding, permute, LayerNorm, matmul, clamp, scalar arithmetic, adaptive average
pooling, flatten, Linear and Softmax.
"""

import torch
import torch.nn.functional as F
from torch import nn

from models._layers import randomize_batchnorm

INPUT_SHAPES = [(1, 3, 32, 32)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.act1 = nn.ReLU6()
        self.dw = nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16, bias=False)
        self.bn_dw = nn.BatchNorm2d(16)
        self.gconv = nn.Conv2d(16, 32, 1, groups=4)
        self.pool = nn.MaxPool2d(2)
        self.bn_keep = nn.BatchNorm2d(32)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(64, 32, 3, padding=1)
        self.norm = nn.LayerNorm(32)
        self.proj = nn.Parameter(torch.randn(32, 32) * 0.2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)
        self.softmax = nn.Softmax(dim=1)
        randomize_batchnorm(self)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv1(x)))          # 16x32x32
        x = F.relu(self.bn_dw(self.dw(x)))              # 16x16x16
        x = self.pool(self.gconv(x))                    # 32x8x8
        gate = torch.sigmoid(self.bn_keep(x))           # BN kept: x is used again below
        y = torch.cat([x * gate, self.avg(x) - 0.5], 1)  # 64x8x8
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")  # 64x16x16
        y = F.pad(y, (1, 1, 1, 1))                      # 64x18x18
        y = F.max_pool2d(y, 2)                          # 64x9x9
        y = self.conv2(y)                               # 32x9x9
        t = y.permute(0, 2, 3, 1)                       # 1x9x9x32
        t = self.norm(t)
        t = torch.matmul(t, self.proj)
        t = torch.clamp(t, -3.0, 3.0) * 0.5 + 1.0
        y = t.permute(0, 3, 1, 2) / 2.0
        y = torch.flatten(self.gap(y), 1)
        return self.softmax(self.fc(y))
