"""Read a ``.safetensors`` file into numpy arrays, without the safetensors or torch packages.

The format is an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
shape and byte range, then the raw little-endian data: reading it is a few lines, where importing
a library for it cost the static engine most of its load time.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# numpy dtype names by safetensors dtype; numpy itself is imported only to load tensors, as
# reading the header (``tensor_shapes``, for the model hash) must stay cheap.
_DTYPES = {
    "I8": "int8",
    "U8": "uint8",
    "I32": "int32",
    "I64": "int64",
    "F16": "float16",
    "F32": "float32",
    "F64": "float64",
}


_REINSTALL = "point to a complete model folder, or reinstall vaultctx to restore the bundled models"


class SafetensorsError(VaultctxError):
    """The file is not a readable safetensors file; the message names it."""


def _header(data: bytes, path: Path) -> tuple[dict[str, Any], int]:
    """The JSON header and the offset where tensor data starts."""
    try:
        (header_size,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + header_size])
    except (struct.error, ValueError) as exc:
        raise SafetensorsError(f"{path} is not a safetensors file ({exc})", _REINSTALL) from None
    if not isinstance(header, dict):
        raise SafetensorsError(
            f"{path} is not a safetensors file (header is not an object)", _REINSTALL
        )
    return header, 8 + header_size


def tensor_shapes(path: Path) -> dict[str, list[int]]:
    """Each tensor's shape, reading only the header."""
    with path.open("rb") as handle:
        prefix = handle.read(8)
        size = struct.unpack("<Q", prefix)[0] if len(prefix) == 8 else 0
        header, _ = _header(prefix + handle.read(size), path)
    return {name: list(spec["shape"]) for name, spec in header.items() if name != "__metadata__"}


def load_safetensors(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    import numpy as np

    data = path.read_bytes()
    header, start = _header(data, path)
    tensors: dict[str, npt.NDArray[np.generic]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec.get("dtype"))
        if dtype is None:
            raise SafetensorsError(
                f"{path}: tensor {name!r} has unsupported dtype {spec['dtype']}", _REINSTALL
            )
        begin, end = spec["data_offsets"]
        array = np.frombuffer(
            data,
            dtype=np.dtype(dtype).newbyteorder("<"),
            count=(end - begin) // np.dtype(dtype).itemsize,
            offset=start + begin,
        )
        tensors[name] = array.reshape(spec["shape"])
    return tensors
