"""The dtype names of SOL-ExecBench's definitions and the torch dtypes they stand for.

A name this PyTorch lacks (fp8 before 2.1, fp4) maps to None, and the caller says so by name:
a definition is never run with a substitute dtype.
"""

import torch

# Definition name -> torch attribute name (the same except the packed fp4 pair).
_TORCH_NAMES = {
    "float64": "float64", "float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "float4_e2m1": None, "float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8",
    "bool": "bool",
}

NAMES = tuple(_TORCH_NAMES)


def torch_dtype(name):
    """The torch dtype of a definition's dtype name; KeyError for an unknown name, None when
    this PyTorch has no such dtype."""
    attribute = _TORCH_NAMES[name]
    return getattr(torch, attribute, None) if attribute else None


def name_of(dtype):
    """The definition's name for a torch dtype, or str(dtype) without the `torch.` prefix."""
    text = str(dtype).replace("torch.", "")
    return text


def scalar_dtype_name(value):
    """The dtype a definition gives a Python scalar input (shape null)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    return "float32"
