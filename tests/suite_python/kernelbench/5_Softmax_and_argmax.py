# Socratic's own KernelBench-style problem (tests/suite_python): two outputs, the row softmax (fp32)
# and the index of each row's largest entry (int64).
import torch
import torch.nn as nn

rows = 6
columns = 50


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits):
        return torch.softmax(logits, dim=1), torch.argmax(logits, dim=1)


def get_inputs():
    return [torch.randn(rows, columns)]


def get_init_inputs():
    return []
