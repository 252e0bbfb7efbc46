"""int8 vectors (how the indexer hands them over, ``embed.base.quantize_int8``) as pgvector
``halfvec`` values and back.

Every int8 value is exact in a half float, and cosine distance does not depend on scale, so a
``halfvec`` of the int8 values ranks exactly as sqlite-vec's int8 cosine does; reading one back
gives the same int8 bytes the SQLite store returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def int8_to_halfvec_text(blob: bytes) -> str:
    """pgvector's text form, ``[1,-2,3]``."""
    return "[" + ",".join(map(str, np.frombuffer(blob, dtype=np.int8).tolist())) + "]"


def halfvec_binary_to_int8(data: Any) -> bytes:
    """pgvector's binary ``halfvec``: int16 dimension, int16 unused, then big-endian halves."""
    values = np.frombuffer(bytes(data), dtype=">f2", offset=4)
    return bytes(np.rint(values).astype(np.int8).tobytes())


def halfvec_text_to_int8(data: Any) -> bytes:
    text = bytes(data).decode()
    values = np.array(text.strip("[]").split(","), dtype=np.float32)
    return bytes(np.rint(values).astype(np.int8).tobytes())


# COPY's binary format: a signature, a flags word and an (empty) header extension; -1 fields ends.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_COPY_TRAILER = b"\xff\xff"


def int8_rows_to_copy_binary(rows: Sequence[tuple[int, bytes]]) -> bytes:
    """``(rowid, int8 vector)`` rows as one ``COPY t (rowid, embedding) FROM STDIN (FORMAT
    BINARY)`` stream for a ``bigint`` and a ``halfvec`` column.

    Spelled by numpy in one go: as text, every vector was formatted as ``[1,-2,…]`` by Python and
    parsed again by the server, value by value."""
    if not rows:
        return _COPY_HEADER + _COPY_TRAILER
    dimension = len(rows[0][1])
    if any(len(blob) != dimension for _, blob in rows):
        raise ValueError("vectors of different dimensions in one table")
    layout = np.dtype(
        [
            ("fields", ">i2"),
            ("id_size", ">i4"),
            ("id", ">i8"),
            ("vector_size", ">i4"),
            ("dimension", ">i2"),
            ("unused", ">i2"),
            ("values", ">f2", (dimension,)),
        ]
    )
    out = np.zeros(len(rows), dtype=layout)
    out["fields"] = 2
    out["id_size"] = 8
    out["id"] = [rowid for rowid, _ in rows]
    out["vector_size"] = 4 + 2 * dimension
    out["dimension"] = dimension
    joined = b"".join(bytes(blob) for _, blob in rows)
    out["values"] = np.frombuffer(joined, dtype=np.int8).reshape(len(rows), dimension)
    return _COPY_HEADER + out.tobytes() + _COPY_TRAILER
