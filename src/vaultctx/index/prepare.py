"""One vault file turned into rows ready to write: the CPU-heavy half of indexing.

Reading, parsing, chunking, scrubbing and (in worker processes) embedding need no database, so
a large run spreads them over processes while the indexer's own process writes (see
``parallel.py``). Everything here therefore takes and returns only picklable values.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from typing import Any, NamedTuple

from vaultctx.config import Settings
from vaultctx.embed.base import Embedder, embedding_input, quantize_int8_rows
from vaultctx.index.phase_time import timed
from vaultctx.index.text_codec import pack_text
from vaultctx.index.vector_memo import VectorMemo, memoisable, text_key
from vaultctx.scrub import scrub_secrets
from vaultctx.text.language import text_language
from vaultctx.text.lexical import fts_document
from vaultctx.vault.chunker import chunk_text, heading_context
from vaultctx.vault.errors import UnreadableFileError
from vaultctx.vault.note import Note, front_matter_json, parse_note
from vaultctx.vault.scanner import VaultFile, read_vault_file

log = logging.getLogger(__name__)


@dataclass
class ChunkRow:
    ordinal: int
    section: str
    heading_path: str
    text: str
    context: str
    text_hash: bytes
    # Computed where the chunk is prepared (a worker process in large runs), so the writing
    # process only runs SQL: the compressed text and the analysed FTS columns.
    body: bytes = b""
    fts_columns: tuple[str, str, str] = ("", "", "")
    vector: bytes | None = None
    quality_vector: bytes | None = None
    lang: str = ""  # text.language's code: which rankers can read the chunk


# A chunk's fields in ChunkRow's order, as one C call (PreparedFile.__getstate__).
_CHUNK_VALUES = attrgetter(*(column.name for column in fields(ChunkRow)))


class FileColumns(NamedTuple):
    """The ``files`` row's note columns, scrubbed and serialised where the file is prepared."""

    title: str
    type: str | None
    status: str | None
    front_matter: str
    tags: str
    aliases: str
    problems: str


@dataclass
class PreparedFile:
    """What became of one file. ``note`` is None until parsed (or when unreadable/skipped)."""

    file: VaultFile
    content_hash: str | None = None
    unreadable: str | None = None
    excluded: str | None = None
    note: Note | None = None
    columns: FileColumns | None = None
    chunks: list[ChunkRow] = field(default_factory=list)
    secrets: Counter[str] = field(default_factory=Counter)
    phase_seconds: dict[str, float] = field(default_factory=dict)

    # Workers send prepared files to the indexer's process by pickling (parallel.py), and that
    # process is the one that writes: its chunks travel as plain tuples, which unpickle without
    # running any Python code (a dataclass instance each cost several µs of the writer's CPU).
    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["chunks"] = [_CHUNK_VALUES(row) for row in self.chunks]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["chunks"] = [ChunkRow(*values) for values in state["chunks"]]
        self.__dict__.update(state)


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def read_file(vault_file: VaultFile) -> tuple[PreparedFile, str | None]:
    """The file's hash (and text), or the reason it cannot be read."""
    prepared = PreparedFile(vault_file)
    try:
        with timed(prepared.phase_seconds, "read"):
            text = read_vault_file(vault_file)
    except UnreadableFileError as exc:
        prepared.unreadable = exc.problem
        return prepared, None
    prepared.content_hash = digest(text).hex()
    return prepared, text


def parse_and_chunk(prepared: PreparedFile, text: str, settings: Settings) -> None:
    """Parse, then chunk and scrub unless the note is excluded (Excalidraw, Kanban).

    A note that breaks the parser in a way nobody foresaw is reported as unreadable (its earlier
    version stays indexed) instead of failing the run, and with it every later run of a watcher:
    one hostile note must never stop a vault from being indexed."""
    try:
        _parse_and_chunk(prepared, text, settings)
    except Exception as exc:  # any parser failure, reported for this note only
        log.warning("%s could not be parsed: %r", prepared.file.path, exc)
        prepared.note, prepared.columns, prepared.chunks = None, None, []
        prepared.unreadable = (
            f"could not be parsed ({type(exc).__name__}); it is left as it was indexed before. "
            "Please report this note's shape as a vaultctx bug"
        )


def _parse_and_chunk(prepared: PreparedFile, text: str, settings: Settings) -> None:
    with timed(prepared.phase_seconds, "parse"):
        note = parse_note(prepared.file.path, text)
    with timed(prepared.phase_seconds, "scrub"):
        note = scrub_metadata(note)
    prepared.note = note
    prepared.excluded = _excluded(note, settings)
    if prepared.excluded is None:
        prepared.chunks = _chunk(note, settings, prepared)
        with timed(prepared.phase_seconds, "scrub"):
            prepared.columns = _file_columns(note, prepared.secrets)


def scrub_metadata(note: Note) -> Note:
    """The note with every short text that reaches the index scrubbed: title, type, status, tags,
    aliases, problems and each link's target, heading, block and alias (a link's URL can carry a
    token). The body is scrubbed where it is chunked.

    One scrubber call over all of them joined finds nothing in nearly every note (~5 µs); only
    then is each text scrubbed on its own, so one text's marker never shifts into another's.
    """
    links = [(link.target, link.heading, link.block, link.alias) for link in note.links]
    texts = [note.title, note.type, note.status, *note.tags, *note.aliases, *note.problems]
    texts += [part for fields in links for part in fields]
    joined = "\n".join(text for text in texts if text)
    if scrub_secrets(joined).text == joined:
        return note

    def clean(text: str) -> str:
        return scrub_secrets(text).text

    def maybe(text: str | None) -> str | None:
        return None if text is None else clean(text)

    return replace(
        note,
        title=clean(note.title),
        type=maybe(note.type),
        status=maybe(note.status),
        tags=[clean(tag) for tag in note.tags],
        aliases=[clean(alias) for alias in note.aliases],
        problems=[clean(problem) for problem in note.problems],
        links=[
            replace(
                link,
                target=clean(link.target),
                heading=maybe(link.heading),
                block=maybe(link.block),
                alias=maybe(link.alias),
            )
            for link in note.links
        ],
    )


def _file_columns(note: Note, secrets: Counter[str]) -> FileColumns:
    """The columns, with the front matter's secrets added to ``secrets``: the whole front matter
    is scrubbed here, so a secret in it is counted once (the title, tags and other short texts
    scrub_metadata cleaned come from it or from the body, whose secrets _chunk counts)."""
    front_matter = scrub_secrets(front_matter_json(note))
    secrets.update(front_matter.counts)
    return FileColumns(
        title=note.title,  # scrubbed by scrub_metadata, as are the lists below
        type=note.type,
        status=note.status,
        front_matter=front_matter.text,
        tags=json.dumps(note.tags, ensure_ascii=False),
        aliases=json.dumps(note.aliases, ensure_ascii=False),
        problems=json.dumps(note.problems, ensure_ascii=False),
    )


def without_text(prepared: PreparedFile) -> PreparedFile:
    """What the writing process still needs of a prepared file, for sending it there: the note's
    body and front matter are already chunked and serialised, and each chunk's text is in
    ``body`` (compressed) and ``fts_columns``. Pickling them too cost the indexer's process
    ~2 s of 14k files."""
    if prepared.note is not None:
        prepared.note = replace(prepared.note, body="", front_matter={})
    for row in prepared.chunks:
        if row.vector is not None:
            row.text = ""
    return prepared


def embed_rows(
    rows: list[ChunkRow], embedder: Embedder, batch_size: int, memo: VectorMemo | None = None
) -> None:
    """Fill ``vector`` of the rows that have none, ``batch_size`` texts per model call; with a
    ``memo``, a text this run has embedded before takes that vector (index/vector_memo.py)."""
    missing = [row for row in rows if row.vector is None]
    if memo is not None and memoisable(embedder):
        _embed_memoised(missing, embedder, batch_size, memo)
        return
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        vectors = embedder.embed([embedding_input(row.context, row.text) for row in batch])
        for row, vector in zip(batch, quantize_int8_rows(vectors), strict=True):
            row.vector = vector


def _embed_memoised(
    rows: list[ChunkRow], embedder: Embedder, batch_size: int, memo: VectorMemo
) -> None:
    model = embedder.model_hash
    texts = [embedding_input(row.context, row.text) for row in rows]
    keys = [text_key(text) for text in texts]
    new: dict[bytes, list[int]] = {}  # each new text once, with the rows that hold it
    for i, (row, key, vector) in enumerate(zip(rows, keys, memo.recall(model, keys), strict=True)):
        if vector is None:
            new.setdefault(key, []).append(i)
        else:
            row.vector = vector
    firsts = [holders[0] for holders in new.values()]
    for start in range(0, len(firsts), batch_size):
        batch = firsts[start : start + batch_size]
        vectors = quantize_int8_rows(embedder.embed([texts[i] for i in batch]))
        memo.remember(model, [keys[i] for i in batch], vectors)
        for i, vector in zip(batch, vectors, strict=True):
            for holder in new[keys[i]]:
                rows[holder].vector = vector


def _excluded(note: Note, settings: Settings) -> str | None:
    reason = note.excluded_reason
    if reason is None:
        return None
    if "excalidraw" in reason and settings.index_excalidraw:
        return None
    if "kanban" in reason and settings.index_kanban:
        return None
    setting = "index_excalidraw" if "excalidraw" in reason else "index_kanban"
    return f"{reason} (set {setting} = true in vaultctx.toml to index it)"


def _chunk(note: Note, settings: Settings, prepared: PreparedFile) -> list[ChunkRow]:
    """Scrub the body once, then chunk it: the chunks' 200-character overlaps are not scrubbed
    twice (nor a secret in one counted twice), a secret across a chunk boundary is still found,
    and headings, which become ``section`` and the context line, are scrubbed too."""
    rows: list[ChunkRow] = []
    with timed(prepared.phase_seconds, "scrub"):
        body = scrub_secrets(note.body)
        prepared.secrets.update(body.counts)
    with timed(prepared.phase_seconds, "chunk"):
        chunks = chunk_text(
            body.text,
            max_chars=settings.chunk_max_chars,
            min_chars=settings.chunk_min_chars,
            overlap=settings.chunk_overlap,
            overlap_mid_sentence=settings.chunk_overlap_mid_sentence,
        )
    with timed(prepared.phase_seconds, "scrub"):
        contexts: dict[tuple[str, ...], str] = {}  # one per section, not per chunk
        for chunk in chunks:
            context = contexts.get(chunk.heading_path)
            if context is None:
                scrubbed = scrub_secrets(
                    heading_context(note.title, note.tags, note.aliases, chunk.heading_path)
                )
                prepared.secrets.update(scrubbed.counts)
                context = contexts[chunk.heading_path] = scrubbed.text
            rows.append(
                ChunkRow(
                    ordinal=chunk.ordinal,
                    section=chunk.section,
                    heading_path=" > ".join(chunk.heading_path),
                    text=chunk.text,
                    context=context,
                    # 128 bits is plenty to recognise unchanged text within one note.
                    text_hash=digest(embedding_input(context, chunk.text))[:16],
                )
            )
    with timed(prepared.phase_seconds, "store"):
        for row in rows:
            row.body = pack_text(row.text)
            row.lang = text_language(embedding_input(row.context, row.text))
            row.fts_columns = fts_columns(row.text, row.section, row.context)
    return rows


def fts_columns(text: str, section: str, context: str) -> tuple[str, str, str]:
    """What the FTS table indexes for a chunk's three columns (analysed, e.g. Korean)."""
    return fts_document(text), fts_document(section), fts_document(context)
