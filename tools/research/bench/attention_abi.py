"""The attention entry point's C ABI (kernels/attention/attention_args.h) for ctypes callers.

Kept apart from sdpa_anchors.py (which needs PyTorch) so that CI can check it against the header
without a GPU: tests/kernels/attention_abi_test.sh compares every field's offset and the size.
"""
import ctypes

DTYPES = {"bf16": 0, "fp16": 1}  # enum socratic_dtype


class Args(ctypes.Structure):
    """struct socratic_attention_args, field for field."""
    _fields_ = [("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p),
                ("o", ctypes.c_void_p)] + \
               [(f, ctypes.c_int) for f in ("batch", "seqlen_q", "seqlen_kv", "heads_q",
                                            "heads_kv", "head_dim", "causal", "dtype")] + \
               [("softmax_scale", ctypes.c_float)]


def load_forward(path):
    """socratic_attention_forward from the shared library at `path`, typed."""
    forward = ctypes.CDLL(path).socratic_attention_forward
    forward.argtypes = [ctypes.POINTER(Args), ctypes.c_void_p]
    forward.restype = ctypes.c_int
    return forward
