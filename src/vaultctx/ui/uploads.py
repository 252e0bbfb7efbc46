"""Files dropped on the Chat page (or sent whole by the Obsidian plugin), read as the agent's
attachments.

``load_attachment`` reads a file by path and refuses what cannot be sent; an upload is therefore
written to a private temporary folder under its own base name (never a path the sender chose),
read, and removed. Uploads are bounded in count and bytes before anything is written.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.datastructures import UploadFile

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.agent.attachments import Attachment

MAX_FILES = 10
# Checked on Content-Length before the form is parsed (and spooled to disk): the files' own
# limit (FILE_BYTE_LIMIT, 20 MB each) for a few of them, not for ten.
MAX_REQUEST_BYTES = 50_000_000
_UNSAFE = re.compile(r"[^\w.\- ]+", re.UNICODE)
_READ_BYTES = 1 << 16


def safe_name(filename: str) -> str:
    """The upload's base name with path separators and odd characters replaced."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    return cleaned[:120] or "attachment"


def check_count(count: int) -> None:
    if count > MAX_FILES:
        raise VaultctxError(
            f"{count} files attached; at most {MAX_FILES} go with one question",
            "attach fewer files",
        )


def _own_place(folder: str, number: int, filename: str) -> Path:
    """Where upload ``number`` is written: a folder of its own, under its cleaned base name."""
    own = Path(folder) / str(number)
    own.mkdir()
    return own / safe_name(filename)


def _too_large(name: str) -> VaultctxError:
    from vaultctx.agent.attachments import FILE_BYTE_LIMIT

    return VaultctxError(
        f"{name} is larger than {FILE_BYTE_LIMIT // 1_000_000} MB", "attach a smaller file"
    )


async def read_uploads(files: list[UploadFile]) -> list[Attachment]:
    from vaultctx.agent.attachments import FILE_BYTE_LIMIT, load_attachment

    chosen = [file for file in files if file.filename]
    check_count(len(chosen))
    attachments = []
    with tempfile.TemporaryDirectory(prefix="vaultctx-ui-") as folder:
        for number, upload in enumerate(chosen):
            target = _own_place(folder, number, upload.filename or "")
            size = 0
            with target.open("wb") as out:
                while piece := await upload.read(_READ_BYTES):
                    size += len(piece)
                    if size > FILE_BYTE_LIMIT:
                        raise _too_large(target.name)
                    out.write(piece)
            attachments.append(load_attachment(target))
    return attachments


def attachments_from_bytes(files: Sequence[tuple[str, bytes]]) -> list[Attachment]:
    """Files sent whole as (name, bytes), read as uploads are."""
    from vaultctx.agent.attachments import FILE_BYTE_LIMIT, load_attachment

    check_count(len(files))
    attachments = []
    with tempfile.TemporaryDirectory(prefix="vaultctx-ui-") as folder:
        for number, (filename, data) in enumerate(files):
            target = _own_place(folder, number, filename)
            if len(data) > FILE_BYTE_LIMIT:
                raise _too_large(target.name)
            target.write_bytes(data)
            attachments.append(load_attachment(target))
    return attachments
