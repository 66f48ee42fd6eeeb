# Socratic's own KernelBench-style problem (tests/suite_python): scaled dot products over heads,
# where the batch and the head count share a value, as in many of the suite's files.
import torch
import torch.nn as nn

batch_size = 4
num_heads = 4
seq_len = 16
head_dim = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k):
        return torch.matmul(q, k.transpose(-1, -2)) * head_dim ** -0.5


def get_inputs():
    q = torch.randn(batch_size, num_heads, seq_len, head_dim)
    k = torch.randn(batch_size, num_heads, seq_len, head_dim)
    return [q, k]


def get_init_inputs():
    return []
