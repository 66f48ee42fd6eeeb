# Socratic's own KernelBench-style problem (tests/suite_python): GELU on an 8 GiB input, which the
# describer must describe without allocating it.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 65536
dim = 32768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x)


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
