# Socratic's own KernelBench-style problem (tests/suite_python): RMS normalisation with a learned
# scale, eps passed as a Python float beside the tensor.
import torch
import torch.nn as nn

rows = 8
features = 40


class Model(nn.Module):
    def __init__(self, features, initial_scale):
        super().__init__()
        self.scale = nn.Parameter(torch.full((features,), initial_scale) + 0.1 * torch.randn(features))

    def forward(self, x, eps):
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)
        return x / rms * self.scale


def get_inputs():
    return [torch.randn(rows, features), 1e-5]


def get_init_inputs():
    return [features, 1.5]
