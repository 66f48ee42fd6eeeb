import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    raise ValueError("the inputs are not ready")


def get_init_inputs():
    return []
