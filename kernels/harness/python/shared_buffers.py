"""The judge's buffers as torch tensors: a file under /dev/shm (or a memfd by its /proc path) on CPU,
a CUDA IPC handle on the GPU (docs/reference-worker.md, "Buffers").

A malformed buffer raises RequestError naming the request's field (`inputs.x.dtype`), so the judge
knows which of its values was wrong.
"""

import os

import torch

import dtype_names


class RequestError(Exception):
    """A request the worker cannot carry out; `field` names the part of the request at fault."""

    def __init__(self, field, message):
        super().__init__(message)
        self.field = field


def _integers(field, value, minimum):
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum
                                              for v in value):
        raise RequestError(field, f"{field} must be a list of integers >= {minimum}, not {value!r}")
    return value


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


def buffer_spec(field, spec):
    """The dtype, shape, strides and byte offset of a buffer description, checked."""
    if not isinstance(spec, dict):
        raise RequestError(field, f"{field} must be a buffer object (file or cuda_ipc, dtype, shape), not {spec!r}")
    name = spec.get("dtype")
    if name not in dtype_names.NAMES:
        raise RequestError(f"{field}.dtype", f"{field}.dtype {name!r} is not one of {', '.join(dtype_names.NAMES)}")
    dtype = dtype_names.torch_dtype(name)
    if dtype is None:
        raise RequestError(f"{field}.dtype", f"{field}.dtype {name}: this PyTorch ({torch.__version__}) has no such dtype")
    shape = _integers(f"{field}.shape", spec.get("shape"), 0)
    strides = spec.get("strides")
    strides = _contiguous_strides(shape) if strides is None else _integers(f"{field}.strides", strides, 0)
    if len(strides) != len(shape):
        raise RequestError(f"{field}.strides", f"{field}.strides has {len(strides)} entries for a {len(shape)}-d shape")
    offset = spec.get("offset", 0)
    item = torch.empty((), dtype=dtype).element_size()
    if not isinstance(offset, int) or offset < 0 or offset % item:
        raise RequestError(f"{field}.offset", f"{field}.offset must be a byte count >= 0 and a multiple of "
                                              f"{item} (the size of {name}), not {offset!r}")
    return dtype, shape, strides, offset // item, item


def open_buffer(field, spec, writable):
    """A tensor viewing the buffer: writes go to the judge's memory when `writable`; otherwise it is
    a private copy, so a reference that changes its inputs in place leaves the judge's intact."""
    dtype, shape, strides, offset_elements, item = buffer_spec(field, spec)
    if "cuda_ipc" in spec:
        if not torch.cuda.is_available():
            raise RequestError(f"{field}.cuda_ipc",
                               f"{field}: CUDA IPC buffers are not supported on this build: this PyTorch has no CUDA")
        import cuda_ipc  # only where there is a GPU: it loads libcudart
        tensor = cuda_ipc.open_tensor(field, spec, dtype, shape, strides, offset_elements, item)
        # The worker's own copy of an input: a reference that changes it in place leaves the judge's.
        return tensor if writable else tensor.clone()
    path = spec.get("file")
    if not isinstance(path, str) or not path:
        raise RequestError(f"{field}.file", f"{field} names no buffer: give `file` (a path under /dev/shm) or `cuda_ipc`")
    numel = 1
    for size in shape:
        numel *= size
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    extent = offset_elements + 1 + sum((size - 1) * stride for size, stride in zip(shape, strides))
    try:
        available = os.path.getsize(path)
    except OSError as error:
        raise RequestError(f"{field}.file", f"{field}.file {path}: {error.strerror}")
    if available < extent * item:
        raise RequestError(f"{field}.file", f"{field}.file {path} holds {available} bytes; "
                                            f"the view needs {extent * item}")
    storage = torch.from_file(path, shared=writable, size=extent, dtype=dtype)
    return storage.as_strided(shape, strides, offset_elements)
