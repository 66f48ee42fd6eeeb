"""One tensor of a .safetensors file, read without the safetensors package (Debian has none).

The format: an 8-byte little-endian header length N, N bytes of JSON mapping each tensor's key to
{dtype, shape, data_offsets: [begin, end)} (offsets into the bytes after the header; `__metadata__`
is not a tensor), then the data, row-major and little-endian. The worker checks the tensor
against the definition and the judge's buffer; this module only reads what the file says.
"""

import json
import os
import struct

import torch

# The format's dtype names -> the definitions' names (dtype_names.py maps those to torch).
DTYPES = {
    "F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
    "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
    "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool",
}
_ELEMENT_BYTES = {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "float16": 2, "bfloat16": 2, "int16": 2}
MAX_HEADER_BYTES = 100 << 20


class SafetensorsError(Exception):
    """The file is missing, malformed, or lacks the key: the message names the file."""


def read_header(path):
    """The file's header (key -> entry) and where its data starts."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) != 8:
                raise SafetensorsError(f"{path}: not a safetensors file (shorter than its 8-byte header length)")
            (length,) = struct.unpack("<Q", head)
            if length > MAX_HEADER_BYTES:
                raise SafetensorsError(f"{path}: not a safetensors file (a header of {length} bytes)")
            text = f.read(length)
    except OSError as error:
        raise SafetensorsError(f"{path}: {error.strerror}")
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise SafetensorsError(f"{path}: its header is not JSON: {error}")
    if not isinstance(header, dict):
        raise SafetensorsError(f"{path}: its header is not a JSON object")
    header.pop("__metadata__", None)
    return header, 8 + length


def load_tensor(path, key):
    """(definition dtype name, tensor) of `key`; the tensor is None when this PyTorch lacks the
    dtype (the caller refuses it by name)."""
    header, data_start = read_header(path)
    if key not in header:
        keys = ", ".join(sorted(header)) or "none"
        raise SafetensorsError(f"{path}: no tensor `{key}` (its tensors: {keys})")
    entry = header[key]
    try:
        name = DTYPES[entry["dtype"]]
        shape = [int(s) for s in entry["shape"]]
        begin, end = (int(x) for x in entry["data_offsets"])
    except (KeyError, TypeError, ValueError):
        raise SafetensorsError(f"{path}: tensor `{key}` has no valid dtype, shape and data_offsets: {entry!r}")
    count = 1
    for s in shape:
        count *= s
    if end - begin != count * _ELEMENT_BYTES.get(name, 1) or begin < 0:
        raise SafetensorsError(f"{path}: tensor `{key}` spans {end - begin} bytes; {name} {shape} needs "
                               f"{count * _ELEMENT_BYTES.get(name, 1)}")
    if os.path.getsize(path) < data_start + end:
        raise SafetensorsError(f"{path}: tensor `{key}` ends past the end of the file")
    dtype = getattr(torch, name, None)
    if dtype is None:
        return name, None
    with open(path, "rb") as f:
        f.seek(data_start + begin)
        data = bytearray(f.read(end - begin))
    raw = torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    return name, raw.view(dtype).reshape(shape)
