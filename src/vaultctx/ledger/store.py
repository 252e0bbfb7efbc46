"""The AI change ledger on disk: every change made to one vault, kept by age, each undoable.

It lives in the per-user data dir, ``<data dir>/ledger/<vault name>-<digest>/``, named like the
vault's index but apart from it (``vaultctx index --full`` or a deleted index never touch it) and
outside the vault (sync tools never copy it). It holds what notes said, so the folder is 0700
and every file 0600::

    vaultctx-ledger.json        marker: format, version, the vault it belongs to
    lock                        serialises changes and undos across processes (agent, MCP server)
    records/<seq>-<id>.journal  a change in progress: written ahead of every step it makes
    records/<seq>-<id>.json     a finished record: label, time, who, each path's before/after
    blobs/<sha256>              file contents, once per distinct content

Write-ahead: a change opens its journal and appends each step (the states of the paths it will
touch, before and after, with their contents in ``blobs/`` first), fsynced, before it makes the
step, so a change that cannot be recorded is not made, and a process killed at any point leaves
a journal that names every change on disk. A finished change becomes one ``.json`` (staged,
fsynced, renamed, folder fsynced) and its journal is removed; a journal left without its
``.json`` is an *interrupted* record, listed and undone like any other (``undo.py`` accepts the
last step's paths as made or not made).

Retention is by age, not count: a record younger than ``keep_days`` (7 by default) is never
dropped. Older records are dropped oldest first while more than ``OLD_RECORDS_KEPT`` of them are
kept or the ledger's contents exceed ``max_bytes`` (500 MB by default; a change is told when that
cap drops records, or is exceeded by young records that are kept anyway). A blob is deleted only
when no remaining record refers to it.

One record that cannot be read (damaged, or written by a newer vaultctx) is listed as unreadable,
with why, and never stops the others from being listed, undone or added.

A folder without our marker that holds anything, a link, or a folder of another user is refused
and left as it is.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from filelock import FileLock, Timeout

from vaultctx.config import APP_NAME, default_db_path
from vaultctx.errors import VaultctxError
from vaultctx.ledger import codec, snapshot
from vaultctx.ledger.snapshot import State
from vaultctx.vault.durable import replace_with_staged, sync_folder
from vaultctx.vault.writes import digest

KEEP_DAYS = 7  # a record younger than this is never dropped
MAX_BYTES = 500_000_000  # contents kept for records older than KEEP_DAYS
OLD_RECORDS_KEPT = 20  # records older than KEEP_DAYS kept while under MAX_BYTES
FOLDER_NAME = "ledger"
MARKER_NAME = "vaultctx-ledger.json"
FORMAT = "vaultctx-ledger"
VERSION = 2  # 2: names percent-encoded, write-ahead journals; 1: raw names, records only
READABLE_VERSIONS = (1, 2)
LOCK_TIMEOUT_SECONDS = 30.0
_RECORD_NAME = re.compile(r"^(\d{8})-([0-9a-f]{8})\.(json|journal)$")
_ID = re.compile(r"^[0-9a-f]{8}$")
_DAY = 86_400.0


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
    every path it touched, before and after.

    ``interrupted``: the process making it was stopped (killed, a closed terminal) before it
    finished; ``last_before`` then holds the state of each path of its last journalled step
    before that step, which may or may not have been made."""

    id: str
    seq: int
    label: str
    created_at: float
    conversation_id: str | None
    source: str
    kind: str
    entries: tuple[LedgerEntry, ...]
    interrupted: bool = False
    last_before: tuple[tuple[str, State], ...] = ()

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
            "interrupted": self.interrupted,
        }

    def as_json(self) -> dict[str, Any]:
        """The record as format ``VERSION`` stores it."""
        return {
            "version": VERSION,
            "id": self.id,
            "label": self.label,
            "conversation_id": self.conversation_id,
            "source": self.source,
            "kind": self.kind,
            "seq": self.seq,
            "created_at": self.created_at,
            "entries": [_entry_json(e.path, e.before, e.after) for e in self.entries],
        }


@dataclass(frozen=True)
class UnreadableRecord:
    """A record file that could not be read back, and why; it blocks no other record."""

    id: str
    seq: int
    file: Path
    why: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "file": str(self.file), "unreadable": self.why}


@dataclass
class _Step:
    number: int
    roots: list[tuple[str, State, State]]


@dataclass
class Journal:
    """A change in progress: its header, and each step appended (fsynced) before it is made.
    Create with ``LedgerStore.begin``; close with ``LedgerStore.finish``."""

    store: LedgerStore
    id: str
    seq: int
    header: dict[str, Any]
    steps: list[_Step] = field(default_factory=list)
    _handle: int | None = None
    _next: int = 1

    @property
    def path(self) -> Path:
        return self.store.record_file(self.seq, self.id, "journal")

    def step(self, roots: Sequence[tuple[str, State, State]], blobs: Mapping[str, bytes]) -> int:
        """Journal a step: every root's state before and after it (contents stored first).
        Returns the step's number; raises ``LedgerError`` (and nothing is to be made) when the
        journal cannot be written."""
        number = self._next
        self._next += 1
        needed: set[str] = set()
        for _, before, after in roots:
            needed |= snapshot.digests(before) | snapshot.digests(after)
        line = {"step": number, "roots": [_entry_json(*root) for root in roots]}
        try:
            self.store.write_blobs(needed, blobs)
            self._append(line)
        except OSError as exc:
            raise self.store.cannot_write(exc) from exc
        self.steps.append(_Step(number, list(roots)))
        return number

    def cancel(self, number: int) -> None:
        """The step was refused before it touched anything (a file changed meanwhile)."""
        self.steps = [step for step in self.steps if step.number != number]
        with contextlib.suppress(OSError):
            self._append({"cancel": number})

    def _append(self, line: dict[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=True) + "\n").encode("ascii")
        if self._handle is None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | _NO_FOLLOW
            self._handle = os.open(self.path, flags, 0o600)
            data = (json.dumps(self.header, ensure_ascii=True) + "\n").encode("ascii") + data
            _write_all(self._handle, data)
            os.fsync(self._handle)
            sync_folder(self.path.parent)
            return
        _write_all(self._handle, data)
        os.fsync(self._handle)

    def close(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                os.close(self._handle)
            self._handle = None


def fold(steps: Sequence[_Step]) -> tuple[list[LedgerEntry], list[tuple[str, State]]]:
    """The steps as one record: each root's state before its first step and after its last;
    and the state of the last step's roots before it."""
    first: dict[str, State] = {}
    last: dict[str, State] = {}
    for step in steps:
        for root, before, after in step.roots:
            first.setdefault(root, before)
            last[root] = after
    entries = [LedgerEntry(root, first[root], last[root]) for root in first]
    tail = [(root, before) for root, before, _ in steps[-1].roots] if steps else []
    return entries, tail


def ledger_folder(vault: Path) -> Path:
    """``<user data dir>/ledger/<vault name>-<digest of its resolved path>``."""
    name = default_db_path(vault).stem
    return Path(platformdirs.user_data_dir(APP_NAME)) / FOLDER_NAME / name


class LedgerStore:
    """The ledger of one vault. Change it only inside ``locked()``."""

    def __init__(
        self,
        folder: Path,
        vault: Path,
        *,
        keep_days: float = KEEP_DAYS,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.folder = folder
        self.vault = str(Path(os.path.realpath(vault)))
        self.keep_days = keep_days
        self.max_bytes = max_bytes
        # Finished records never change once written: parsed ones are kept by (name, mtime,
        # size), so the scan after every change reads only what is new.
        self._parsed: dict[str, tuple[int, int, LedgerRecord]] = {}

    @property
    def _records(self) -> Path:
        return self.folder / "records"

    @property
    def _blobs(self) -> Path:
        return self.folder / "blobs"

    def record_file(self, seq: int, record_id: str, suffix: str) -> Path:
        return self._records / f"{seq:08d}-{record_id}.{suffix}"

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

    def busy(self) -> bool:
        """Whether another process holds the ledger now: its newest journal is then a change
        in progress, not an interrupted one."""
        if self._is_ours() is None:
            return False
        lock = FileLock(str(self.folder / "lock"), mode=0o600)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return True
        lock.release()
        return False

    def _prepare(self) -> None:
        """Create the folder (0700) with its marker, or check that an existing one is ours (a
        format 1 marker is rewritten as ``VERSION``: its records stay readable)."""
        try:
            version = self._is_ours()
            if version is None:
                for folder in (self.folder.parent, self.folder):
                    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                version = self._is_ours()
            if version != VERSION:
                _write_private(self.folder / MARKER_NAME, _marker(self.vault))
            for folder in (self._records, self._blobs):
                folder.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise LedgerError(
                f"cannot create the change ledger {self.folder} ({exc.strerror or exc})",
                f"make {self.folder.parent} writable for your user, or free some disk space",
            ) from exc

    def _is_ours(self) -> int | None:
        """The format version of our ledger folder; None when there is none yet (or it is
        empty); ``NotALedgerError`` for anything else."""
        try:
            info = os.lstat(self.folder)
        except FileNotFoundError:
            return None
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
            return None
        except (OSError, ValueError) as exc:
            raise self._foreign(f"has an unreadable marker {MARKER_NAME} ({exc})") from exc
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise self._foreign(f"has a {MARKER_NAME} that is not a vaultctx ledger's")
        version = raw.get("version")
        if version not in READABLE_VERSIONS:
            raise LedgerError(
                f"the change ledger {self.folder} was written by a newer version of vaultctx "
                f"(format {version!r})",
                "use that version for `vaultctx undo`, or upgrade vaultctx",
            )
        assert isinstance(version, int)
        return version

    def _foreign(self, what: str) -> NotALedgerError:
        return NotALedgerError(
            f"{self.folder} {what}, so it is not a vaultctx change ledger; vaultctx never "
            "overwrites or deletes what it did not create",
            f"move it out of {self.folder.parent} and try again",
        )

    def cannot_write(self, exc: OSError) -> LedgerError:
        return LedgerError(
            f"cannot write to the change ledger {self.folder} ({exc.strerror or exc}), so "
            "nothing was changed: vaultctx makes no change it cannot record first",
            "free some disk space, or make the ledger folder writable, and try again",
        )

    # -- reading ------------------------------------------------------------------------------

    def scan(self) -> tuple[list[LedgerRecord], list[UnreadableRecord]]:
        """Every record that reads back (finished and interrupted), oldest first, and every
        one that does not, with why."""
        if self._is_ours() is None or not self._records.is_dir():
            return [], []
        names: dict[tuple[int, str], set[str]] = {}
        for name in os.listdir(self._records):
            match = _RECORD_NAME.match(name)
            if match:
                key = (int(match.group(1)), match.group(2))
                names.setdefault(key, set()).add(match.group(3))
        records: list[LedgerRecord] = []
        unreadable: list[UnreadableRecord] = []
        for (seq, record_id), kinds in sorted(names.items()):
            suffix = "json" if "json" in kinds else "journal"
            path = self.record_file(seq, record_id, suffix)
            try:
                record = (
                    self._read_record_cached(path, seq, record_id)
                    if suffix == "json"
                    else self._read_journal(path, seq, record_id)
                )
            except (OSError, ValueError, KeyError, TypeError) as exc:
                unreadable.append(UnreadableRecord(record_id, seq, path, str(exc)))
                continue
            if record is not None:
                records.append(record)
        return records, unreadable

    def records(self) -> list[LedgerRecord]:
        """Every readable record, oldest first (empty when nothing was ever recorded)."""
        return self.scan()[0]

    def unreadable(self) -> list[UnreadableRecord]:
        return self.scan()[1]

    def newest(self) -> LedgerRecord | None:
        records = self.records()
        return records[-1] if records else None

    def get(self, record_id: str) -> LedgerRecord:
        wanted = record_id.strip().lower()
        records, unreadable = self.scan()
        for record in records:
            if record.id == wanted:
                return record
        for bad in unreadable:
            if bad.id == wanted:
                raise LedgerError(
                    f"the change record {bad.file} cannot be read ({bad.why})",
                    f"discard it with `vaultctx ledger drop {bad.id}`; the other records stay "
                    "undoable",
                )
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
                "this change cannot be undone or shown; discard its record with "
                "`vaultctx ledger drop ID`",
            ) from exc
        if digest(data) != sha256:
            raise LedgerError(
                f"the content {sha256[:12]}… in the change ledger is damaged",
                f"this change cannot be undone or shown; its files are in {self._blobs}",
            )
        return data

    def _read_record_cached(self, path: Path, seq: int, record_id: str) -> LedgerRecord:
        info = os.lstat(path)
        known = self._parsed.get(path.name)
        if known and known[:2] == (info.st_mtime_ns, info.st_size):
            return known[2]
        record = self._read_record(path, seq, record_id)
        self._parsed[path.name] = (info.st_mtime_ns, info.st_size, record)
        return record

    def _read_record(self, path: Path, seq: int, record_id: str) -> LedgerRecord:
        raw = json.loads(snapshot.read_no_follow(path))
        if not isinstance(raw, dict) or raw.get("id") != record_id:
            raise ValueError("the record's id does not match its file name")
        version = _version(raw)
        entries = [_entry_from_json(entry, version) for entry in raw["entries"]]
        return _record(raw, seq, entries)

    def _read_journal(self, path: Path, seq: int, record_id: str) -> LedgerRecord | None:
        """An interrupted change: its header and every complete step (a torn last line was
        never acted on: the step is written before it is made). None when no step was
        journalled, so nothing was changed."""
        lines = snapshot.read_no_follow(path).split(b"\n")[:-1]  # the last piece is torn or ""
        if not lines:
            return None
        header = json.loads(lines[0])
        if not isinstance(header, dict) or header.get("id") != record_id:
            raise ValueError("the journal's id does not match its file name")
        version = _version(header)
        steps: list[_Step] = []
        for raw_line in lines[1:]:
            line = json.loads(raw_line)
            if not isinstance(line, dict):
                raise ValueError("a journal line must be an object")
            if "cancel" in line:
                steps = [step for step in steps if step.number != line["cancel"]]
                continue
            roots = []
            for entry in line["roots"]:
                parsed = _entry_from_json(entry, version)
                roots.append((parsed.path, parsed.before, parsed.after))
            steps.append(_Step(int(line["step"]), roots))
        if not steps:
            return None
        entries, tail = fold(steps)
        changed = [entry for entry in entries if entry.before != entry.after]
        return _record(header, seq, changed, interrupted=True, last_before=tuple(tail))

    # -- writing (inside ``locked()``) --------------------------------------------------------

    def begin(self, *, label: str, conversation_id: str | None, source: str, kind: str) -> Journal:
        """A new record's journal; nothing is written until its first step."""
        taken_seq, taken_ids = 0, set()
        if self._records.is_dir():
            for name in os.listdir(self._records):
                match = _RECORD_NAME.match(name)
                if match:
                    taken_seq = max(taken_seq, int(match.group(1)))
                    taken_ids.add(match.group(2))
        record_id = secrets.token_hex(4)
        while record_id in taken_ids:
            record_id = secrets.token_hex(4)
        header = {
            "version": VERSION,
            "id": record_id,
            "label": label,
            "conversation_id": conversation_id,
            "source": source,
            "kind": kind,
            "created_at": time.time(),
        }
        return Journal(self, record_id, taken_seq + 1, header)

    def finish(self, journal: Journal) -> tuple[LedgerRecord | None, list[str]]:
        """Close the journal as a finished record (None when nothing changed), then drop what
        retention lets go. Returns the record and notices for the user."""
        journal.close()
        entries, _ = fold(journal.steps)
        changed = [entry for entry in entries if entry.before != entry.after]
        if not changed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(journal.path)
            return None, []
        record = _record(journal.header, journal.seq, changed)
        try:
            _write_private(
                self.record_file(record.seq, record.id, "json"),
                json.dumps(record.as_json(), ensure_ascii=True).encode("ascii"),
            )
        except OSError as exc:  # the journal stays: the change is listed as interrupted
            raise self.cannot_write(exc) from exc
        with contextlib.suppress(FileNotFoundError):
            os.unlink(journal.path)
        return record, self._prune()

    def write_blobs(self, needed: set[str], blobs: Mapping[str, bytes]) -> None:
        """Every needed content in ``blobs/`` (fsynced, renamed, the folder fsynced)."""
        wrote = False
        for sha in sorted(needed):
            if not os.path.lexists(self._blobs / sha):
                _write_private(self._blobs / sha, blobs[sha], sync=False)
                wrote = True
        if wrote:
            sync_folder(self._blobs)

    def drop(self, record: LedgerRecord | UnreadableRecord) -> None:
        """Delete a record (after its undo, or on ``vaultctx ledger drop``) and the contents no
        other record needs."""
        for suffix in ("json", "journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.record_file(record.seq, record.id, suffix))
        sync_folder(self._records)
        self._collect_blobs(self.records())

    def _prune(self) -> list[str]:
        """Retention (see the module's docstring); returns the notices for the user."""
        records, _ = self.scan()
        self._remove_stale_journals()
        cutoff = time.time() - self.keep_days * _DAY
        old = [record for record in records if record.created_at < cutoff]
        kept = list(records)
        for_size = 0
        while old and (len(old) > OLD_RECORDS_KEPT or _stored_bytes(kept) > self.max_bytes):
            if len(old) <= OLD_RECORDS_KEPT:
                for_size += 1
            victim = old.pop(0)
            kept.remove(victim)
            for suffix in ("json", "journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.record_file(victim.seq, victim.id, suffix))
        if len(kept) < len(records):
            self._collect_blobs(kept)
        notices = []
        cap = f"{self.max_bytes / 1e6:,.0f} MB"
        if for_size:
            notices.append(
                f"the change ledger dropped its {for_size} oldest change(s), older than "
                f"{self.keep_days:g} days, to stay under its cap of {cap} (`ledger_max_mb`)"
            )
        total = _stored_bytes(kept)
        if total > self.max_bytes:
            notices.append(
                f"the change ledger holds {total / 1e6:,.0f} MB, over its cap of {cap}; the "
                f"changes of the last {self.keep_days:g} days are kept anyway (discard one with "
                "`vaultctx ledger drop ID`, or raise `ledger_max_mb`)"
            )
        return notices

    def _remove_stale_journals(self) -> None:
        """A journal beside its finished record (the process stopped between the two), or one
        that never got a step, names no change of its own."""
        for name in os.listdir(self._records):
            match = _RECORD_NAME.match(name)
            if not match or match.group(3) != "journal":
                continue
            seq, record_id = int(match.group(1)), match.group(2)
            path = self._records / name
            stale = self.record_file(seq, record_id, "json").exists()
            if not stale:
                with contextlib.suppress(OSError, ValueError):
                    stale = self._read_journal(path, seq, record_id) is None
            if stale:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)

    def _collect_blobs(self, keep: list[LedgerRecord]) -> None:
        needed = _digests(keep)
        for name in os.listdir(self._blobs):
            if name not in needed and len(name) == 64:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._blobs / name)


def _digests(records: list[LedgerRecord]) -> set[str]:
    needed: set[str] = set()
    for record in records:
        for entry in record.entries:
            needed |= snapshot.digests(entry.before) | snapshot.digests(entry.after)
        for _, state in record.last_before:
            needed |= snapshot.digests(state)
    return needed


def _stored_bytes(records: list[LedgerRecord]) -> int:
    sizes: dict[str, int] = {}
    for record in records:
        for entry in record.entries:
            for state in (entry.before, entry.after):
                for _, item in snapshot.files_in(state, ""):
                    if isinstance(item, snapshot.FileState):
                        sizes[item.sha256] = item.size
    return sum(sizes.values())


def _version(raw: dict[str, Any]) -> int:
    version = raw.get("version", 1)  # format 1 records carry no version
    if version not in READABLE_VERSIONS:
        raise ValueError(f"written by a newer vaultctx (format {version!r})")
    assert isinstance(version, int)
    return version


def _entry_json(path: str, before: State, after: State) -> dict[str, Any]:
    return {
        "path": codec.encode_path(path),
        "before": codec.state_to_json(before),
        "after": codec.state_to_json(after),
    }


def _entry_from_json(raw: Any, version: int) -> LedgerEntry:
    if not isinstance(raw, dict):
        raise ValueError("an entry must be an object")
    path = codec.decode_path(raw["path"], version)
    before = codec.state_from_json(raw["before"], version)
    return LedgerEntry(path, before, codec.state_from_json(raw["after"], version))


def _record(
    raw: dict[str, Any],
    seq: int,
    entries: list[LedgerEntry],
    *,
    interrupted: bool = False,
    last_before: tuple[tuple[str, State], ...] = (),
) -> LedgerRecord:
    conversation = raw.get("conversation_id")
    return LedgerRecord(
        id=str(raw["id"]),
        seq=seq,
        label=str(raw["label"]),
        created_at=float(raw["created_at"]),
        conversation_id=str(conversation) if conversation is not None else None,
        source=str(raw["source"]),
        kind=str(raw["kind"]),
        entries=tuple(entries),
        interrupted=interrupted,
        last_before=last_before,
    )


def _marker(vault: str) -> bytes:
    return json.dumps({"format": FORMAT, "version": VERSION, "vault": vault}).encode("utf-8")


_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_private(path: Path, data: bytes, *, sync: bool = True) -> None:
    """``path`` holding ``data``, mode 0600, atomically: staged in the same folder, fsynced,
    renamed, and (``sync``) the folder fsynced so the rename itself survives a power cut."""
    replace_with_staged(path, data, 0o600, prefix=".", suffix=".tmp")
    if sync:
        sync_folder(path.parent)


def is_record_id(text: str) -> bool:
    return bool(_ID.match(text.strip().lower()))
