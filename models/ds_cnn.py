"""MLPerf Tiny keyword spotting reference model: DS-CNN (f32[1,1,49,10] MFCC -> 12 classes).

Architecture of MLCommons tiny `benchmark/training/keyword_spotting/keras_model.py` (ds_cnn):
Conv2D(64, (10,4), strides 2, 'same') + BN + ReLU, four blocks of
[DepthwiseConv2D(3x3, 'same') + BN + ReLU, Conv2D(64, 1x1) + BN + ReLU], Dropout,
AveragePooling2D((24,5)), Flatten, Dense(12) + softmax.

Counts (models/_counting.py; tests/python/test_zoo.py recomputes them):
  MACs   2,656,768  (reference 2,656,768)
  params    22,604  conv/dense weights+biases, BN folded (reference table says 22,606; the
                    architecture above has no further parameters: 2,624 + 4 x (640 + 4,160) + 780)
"""

import torch
from torch import nn

from models._layers import conv_same, he_normal_, randomize_batchnorm

INPUT_SHAPES = [(1, 1, 49, 10)]
MACS = 2_656_768
PARAMS = 22_604


class Model(nn.Module):
    def __init__(self, num_classes=12, filters=64):
        super().__init__()
        torch.manual_seed(10)
        conv1, hw = conv_same(1, filters, (10, 4), (2, 2), (49, 10))  # -> 25x5
        layers = [conv1, nn.BatchNorm2d(filters), nn.ReLU(), nn.Dropout(0.2)]
        for _ in range(4):
            dw, hw = conv_same(filters, filters, 3, 1, hw, groups=filters)
            layers += [dw, nn.BatchNorm2d(filters), nn.ReLU(),
                       nn.Conv2d(filters, filters, 1), nn.BatchNorm2d(filters), nn.ReLU()]
        layers += [nn.Dropout(0.4), nn.AvgPool2d((24, 5)), nn.Flatten()]
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(filters, num_classes)
        self.softmax = nn.Softmax(dim=-1)
        he_normal_(self)
        randomize_batchnorm(self)

    def forward(self, x):
        return self.softmax(self.fc(self.features(x)))
