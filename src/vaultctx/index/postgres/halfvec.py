"""int8 vectors (how the indexer hands them over, ``embed.base.quantize_int8``) as pgvector
``halfvec`` values and back.

Every int8 value is exact in a half float, and cosine distance does not depend on scale, so a
``halfvec`` of the int8 values ranks exactly as sqlite-vec's int8 cosine does; reading one back
gives the same int8 bytes the SQLite store returns.
"""

from __future__ import annotations

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
