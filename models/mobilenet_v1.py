"""MLPerf Tiny visual wake words reference model: MobileNetV1, width 0.25 (f32[1,3,96,96] -> 2).

Architecture of MLCommons tiny `benchmark/training/visual_wake_words/vww_model.py`:
Conv2D(8, 3x3, s2, 'same') + BN + ReLU, then 13 depthwise-separable blocks
[DepthwiseConv2D(3x3, stride s, 'same') + BN + ReLU, Conv2D(c, 1x1) + BN + ReLU] with
(c, s) = (16,1) (32,2) (32,1) (64,2) (64,1) (128,2) 5x(128,1) (256,2) (256,1),
AveragePooling2D(3x3), Flatten, Dense(2) + softmax.

Counts (models/_counting.py; tests/python/test_zoo.py recomputes them):
  MACs   7,489,664  (reference 7,489,664)
  params   210,850  conv/dense weights+biases, BN folded (reference table says 210,852)
"""

import torch
from torch import nn

from models._layers import conv_same, he_normal_, randomize_batchnorm

INPUT_SHAPES = [(1, 3, 96, 96)]
MACS = 7_489_664
PARAMS = 210_850

BLOCKS = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2)] + [(128, 1)] * 5 + [(256, 2), (256, 1)]


class Model(nn.Module):
    def __init__(self, num_classes=2, width=8):
        super().__init__()
        torch.manual_seed(11)
        conv, hw = conv_same(3, width, 3, 2, (96, 96))
        layers = [conv, nn.BatchNorm2d(width), nn.ReLU()]
        ch = width
        for out_ch, stride in BLOCKS:
            dw, hw = conv_same(ch, ch, 3, stride, hw, groups=ch)
            layers += [dw, nn.BatchNorm2d(ch), nn.ReLU(),
                       nn.Conv2d(ch, out_ch, 1), nn.BatchNorm2d(out_ch), nn.ReLU()]
            ch = out_ch
        layers += [nn.AvgPool2d(hw), nn.Flatten()]
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(ch, num_classes)
        self.softmax = nn.Softmax(dim=-1)
        he_normal_(self)
        randomize_batchnorm(self)

    def forward(self, x):
        return self.softmax(self.fc(self.features(x)))
