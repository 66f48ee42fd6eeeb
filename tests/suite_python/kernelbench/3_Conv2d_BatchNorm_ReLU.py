# Socratic's own KernelBench-style problem (tests/suite_python): a 3x3 convolution, batch norm and
# ReLU, with the layer sizes given by get_init_inputs().
import torch
import torch.nn as nn

batch_size = 2
in_channels = 3
out_channels = 8
height = 16
width = 16
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.norm = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
