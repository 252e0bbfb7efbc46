"""Files attached to a question (``--attach FILE``, ``--note PATH``): read safely, checked against
the backend before anything is sent, and turned into the parts of the user prompt.

Text files are inlined into the prompt, each cut to its first 8,000 characters with a visible
marker, so one large log cannot crowd out the question. Images and documents go as files, and only
to the backends that read them: each backend declares the media types it takes
(``LLMBackend.attachment_types``) and any limits of its own (``check_attachments``: Bedrock's
sizes and counts), in its module under agent/llm_backends/; docs/agent.md has the table.

Limit: 20 MB for any file sent as a file (what OpenAI and Gemini take inline in one request).

Attachments may live outside the vault: the user named them. A symlink they pass is followed, but
only a regular file is opened, and without blocking, so a FIFO or a device cannot hang the command.

Importing this module registers the ``attachment`` framing tag with pydantic-ai, which must happen
before the first request so every request escapes text the same way.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

from pydantic_ai.framing import register_tag, wrap
from pydantic_ai.messages import BinaryContent

from vaultctx.agent.llm_backends.registry import backend_names, get_backend
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault

TEXT_CHAR_LIMIT = 8_000
"""Characters of a text file sent to the model."""

COUNT_BYTE_LIMIT = 4 * 1024 * 1024
"""A longer text file is not read to the end to count its characters: the marker gives its size."""

FILE_BYTE_LIMIT = 20_000_000
"""The largest image or document attached as a file, on any backend."""

_CHUNK_BYTES = 64 * 1024

TEXT_MEDIA_TYPES = {
    "md": "text/markdown",
    "txt": "text/plain",
    "log": "text/plain",
    "json": "application/json",
    "yaml": "application/yaml",
    "yml": "application/yaml",
    "toml": "application/toml",
    "csv": "text/csv",
    "xml": "application/xml",
    "html": "text/html",
    "css": "text/css",
    "js": "text/javascript",
    "ts": "text/x-typescript",
    "py": "text/x-python",
}
"""Text attachments by extension: the plugin's eleven, plus Python, TOML and logs."""


@dataclass(frozen=True)
class FileFormat:
    """A format sent as a file: its media type and the name a person knows it by."""

    media_type: str
    label: str


FILE_FORMATS = {
    "png": FileFormat("image/png", "PNG"),
    "jpg": FileFormat("image/jpeg", "JPEG"),
    "jpeg": FileFormat("image/jpeg", "JPEG"),
    "gif": FileFormat("image/gif", "GIF"),
    "webp": FileFormat("image/webp", "WebP"),
    "pdf": FileFormat("application/pdf", "PDF"),
    "doc": FileFormat("application/msword", "Word"),
    "docx": FileFormat(
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Word"
    ),
    "xls": FileFormat("application/vnd.ms-excel", "Excel"),
    "xlsx": FileFormat(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Excel"
    ),
}
_FORMAT_BY_MEDIA_TYPE = {
    file_format.media_type: file_format for file_format in FILE_FORMATS.values()
}

ATTACHMENT_TAG = register_tag("attachment")
"""Frames each attachment in the prompt; its body cannot close it or open any other frame."""


@dataclass(frozen=True)
class Attachment:
    """One attached file, read and ready to send.

    ``text`` is set for a text file (at most ``TEXT_CHAR_LIMIT`` characters), ``data`` for an image
    or document. ``original_chars`` is the whole text file's length, or ``None`` when it was too
    large to count cheaply; ``size`` is the file's size in bytes.
    """

    name: str
    kind: Literal["text", "image", "document"]
    media_type: str
    size: int
    text: str | None = None
    data: bytes | None = None
    original_chars: int | None = None
    truncated: bool = False


def load_attachment(path: Path) -> Attachment:
    """Read ``path`` as an attachment, refusing what cannot be sent before reading any of it."""
    extension = path.suffix.lower().removeprefix(".")
    _refuse_if_not_regular(path, _stat(path).st_mode)
    if extension not in TEXT_MEDIA_TYPES and extension not in FILE_FORMATS:
        raise VaultctxError(
            f"{path}: {'.' + extension if extension else 'a file without an extension'}"
            " cannot be attached",
            f"attach one of: {', '.join(sorted([*TEXT_MEDIA_TYPES, *FILE_FORMATS]))}",
        )
    with _open_regular_file(path) as file:
        size = os.fstat(file.fileno()).st_size
        if extension in TEXT_MEDIA_TYPES:
            return _read_text(path.name, TEXT_MEDIA_TYPES[extension], file, size)
        return _read_file(path.name, FILE_FORMATS[extension], file, size)


def _open_regular_file(path: Path) -> BinaryIO:
    """Open ``path`` for reading without blocking, and check it is still a regular file: the stat
    before it followed the path, which may since point at a FIFO."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise _unreadable(path, error) from error
    file = os.fdopen(descriptor, "rb")
    try:
        _refuse_if_not_regular(path, os.fstat(descriptor).st_mode)
    except VaultctxError:
        file.close()
        raise
    return file


def _stat(path: Path) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError as error:
        raise VaultctxError(f"{path}: no such file", "check the path and try again") from error
    except OSError as error:
        raise _unreadable(path, error) from error


def _unreadable(path: Path, error: OSError) -> VaultctxError:
    return VaultctxError(
        f"{path}: cannot be read ({error.strerror or error})",
        "check that the file exists and that you may read it",
    )


def _refuse_if_not_regular(path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise VaultctxError(f"{path} is a folder", "attach the files in it one by one")
    if not stat.S_ISREG(mode):
        raise VaultctxError(
            f"{path} is not a regular file (a pipe, socket or device)",
            "save what you want to attach to a file and attach that",
        )


def _read_text(name: str, media_type: str, file: BinaryIO, size: int) -> Attachment:
    """The first ``TEXT_CHAR_LIMIT`` characters, and the length when it is cheap to count.

    Reads one character past the limit to know the text was cut, then goes on counting only up to
    ``COUNT_BYTE_LIMIT`` bytes: memory stays at one chunk and the head, whatever the file's size.
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    head, chars, read = "", 0, 0
    while True:
        chunk = file.read(_CHUNK_BYTES)
        text = decoder.decode(chunk, final=not chunk)
        head += text[: TEXT_CHAR_LIMIT + 1 - len(head)]
        chars += len(text)
        read += len(chunk)
        if not chunk or (len(head) > TEXT_CHAR_LIMIT and read >= COUNT_BYTE_LIMIT):
            break
    whole = not chunk
    return Attachment(
        name=name,
        kind="text",
        media_type=media_type,
        size=size,
        text=head[:TEXT_CHAR_LIMIT],
        original_chars=chars if whole else None,
        truncated=len(head) > TEXT_CHAR_LIMIT,
    )


def _read_file(name: str, file_format: FileFormat, file: BinaryIO, size: int) -> Attachment:
    """An image or document, whole: refused unread when the file is over the limit."""
    if size > FILE_BYTE_LIMIT:
        raise too_large(name, size, FILE_BYTE_LIMIT, "an attachment")
    data = file.read(FILE_BYTE_LIMIT + 1)
    if len(data) > FILE_BYTE_LIMIT:  # it grew since the stat
        raise too_large(name, len(data), FILE_BYTE_LIMIT, "an attachment")
    kind: Literal["image", "document"] = (
        "image" if file_format.media_type.startswith("image/") else "document"
    )
    return Attachment(name=name, kind=kind, media_type=file_format.media_type, size=size, data=data)


def too_large(name: str, size: int, limit: int, what: str) -> VaultctxError:
    return VaultctxError(
        f"{name} is {_megabytes(size)}, over the {_megabytes(limit)} limit for {what}",
        "attach a smaller file: compress or resize it, or split it",
    )


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.2f}".rstrip("0").rstrip(".") + " MB"


def check_backend_support(backend: str, attachments: Sequence[Attachment]) -> None:
    """Refuse, before anything is sent, an attachment ``backend`` cannot take, naming the backends
    that can."""
    chosen = get_backend(backend)
    for attachment in attachments:
        if attachment.kind != "text" and attachment.media_type not in chosen.attachment_types:
            _refuse_format(backend, attachment)
    chosen.check_attachments(attachments)


def _refuse_format(backend: str, attachment: Attachment) -> None:
    label = _FORMAT_BY_MEDIA_TYPE[attachment.media_type].label
    readers = [
        name
        for name in sorted(backend_names())
        if attachment.media_type in get_backend(name).attachment_types
    ]
    raise VaultctxError(
        f"{attachment.name}: {label} attachments are not supported by {backend}",
        f"use --backend {' or '.join(readers)}, or attach a text export",
    )


def to_user_content(question: str, attachments: Sequence[Attachment]) -> list[str | BinaryContent]:
    """The user prompt: images and documents first, then one text part holding each attachment in
    its frame and the question last.

    pydantic-ai keeps this order on every backend; files first is what OpenAI and Anthropic
    recommend, and the question after the material is what the model answers best. The text part
    names every file, as a model cannot see a file's name otherwise (Bedrock's document blocks are
    named "Document 1", … by pydantic-ai, and Gemini's inline data has no name).
    """
    parts: list[str | BinaryContent] = [
        BinaryContent(data=attachment.data, media_type=attachment.media_type)
        for attachment in attachments
        if attachment.data is not None
    ]
    frames, position = [], 0
    for attachment in attachments:
        if attachment.text is None:
            position += 1
            frames.append(_file_frame(attachment, position, len(parts)))
        else:
            frames.append(_text_frame(attachment))
    parts.append("\n\n".join([*frames, question]))
    return parts


def _text_frame(attachment: Attachment) -> str:
    """A text file's content in its tag, and the marker after it when it was cut."""
    framed = wrap(ATTACHMENT_TAG, attachment.text or "", name=attachment.name)
    return f"{framed}\n{truncation_marker(attachment)}" if attachment.truncated else framed


def _file_frame(attachment: Attachment, position: int, count: int) -> str:
    """Which of the files sent before the text this one is, so the model knows its name."""
    body = f"(attached above as file {position} of {count})"
    return wrap(ATTACHMENT_TAG, body, name=attachment.name, media_type=attachment.media_type)


def truncation_marker(attachment: Attachment) -> str:
    """The line after a cut text file, outside its frame so the file cannot forge or hide it."""
    if attachment.original_chars is None:
        return (
            f"[Truncated: only the first {TEXT_CHAR_LIMIT:,} characters of {attachment.name}"
            f" ({attachment.size:,} bytes) were sent]"
        )
    return (
        f"[Truncated: only the first {TEXT_CHAR_LIMIT:,} of {attachment.original_chars:,}"
        f" characters of {attachment.name} were sent]"
    )


# A note is read whole up to this many tokens (4 characters each) before it is cut to
# TEXT_CHAR_LIMIT, so the marker can give its real length.
_NOTE_READ_TOKENS = COUNT_BYTE_LIMIT // 4


def note_attachment(vault: Vault, path: str) -> Attachment:
    """The "current note" (``--note PATH``, ``/note PATH``), read through the vault: a tool's path
    rules apply (vault-relative, confined, ignored files refused) and credentials are scrubbed,
    unlike ``--attach``, which sends a file the user picked as it is."""
    note = vault.read_note(path, max_tokens=_NOTE_READ_TOKENS)
    text = note.text
    cut = len(text) > TEXT_CHAR_LIMIT or note.truncated
    return Attachment(
        name=note.path,
        kind="text",
        media_type="text/markdown",
        size=len(text.encode("utf-8")),
        text=text[:TEXT_CHAR_LIMIT],
        original_chars=None if note.truncated else len(text),
        truncated=cut,
    )
