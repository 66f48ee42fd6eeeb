# The forward pass reads values (torch.unique's output shape depends on the data): on meta tensors
# its outputs cannot be known, and the describer says so rather than failing.
import torch
import torch.nn as nn

size = 100


class Model(nn.Module):
    def forward(self, x):
        return torch.unique(x)


def get_inputs():
    return [torch.randint(0, 10, (size,))]


def get_init_inputs():
    return []
