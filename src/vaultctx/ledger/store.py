"""The AI change ledger on disk: the last 20 changes made to one vault, each undoable.

It lives in the per-user data dir, ``<data dir>/ledger/<vault name>-<digest>/``, named like the
vault's index but apart from it (``vaultctx index --full`` or a deleted index never touch it) and
outside the vault (sync tools never copy it). It holds what notes said, so the folder is 0700
and every file 0600::

    vaultctx-ledger.json     marker: format, version, the vault it belongs to
    lock                     serialises changes and undos across processes (agent, MCP server)
    records/<seq>-<id>.json  one record: label, time, who, and each path's before/after state
    blobs/<sha256>           file contents, once per distinct content

A folder without our marker that holds anything, a link, or a folder of another user is refused
and left as it is. Records are written after their blobs and pruned oldest first, and a blob is
deleted only when no remaining record refers to it, so a crash at any point leaves a ledger whose
every record can be read.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import secrets
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from filelock import FileLock, Timeout

from vaultctx.config import APP_NAME, default_db_path
from vaultctx.errors import VaultctxError
from vaultctx.ledger import snapshot
from vaultctx.ledger.snapshot import State
from vaultctx.vault.paths import UnsafePathError, normalize_vault_path
from vaultctx.vault.writes import digest

LEDGER_LIMIT = 20  # records kept; older ones are dropped with their contents
FOLDER_NAME = "ledger"
MARKER_NAME = "vaultctx-ledger.json"
FORMAT = "vaultctx-ledger"
VERSION = 1
LOCK_TIMEOUT_SECONDS = 30.0
_RECORD_NAME = re.compile(r"^(\d{8})-([0-9a-f]{8})\.json$")
_ID = re.compile(r"^[0-9a-f]{8}$")


class LedgerError(VaultctxError):
    """The ledger cannot be read or written; the message names the file and the fix."""


class NotALedgerError(LedgerError):
    """The ledger's folder holds something vaultctx did not create; it is left as it is."""


class RecordNotFoundError(LedgerError):
    """No record with that id."""


@dataclass(frozen=True)
class LedgerEntry:
    """One touched path (vault-relative) and its state before and after the change."""

    path: str
    before: State
    after: State


@dataclass(frozen=True)
class LedgerRecord:
    """One recorded change: who asked (``label``, ``source``, ``conversation_id``), when, and
    every path it touched, before and after."""

    id: str
    seq: int
    label: str
    created_at: float
    conversation_id: str | None
    source: str
    kind: str
    entries: tuple[LedgerEntry, ...]

    @property
    def paths(self) -> list[str]:
        return [entry.path for entry in self.entries]

    @property
    def time(self) -> str:
        """Local time, ISO 8601 with offset, to the second."""
        return dt.datetime.fromtimestamp(self.created_at).astimezone().isoformat(timespec="seconds")

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "time": self.time,
            "conversation_id": self.conversation_id,
            "source": self.source,
            "kind": self.kind,
            "paths": self.paths,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            **self.as_dict(),
            "seq": self.seq,
            "created_at": self.created_at,
            "entries": [
                {"path": e.path, "before": e.before.as_json(), "after": e.after.as_json()}
                for e in self.entries
            ],
        }


def ledger_folder(vault: Path) -> Path:
    """``<user data dir>/ledger/<vault name>-<digest of its resolved path>``."""
    name = default_db_path(vault).stem
    return Path(platformdirs.user_data_dir(APP_NAME)) / FOLDER_NAME / name


class LedgerStore:
    """The ledger of one vault. Change it only inside ``locked()``."""

    def __init__(self, folder: Path, vault: Path) -> None:
        self.folder = folder
        self.vault = str(Path(os.path.realpath(vault)))

    @property
    def _records(self) -> Path:
        return self.folder / "records"

    @property
    def _blobs(self) -> Path:
        return self.folder / "blobs"

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the ledger (and with it every recorded change to the vault) for this process."""
        self._prepare()
        lock = FileLock(str(self.folder / "lock"), mode=0o600)
        try:
            lock.acquire(timeout=LOCK_TIMEOUT_SECONDS)
        except Timeout as exc:
            raise LedgerError(
                f"another vaultctx process has held the change ledger {self.folder} for "
                f"{LOCK_TIMEOUT_SECONDS:.0f} s",
                "wait for it to finish its change and try again",
            ) from exc
        try:
            yield
        finally:
            lock.release()

    def _prepare(self) -> None:
        """Create the folder (0700) with its marker, or check that an existing one is ours."""
        try:
            if not self._is_ours():
                for folder in (self.folder.parent, self.folder):
                    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                if not self._is_ours():
                    _write_private(self.folder / MARKER_NAME, _marker(self.vault))
            for folder in (self._records, self._blobs):
                folder.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise LedgerError(
                f"cannot create the change ledger {self.folder} ({exc.strerror or exc})",
                f"make {self.folder.parent} writable for your user, or free some disk space",
            ) from exc

    def _is_ours(self) -> bool:
        """True for a ledger folder of ours; False when there is none yet (or it is empty);
        ``NotALedgerError`` for anything else."""
        try:
            info = os.lstat(self.folder)
        except FileNotFoundError:
            return False
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            raise self._foreign("is not a folder (a file or a symbolic link is there)")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise self._foreign(f"belongs to another user (uid {info.st_uid})")
        marker = self.folder / MARKER_NAME
        try:
            raw = json.loads(snapshot.read_no_follow(marker))
        except FileNotFoundError:
            if any(self.folder.iterdir()):
                raise self._foreign("holds files but no ledger marker") from None
            return False
        except (OSError, ValueError) as exc:
            raise self._foreign(f"has an unreadable marker {MARKER_NAME} ({exc})") from exc
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise self._foreign(f"has a {MARKER_NAME} that is not a vaultctx ledger's")
        if raw.get("version") != VERSION:
            raise LedgerError(
                f"the change ledger {self.folder} was written by another version of vaultctx",
                "use that version for `vaultctx undo`, or upgrade vaultctx",
            )
        return True

    def _foreign(self, what: str) -> NotALedgerError:
        return NotALedgerError(
            f"{self.folder} {what}, so it is not a vaultctx change ledger; vaultctx never "
            "overwrites or deletes what it did not create",
            f"move it out of {self.folder.parent} and try again",
        )

    def records(self) -> list[LedgerRecord]:
        """Every record, oldest first (empty when nothing was ever recorded)."""
        if not self._is_ours() or not self._records.is_dir():
            return []
        found = []
        for name in os.listdir(self._records):
            if _RECORD_NAME.match(name):
                found.append(self._read_record(self._records / name))
        return sorted(found, key=lambda record: record.seq)

    def newest(self) -> LedgerRecord | None:
        records = self.records()
        return records[-1] if records else None

    def get(self, record_id: str) -> LedgerRecord:
        for record in self.records():
            if record.id == record_id.strip().lower():
                return record
        raise RecordNotFoundError(
            f"no change {record_id!r} in the ledger of {self.vault}",
            "list the recorded changes with `vaultctx ledger`",
        )

    def blob(self, sha256: str) -> bytes:
        """The content with this digest, checked against it."""
        path = self._blobs / sha256
        try:
            data = snapshot.read_no_follow(path)
        except OSError as exc:
            raise LedgerError(
                f"the change ledger is missing the content {sha256[:12]}… ({exc.strerror or exc})",
                "this change cannot be undone or shown; delete its record with the ledger folder "
                f"{self.folder} if it keeps failing",
            ) from exc
        if digest(data) != sha256:
            raise LedgerError(
                f"the content {sha256[:12]}… in the change ledger is damaged",
                f"this change cannot be undone or shown; its files are in {self._blobs}",
            )
        return data

    def add(
        self,
        *,
        label: str,
        conversation_id: str | None,
        source: str,
        kind: str,
        entries: list[LedgerEntry],
        blobs: Mapping[str, bytes],
    ) -> LedgerRecord:
        """Store a record (its contents first), then prune to the newest ``LEDGER_LIMIT``."""
        existing = self.records()
        taken = {record.id for record in existing}
        record_id = secrets.token_hex(4)
        while record_id in taken:
            record_id = secrets.token_hex(4)
        record = LedgerRecord(
            id=record_id,
            seq=(existing[-1].seq + 1) if existing else 1,
            label=label,
            created_at=time.time(),
            conversation_id=conversation_id,
            source=source,
            kind=kind,
            entries=tuple(entries),
        )
        needed = set().union(
            *(snapshot.digests(e.before) | snapshot.digests(e.after) for e in entries)
        )
        for sha in sorted(needed):
            if not (self._blobs / sha).exists():
                _write_private(self._blobs / sha, blobs[sha])
        _write_private(
            self._records / f"{record.seq:08d}-{record.id}.json",
            json.dumps(record.as_json(), ensure_ascii=False).encode("utf-8"),
        )
        self._prune([*existing, record])
        return record

    def drop(self, record: LedgerRecord) -> None:
        """Delete a record (after its undo) and the contents no other record needs."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._records / f"{record.seq:08d}-{record.id}.json")
        self._collect_blobs([r for r in self.records() if r.id != record.id])

    def _prune(self, records: list[LedgerRecord]) -> None:
        keep = records[-LEDGER_LIMIT:]
        for old in records[:-LEDGER_LIMIT]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._records / f"{old.seq:08d}-{old.id}.json")
        if len(keep) < len(records):
            self._collect_blobs(keep)

    def _collect_blobs(self, keep: list[LedgerRecord]) -> None:
        needed: set[str] = set()
        for record in keep:
            for entry in record.entries:
                needed |= snapshot.digests(entry.before) | snapshot.digests(entry.after)
        for name in os.listdir(self._blobs):
            if name not in needed and len(name) == 64:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._blobs / name)

    def _read_record(self, path: Path) -> LedgerRecord:
        try:
            raw = json.loads(snapshot.read_no_follow(path))
            return _record_from_json(raw, path.name)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise LedgerError(
                f"the change record {path} is damaged ({exc})",
                "delete that file; the other records stay undoable",
            ) from exc


def _record_from_json(raw: Any, name: str) -> LedgerRecord:
    match = _RECORD_NAME.match(name)
    assert match is not None
    if not isinstance(raw, dict) or raw.get("id") != match.group(2):
        raise ValueError("the record's id does not match its file name")
    entries = []
    for entry in raw["entries"]:
        path = entry["path"]
        try:
            safe = normalize_vault_path(path)
        except UnsafePathError as exc:
            raise ValueError(f"unsafe path {path!r}") from exc
        if safe != path:
            raise ValueError(f"unsafe path {path!r}")
        entries.append(
            LedgerEntry(
                path, snapshot.from_json(entry["before"]), snapshot.from_json(entry["after"])
            )
        )
    conversation = raw.get("conversation_id")
    return LedgerRecord(
        id=raw["id"],
        seq=int(match.group(1)),
        label=str(raw["label"]),
        created_at=float(raw["created_at"]),
        conversation_id=str(conversation) if conversation is not None else None,
        source=str(raw["source"]),
        kind=str(raw["kind"]),
        entries=tuple(entries),
    )


def _marker(vault: str) -> bytes:
    return json.dumps({"format": FORMAT, "version": VERSION, "vault": vault}).encode("utf-8")


def _write_private(path: Path, data: bytes) -> None:
    """``path`` holding ``data``, mode 0600, atomically (staged in the same folder, renamed)."""
    fd, staging = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(staging, 0o600)
        os.replace(staging, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise


def is_record_id(text: str) -> bool:
    return bool(_ID.match(text.strip().lower()))
