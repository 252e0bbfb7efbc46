"""Files dropped on the Chat page, read as the agent's attachments.

``load_attachment`` reads a file by path and refuses what cannot be sent; an upload is therefore
written to a private temporary folder under its own base name (never a path the browser chose),
read, and removed. Uploads are bounded in count and bytes before anything is written.
"""

from __future__ import annotations

import re
import tempfile
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


async def read_uploads(files: list[UploadFile]) -> list[Attachment]:
    from vaultctx.agent.attachments import FILE_BYTE_LIMIT, load_attachment

    chosen = [file for file in files if file.filename]
    if len(chosen) > MAX_FILES:
        raise VaultctxError(
            f"{len(chosen)} files attached; at most {MAX_FILES} go with one question",
            "attach fewer files",
        )
    attachments = []
    with tempfile.TemporaryDirectory(prefix="vaultctx-ui-") as folder:
        for number, upload in enumerate(chosen):
            name = safe_name(upload.filename or "")
            own = Path(folder) / str(number)
            own.mkdir()
            target = own / name
            size = 0
            with target.open("wb") as out:
                while piece := await upload.read(_READ_BYTES):
                    size += len(piece)
                    if size > FILE_BYTE_LIMIT:
                        raise VaultctxError(
                            f"{name} is larger than {FILE_BYTE_LIMIT // 1_000_000} MB",
                            "attach a smaller file",
                        )
                    out.write(piece)
            attachments.append(load_attachment(target))
    return attachments
