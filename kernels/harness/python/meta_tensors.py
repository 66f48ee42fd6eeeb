"""Every tensor a problem creates lands on PyTorch's `meta` device: shapes and dtypes, no memory.

KernelBench's problems allocate their real inputs and weights (several GB for some), so the
describer builds them here instead. PyTorch 2 has `with torch.device("meta")`, PyTorch 1.13 (Debian's
python3-torch) does not, so the tensor factories are wrapped once, for the life of the process, and
the wrappers send their tensors to `meta` only while `on_meta_device()` is active. Wrapping for good
(rather than swapping functions in and out) also covers a problem that did `from torch import randn`.
"""

import contextlib

import torch

# Factories that take a `device` keyword. The *_like ones follow their argument's device already.
_FACTORIES = ("randn", "rand", "randint", "randperm", "zeros", "ones", "empty", "full", "tensor",
              "as_tensor", "arange", "linspace", "logspace", "eye", "empty_strided", "zeros_like",
              "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like")

_active = [False]


def _is_device(value):
    return isinstance(value, torch.device) or (
        isinstance(value, str) and value.split(":")[0] in ("cpu", "cuda", "meta", "mps", "xpu"))


def _wrap_factory(original):
    def factory(*args, **kwargs):
        if _active[0]:
            kwargs["device"] = "meta"
            kwargs.pop("pin_memory", None)
            kwargs.pop("generator", None)  # a generator is per device; meta draws nothing
        return original(*args, **kwargs)
    factory.__wrapped__ = original
    return factory


def _wrap_tensor_to(original):
    # A problem moves its tensors with .to("cuda") or .to(device, dtype): on meta the device part
    # is dropped and the dtype part kept.
    def to(self, *args, **kwargs):
        if _active[0] and self.is_meta:
            args = tuple("meta" if _is_device(a) else a for a in args)
            if "device" in kwargs:
                kwargs["device"] = "meta"
        return original(self, *args, **kwargs)
    to.__wrapped__ = original
    return to


def _wrap_tensor_to_cuda(original):
    def cuda(self, *args, **kwargs):
        if _active[0] and self.is_meta:
            return self
        return original(self, *args, **kwargs)
    cuda.__wrapped__ = original
    return cuda


def _install():
    if getattr(torch, "_socratic_meta_factories", False):
        return
    for name in _FACTORIES:
        if hasattr(torch, name):
            setattr(torch, name, _wrap_factory(getattr(torch, name)))
    torch.Tensor.to = _wrap_tensor_to(torch.Tensor.to)
    torch.Tensor.cuda = _wrap_tensor_to_cuda(torch.Tensor.cuda)
    torch._socratic_meta_factories = True


@contextlib.contextmanager
def on_meta_device():
    """Within this block, torch's factories and .to()/.cuda() of meta tensors give meta tensors."""
    _install()
    _active[0] = True
    try:
        yield
    finally:
        _active[0] = False
