"""MLPerf Tiny image classification reference model: ResNet-8 for CIFAR-10 (f32[1,3,32,32] -> 10).

Architecture of MLCommons tiny `benchmark/training/image_classification/keras_model.py`
(resnet_v1_eembc with 16 filters): Conv2D(16, 3x3) + BN + ReLU, three residual stacks with
16/32/64 filters (stacks 2 and 3 downsample by 2 and use a 1x1 strided conv on the identity
path), AveragePooling2D(8), Flatten, Dense(10) + softmax.

Counts (models/_counting.py; tests/python/test_zoo.py recomputes them):
  MACs   12,501,632  (reference 12,501,632)
  params     77,706  conv/dense weights+biases, BN folded (reference table says 77,708)
"""

import torch
from torch import nn

from models._layers import conv_same, he_normal_, randomize_batchnorm

INPUT_SHAPES = [(1, 3, 32, 32)]
MACS = 12_501_632
PARAMS = 77_706


class Stack(nn.Module):
    def __init__(self, in_ch, out_ch, stride, hw):
        super().__init__()
        self.conv1, out_hw = conv_same(in_ch, out_ch, 3, stride, hw)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2, _ = conv_same(out_ch, out_ch, 3, 1, out_hw)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Conv2d(in_ch, out_ch, 1, stride) if stride != 1 else nn.Identity()
        self.relu = nn.ReLU()
        self.out_hw = out_hw

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(self.shortcut(x) + y)


class Model(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        torch.manual_seed(12)
        self.conv, hw = conv_same(3, 16, 3, 1, (32, 32))
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.stack1 = Stack(16, 16, 1, hw)
        self.stack2 = Stack(16, 32, 2, self.stack1.out_hw)
        self.stack3 = Stack(32, 64, 2, self.stack2.out_hw)
        self.pool = nn.AvgPool2d(self.stack3.out_hw)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(64, num_classes)
        self.softmax = nn.Softmax(dim=-1)
        he_normal_(self)
        randomize_batchnorm(self)

    def forward(self, x):
        x = self.relu(self.bn(self.conv(x)))
        x = self.stack3(self.stack2(self.stack1(x)))
        return self.softmax(self.fc(self.flatten(self.pool(x))))
