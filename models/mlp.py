"""A small MLP (f32[1,64] -> 10 logits): Linear/ReLU/Linear/Tanh/Linear/LogSoftmax."""

import torch
from torch import nn

INPUT_SHAPES = [(1, 64)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return torch.log_softmax(self.fc3(x), dim=-1)
