"""Three models written as a new user would (issue 18): a 1-D conv audio net with BatchNorm1d and
ReLU6 ending in a mean over time, an MLP with softmax, a CNN with MaxPool, Dropout and a residual
add. Seeded, so every export of them is the same program."""

import torch
from torch import nn


class AudioNet(nn.Module):
    """Keyword-spotting style: [1, 40 mel bands, 49 frames] -> 12 classes."""

    def __init__(self, classes=12):
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(
            nn.Conv1d(40, 64, 3, padding=1), nn.BatchNorm1d(64), nn.ReLU6(),
            nn.Conv1d(64, 64, 3, padding=1, stride=2), nn.BatchNorm1d(64), nn.ReLU6(),
            nn.Conv1d(64, 64, 3, padding=1), nn.BatchNorm1d(64), nn.ReLU6(),
        )
        self.fc = nn.Linear(64, classes)
        for m in self.modules():          # non-trivial BN statistics, as after training
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        x = self.net(x)
        x = x.mean(-1)
        return self.fc(x)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return torch.softmax(self.fc3(x), dim=-1)


class ResCnn(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.conv3 = nn.Conv2d(16, 16, 3, padding=1)
        self.drop = nn.Dropout(0.25)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        y = torch.relu(self.conv2(x))
        y = self.conv3(y)
        x = torch.relu(x + y)
        x = self.drop(x)
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


SHAPES = {"AudioNet": (1, 40, 49), "Mlp": (1, 64), "ResCnn": (1, 3, 32, 32)}
