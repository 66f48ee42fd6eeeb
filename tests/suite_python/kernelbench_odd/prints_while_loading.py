# Prints while loading and running: the describer's stdout must still be its JSON alone.
import torch
import torch.nn as nn

print("loading the problem")
size = 12


class Model(nn.Module):
    def forward(self, x):
        print("forward")
        return x * 2


def get_inputs():
    print("get_inputs")
    return [torch.randn(size)]


def get_init_inputs():
    return []
