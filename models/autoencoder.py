"""MLPerf Tiny anomaly detection reference model: FC autoencoder (f32[1,640] -> f32[1,640]).

Architecture of MLCommons tiny `benchmark/training/anomaly_detection/keras_model.py`:
4 x [Dense(128) + BN + ReLU], Dense(8) + BN + ReLU, 4 x [Dense(128) + BN + ReLU], Dense(640).

Counts (models/_counting.py; tests/python/test_zoo.py recomputes them):
  MACs   264,192  (reference 264,192)
  params 265,864  dense weights+biases, BN folded (reference 265,864)
"""

import torch
from torch import nn

from models._layers import he_normal_, randomize_batchnorm

INPUT_SHAPES = [(1, 640)]
MACS = 264_192
PARAMS = 265_864


class Model(nn.Module):
    def __init__(self, dim=640):
        super().__init__()
        torch.manual_seed(13)
        widths = [dim, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers = []
        for a, b in zip(widths[:-1], widths[1:]):
            layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]
        layers.append(nn.Linear(128, dim))
        self.net = nn.Sequential(*layers)
        he_normal_(self)
        randomize_batchnorm(self)

    def forward(self, x):
        return self.net(x)
