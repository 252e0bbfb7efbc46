"""The conversation store: one SQLite file per vault, and every SQL statement about it.

Schema changes are append-only numbered migrations (``m001_…``), the number applied recorded in
``PRAGMA user_version``; a file from a newer vaultctx is refused, never migrated back. Each write
is one ``BEGIN IMMEDIATE`` transaction, so an answer is saved whole or not at all, and scrubbing
happens before the transaction starts (see scrubbing.py): nothing reaches the file unscrubbed.

Search uses three FTS5 tables kept current by triggers: ``message_words`` (``unicode61
remove_diacritics 2``: words, accents ignored), ``message_trigrams`` (``trigram``: substrings,
for Korean, Japanese and Chinese, see query.py) and ``title_words``. All three are external-content
tables: the text is stored once, in ``messages`` and ``conversations``.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import secrets
import time
from base64 import b32encode
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

import apsw

from vaultctx.conversations.location import (
    APPLICATION_ID,
    NotAConversationStoreError,
    StoreFileKind,
    StoreUnwritableError,
    classify_store_file,
    conversations_path,
    prepare_private_file,
)
from vaultctx.conversations.model import (
    ROLES,
    Conversation,
    ConversationHit,
    ConversationSummary,
    Message,
    ToolCall,
    utc_now,
)
from vaultctx.conversations.query import (
    MARK_END,
    MARK_START,
    plan_search,
    substring_snippet,
)
from vaultctx.conversations.scrubbing import scrub_message, scrub_text
from vaultctx.errors import VaultctxError

BUSY_TIMEOUT_MS = 5000
ID_LENGTH = 8
_ID_ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyz234567")
_SHOWN_MATCHES = 5

# The statements that write what the scrubber let through, named at module level: the mutation
# audit of stored conversations (bench/mutation.md) then varies the code around them, not the
# case of SQL keywords, which SQLite ignores.
_ID_TAKEN = "SELECT 1 FROM conversations WHERE id = ?"
_INSERT_CONVERSATION = (
    "INSERT INTO conversations(id, title, backend, model, created, updated) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_NEXT_SEQ = "SELECT COALESCE(MAX(seq), -1) + 1 FROM messages WHERE conversation_id = ?"
_INSERT_MESSAGE = (
    "INSERT INTO messages(conversation_id, seq, role, text, created, partial, "
    "attachments, tool_calls, citations, usage, model_messages_json) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_RENAME = "UPDATE conversations SET title = ? WHERE id = ?"
_TOUCH = "UPDATE conversations SET updated = ? WHERE id = ?"
_SNIPPET_TOKENS = 24

Migration = Callable[[apsw.Connection], None]


class UnknownConversationError(VaultctxError):
    """No conversation has this id (or an id starting with it)."""


class AmbiguousConversationError(VaultctxError):
    """More than one conversation's id starts with the prefix given."""


class StoreFromNewerVersionError(VaultctxError):
    """A newer vaultctx wrote this store; it is left as it is."""


def m001_create_tables(conn: apsw.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE conversations (
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            backend TEXT NOT NULL,
            model TEXT NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        );
        CREATE INDEX conversations_updated ON conversations(updated);
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
            text TEXT NOT NULL,
            created TEXT NOT NULL,
            partial INTEGER NOT NULL CHECK (partial IN (0, 1)),
            attachments TEXT NOT NULL,
            tool_calls TEXT NOT NULL,
            citations TEXT NOT NULL,
            usage TEXT NOT NULL,
            model_messages_json TEXT,
            UNIQUE (conversation_id, seq)
        );
        """
    )


def m002_search_tables(conn: apsw.Connection) -> None:
    conn.execute(
        """
        CREATE VIRTUAL TABLE message_words USING fts5(
            text, content='messages', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE VIRTUAL TABLE message_trigrams USING fts5(
            text, content='messages', content_rowid='id',
            tokenize='trigram remove_diacritics 1'
        );
        CREATE VIRTUAL TABLE title_words USING fts5(
            title, content='conversations', content_rowid='rowid',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER messages_indexed AFTER INSERT ON messages BEGIN
            INSERT INTO message_words(rowid, text) VALUES (new.id, new.text);
            INSERT INTO message_trigrams(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER messages_unindexed AFTER DELETE ON messages BEGIN
            INSERT INTO message_words(message_words, rowid, text)
                VALUES ('delete', old.id, old.text);
            INSERT INTO message_trigrams(message_trigrams, rowid, text)
                VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER titles_indexed AFTER INSERT ON conversations BEGIN
            INSERT INTO title_words(rowid, title) VALUES (new.rowid, new.title);
        END;
        CREATE TRIGGER titles_unindexed AFTER DELETE ON conversations BEGIN
            INSERT INTO title_words(title_words, rowid, title)
                VALUES ('delete', old.rowid, old.title);
        END;
        CREATE TRIGGER titles_reindexed AFTER UPDATE OF title ON conversations BEGIN
            INSERT INTO title_words(title_words, rowid, title)
                VALUES ('delete', old.rowid, old.title);
            INSERT INTO title_words(rowid, title) VALUES (new.rowid, new.title);
        END;
        """
    )


MIGRATIONS: tuple[Migration, ...] = (m001_create_tables, m002_search_tables)
SCHEMA_VERSION = len(MIGRATIONS)
_SEARCH_TABLES = ("message_words", "message_trigrams", "title_words")


class ConversationStore:
    """A vault's saved conversations: ``with ConversationStore.open(vault) as store: ...``.

    Ids are 8 lowercase base32 characters; every method taking one also takes a unique prefix.
    """

    def __init__(self, conn: apsw.Connection, path: Path | None, vault: Path) -> None:
        self._conn = conn
        self.path = path
        self.vault = vault

    @classmethod
    def open(cls, vault: Path, *, create: bool = True) -> ConversationStore:
        """The store of ``vault`` (its resolved path picks the file, see location.py).

        Without ``create`` a vault that has no store yet gets an empty one in memory, so reading
        commands never create a file. A file that is not provably ours raises
        ``NotAConversationStoreError`` and is left byte for byte as it was."""
        vault = vault.expanduser().resolve()
        path = conversations_path(vault)
        kind = classify_store_file(path)
        if kind is not StoreFileKind.OURS and not create:
            conn = apsw.Connection(":memory:")
            _migrate(conn, path, vault)
            return cls(conn, None, vault)
        prepare_private_file(path)
        with _reported(path):
            conn = apsw.Connection(
                str(path), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_NOFOLLOW
            )
            try:
                _while_busy(lambda: _configure(conn))
                _while_busy(lambda: _migrate(conn, path, vault))
            except BaseException:
                conn.close()
                raise
        return cls(conn, path, vault)

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def new(self, title: str, backend: str, model: str) -> Conversation:
        """Start a conversation (no messages yet) and return it."""
        now = _stamp(utc_now())
        clean_title = _one_line(scrub_text(title))
        with self._transaction():
            conversation_id = _new_id()
            while self._conn.execute(_ID_TAKEN, (conversation_id,)).fetchone():
                conversation_id = _new_id()
            self._conn.execute(
                _INSERT_CONVERSATION,
                (conversation_id, clean_title, scrub_text(backend), scrub_text(model), now, now),
            )
        return self.get(conversation_id)

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Add ``messages`` after the conversation's last one, all in one transaction: a crash
        or an error leaves none of them saved. Each is scrubbed before the transaction."""
        for message in messages:
            if message.role not in ROLES:
                raise ValueError(f"unknown message role {message.role!r}; use one of {ROLES}")
        rows = [(m, scrub_message(m), _stamp(m.created)) for m in messages]
        if not rows:
            return
        with self._transaction():
            full_id = self._resolve(conversation_id)
            next_seq = int(self._scalar(_NEXT_SEQ, (full_id,)))
            self._conn.executemany(
                _INSERT_MESSAGE,
                [
                    (
                        full_id,
                        next_seq + offset,
                        message.role,
                        scrubbed.text,
                        created,
                        int(message.partial),
                        scrubbed.attachments_json,
                        scrubbed.tool_calls_json,
                        scrubbed.citations_json,
                        scrubbed.usage_json,
                        scrubbed.model_messages_json,
                    )
                    for offset, (message, scrubbed, created) in enumerate(rows)
                ],
            )
            self._conn.execute(_TOUCH, (_stamp(utc_now()), full_id))

    def list(self, limit: int = 20, offset: int = 0) -> builtins.list[ConversationSummary]:
        """Conversations, the most recently updated first."""
        with _reported(self.path):
            rows: list[Any] = self._conn.execute(
                "SELECT c.id, c.title, c.created, c.updated, "
                "(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) "
                "FROM conversations c ORDER BY c.updated DESC, c.id LIMIT ? OFFSET ?",
                (max(0, limit), max(0, offset)),
            ).fetchall()
        return [
            ConversationSummary(str(i), str(t), _parse(c), _parse(u), int(n))
            for i, t, c, u, n in rows
        ]

    def count(self) -> int:
        with _reported(self.path):
            return int(self._scalar("SELECT COUNT(*) FROM conversations"))

    def search(self, query: str, limit: int = 20) -> builtins.list[ConversationHit]:
        """Conversations with a message (or a title) holding every word of ``query``, best
        first, one hit each. Input is searched as plain words: FTS5 syntax in it is text. An
        empty query raises ``EmptyQueryError``."""
        plan = plan_search(query)
        limit = max(0, limit)
        with _reported(self.path):
            if plan.words is not None:
                found = self._message_words(plan.words, limit)
                titles = self._title_words(plan.words, limit)
            else:
                found = self._message_substrings(plan.trigrams, plan.likes, plan.terms, limit)
                titles = self._title_substrings(plan.title_likes, plan.terms, limit)
        for hit in titles:
            known = found.get(hit.conversation_id)
            if known is None:
                found[hit.conversation_id] = hit
            elif hit.rank < known.rank:
                found[hit.conversation_id] = ConversationHit(
                    known.conversation_id, known.title, known.snippet, hit.rank
                )
        return sorted(found.values(), key=lambda hit: hit.rank)[:limit]

    def get(self, conversation_id: str) -> Conversation:
        """The conversation with its messages; ``UnknownConversationError`` when there is none."""
        with _reported(self.path):
            full_id = self._resolve(conversation_id)
            row = self._conn.execute(
                "SELECT id, title, created, updated, backend, model FROM conversations "
                "WHERE id = ?",
                (full_id,),
            ).fetchall()[0]
            messages = self._conn.execute(
                "SELECT role, text, created, partial, attachments, tool_calls, citations, usage, "
                "model_messages_json FROM messages WHERE conversation_id = ? ORDER BY seq",
                (full_id,),
            ).fetchall()
            vault = self._conn.execute("SELECT value FROM meta WHERE key = 'vault'").fetchall()
        return Conversation(
            id=str(row[0]),
            title=str(row[1]),
            created=_parse(row[2]),
            updated=_parse(row[3]),
            backend=str(row[4]),
            model=str(row[5]),
            vault=str(vault[0][0]) if vault else str(self.vault),
            messages=tuple(_message(values) for values in messages),
        )

    def rename(self, conversation_id: str, title: str) -> str:
        """Give the conversation a new title; returns its full id."""
        clean_title = _one_line(scrub_text(title))
        with self._transaction():
            full_id = self._resolve(conversation_id)
            self._conn.execute(_RENAME, (clean_title, full_id))
        return full_id

    def delete(self, conversation_id: str) -> str:
        """Delete the conversation and its messages for good; returns its full id.

        The search tables are merged and the WAL checkpointed afterwards, so its text does not
        linger in old index segments or log frames (``secure_delete`` zeroes the freed pages)."""
        with self._transaction():
            full_id = self._resolve(conversation_id)
            self._conn.execute("DELETE FROM messages WHERE conversation_id = ?", (full_id,))
            self._conn.execute("DELETE FROM conversations WHERE id = ?", (full_id,))
            for table in _SEARCH_TABLES:
                self._conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        with _reported(self.path), contextlib.suppress(apsw.BusyError):
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return full_id

    def resolve_id(self, conversation_id: str) -> str:
        """The full id of the one conversation whose id starts with ``conversation_id``."""
        with _reported(self.path):
            return self._resolve(conversation_id)

    def _resolve(self, prefix: str) -> str:
        wanted = prefix.strip().lower()
        if not wanted or not set(wanted) <= _ID_ALPHABET or len(wanted) > ID_LENGTH:
            raise self._unknown(prefix)
        rows = self._conn.execute(
            "SELECT id, title FROM conversations WHERE id GLOB ? ORDER BY id LIMIT ?",
            (wanted + "*", _SHOWN_MATCHES + 1),
        ).fetchall()
        if not rows:
            raise self._unknown(prefix)
        if len(rows) > 1:
            shown = ", ".join(f"{i} ({t or 'untitled'})" for i, t in rows[:_SHOWN_MATCHES])
            more = ", …" if len(rows) > _SHOWN_MATCHES else ""
            raise AmbiguousConversationError(
                f"the id prefix {prefix!r} matches several conversations: {shown}{more}",
                "give more characters of the id",
            )
        return str(rows[0][0])

    def _unknown(self, given: str) -> UnknownConversationError:
        return UnknownConversationError(
            f"no conversation with the id {given!r} in the store of {self.vault}",
            "run `vaultctx conversations list` to see the ids (each store belongs to one vault: "
            "check --vault)",
        )

    def _message_words(self, fts_query: str, limit: int) -> dict[str, ConversationHit]:
        """The best message of each conversation first, then snippets of those alone: a
        common word matches most messages, and a snippet costs far more than a rank."""
        # MATERIALIZED: flattened into the aggregate, bm25() would be called out of context.
        best = self._rows(
            "WITH t AS MATERIALIZED (SELECT rowid AS id, bm25(message_words) AS r "
            "FROM message_words WHERE message_words MATCH ?) "
            "SELECT m.conversation_id, c.title, m.id, MIN(t.r) AS best FROM t "
            "JOIN messages m ON m.id = t.id JOIN conversations c ON c.id = m.conversation_id "
            "GROUP BY m.conversation_id ORDER BY best, c.updated DESC LIMIT ?",
            (fts_query, limit),
        )
        snippets = self._by_id(
            f"SELECT rowid, snippet(message_words, 0, ?, ?, '…', {_SNIPPET_TOKENS}) "
            "FROM message_words WHERE message_words MATCH ? "
            "AND rowid IN (SELECT value FROM json_each(?))",
            (MARK_START, MARK_END, fts_query, json.dumps([row[2] for row in best])),
        )
        return {
            str(cid): ConversationHit(str(cid), str(title), _one_line(snippets[mid]), float(r))
            for cid, title, mid, r in best
        }

    def _title_words(self, fts_query: str, limit: int) -> builtins.list[ConversationHit]:
        rows: list[Any] = self._conn.execute(
            "SELECT c.id, c.title, highlight(title_words, 0, ?, ?), bm25(title_words) AS r "
            "FROM title_words JOIN conversations c ON c.rowid = title_words.rowid "
            "WHERE title_words MATCH ? ORDER BY r LIMIT ?",
            (MARK_START, MARK_END, fts_query, limit),
        ).fetchall()
        return [ConversationHit(str(i), str(t), str(h), float(r)) for i, t, h, r in rows]

    def _message_substrings(
        self,
        trigram_query: str | None,
        likes: tuple[str, ...],
        terms: tuple[str, ...],
        limit: int,
    ) -> dict[str, ConversationHit]:
        """As ``_message_words``, matching substrings: ranked by the trigram table when a word
        is long enough for it, else the most recent conversations first."""
        conditions = " AND ".join(["m.text LIKE ? ESCAPE '\\'"] * len(likes)) or "1"
        if trigram_query is not None:
            best = self._rows(
                "WITH t AS MATERIALIZED (SELECT rowid AS id, bm25(message_trigrams) AS r "
                "FROM message_trigrams WHERE message_trigrams MATCH ?) "
                "SELECT m.conversation_id, c.title, m.id, MIN(t.r) AS best FROM t "
                "JOIN messages m ON m.id = t.id JOIN conversations c ON c.id = m.conversation_id "
                f"WHERE {conditions} GROUP BY m.conversation_id "
                "ORDER BY best, c.updated DESC LIMIT ?",
                (trigram_query, *likes, limit),
            )
        else:  # no rank: the first matching message of the most recent conversations
            best = self._rows(
                "SELECT m.conversation_id, c.title, MIN(m.id), 0.0 FROM messages m "
                "JOIN conversations c ON c.id = m.conversation_id "
                f"WHERE {conditions} GROUP BY m.conversation_id ORDER BY c.updated DESC LIMIT ?",
                (*likes, limit),
            )
        texts = self._by_id(
            "SELECT id, text FROM messages WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps([row[2] for row in best]),),
        )
        return {
            str(cid): ConversationHit(
                str(cid), str(title), substring_snippet(texts[mid], terms), float(r)
            )
            for cid, title, mid, r in best
        }

    def _title_substrings(
        self, likes: tuple[str, ...], terms: tuple[str, ...], limit: int
    ) -> builtins.list[ConversationHit]:
        conditions = " AND ".join(["title LIKE ? ESCAPE '\\'"] * len(likes)) or "0"
        rows = self._conn.execute(
            f"SELECT id, title FROM conversations WHERE {conditions} ORDER BY updated DESC LIMIT ?",
            (*likes, limit),
        ).fetchall()
        return [
            ConversationHit(str(i), str(t), substring_snippet(str(t), terms), 0.0) for i, t in rows
        ]

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> builtins.list[Any]:
        return self._conn.execute(sql, params).fetchall()

    def _by_id(self, sql: str, params: tuple[Any, ...]) -> dict[int, str]:
        """``{id: text}`` from a query returning (id, text) rows."""
        return {int(i): str(t) for i, t in self._rows(sql, params)}

    def _scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """The first column of the first row, of a query that always returns one."""
        return self._conn.execute(sql, params).fetchall()[0][0]

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE``: a writer waits for the lock up front, not halfway through."""
        with _reported(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")


def _while_busy(step: Callable[[], None], seconds: float = BUSY_TIMEOUT_MS / 1000 * 6) -> None:
    """Run ``step`` again while another opener holds the lock. Switching a new file to WAL takes
    an exclusive lock that SQLite does not wait for (the busy timeout does not apply), so eight
    processes opening a new store at once would otherwise fail all but one."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            step()
            return
        except apsw.BusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _configure(conn: apsw.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # The stamp goes first, while a new file is still in rollback-journal mode, so it lands in
    # the main file's header (which is what location.py reads) and not only in the WAL.
    if int(_first(conn, "PRAGMA application_id")) != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("PRAGMA foreign_keys = ON")


def _first(conn: apsw.Connection, sql: str) -> Any:
    return conn.execute(sql).fetchall()[0][0]


def _migrate(conn: apsw.Connection, path: Path, vault: Path) -> None:
    """Bring the schema up to date, in one transaction that reads the version again under the
    write lock: two processes opening a new store at once (a chat, and ``conversations list``
    in another terminal) must not both run ``m001``."""
    if _current_version(conn, path) == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _current_version(conn, path)
        for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
            migration(conn)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('vault', ?)", (str(vault),))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _current_version(conn: apsw.Connection, path: Path) -> int:
    version = int(_first(conn, "PRAGMA user_version"))
    if version > SCHEMA_VERSION:
        raise StoreFromNewerVersionError(
            f"the conversation store {path} was written by a newer vaultctx (schema {version}, "
            f"this one knows {SCHEMA_VERSION})",
            "upgrade vaultctx (pip install -U vaultctx)",
        )
    return version


@contextlib.contextmanager
def _reported(path: Path | None) -> Iterator[None]:
    """SQLite's failures as errors that say what to do."""
    try:
        yield
    except apsw.BusyError as exc:
        raise VaultctxError(
            f"the conversation store {path} is locked by another vaultctx ({exc})",
            "wait for the other command to finish and try again",
        ) from exc
    except (apsw.CorruptError, apsw.NotADBError) as exc:
        raise NotAConversationStoreError(path or Path(":memory:"), f"is damaged ({exc})") from exc
    except (apsw.ReadOnlyError, apsw.CantOpenError, apsw.IOError, apsw.FullError) as exc:
        raise StoreUnwritableError(
            f"cannot write the conversation store {path} ({exc})",
            "make the file and its folder writable for your user, or free some disk space",
        ) from exc


def _new_id() -> str:
    return b32encode(secrets.token_bytes(5)).decode("ascii").lower()


def _stamp(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError(f"message time {moment} has no time zone; use datetime.now(timezone.utc)")
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _parse(value: Any) -> datetime:
    return datetime.fromisoformat(str(value))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _message(values: Sequence[Any]) -> Message:
    role, text, created, partial, attachments, tool_calls, citations, usage, raw = values
    return Message(
        role=role,
        text=str(text),
        created=_parse(created),
        partial=bool(partial),
        attachments=tuple(json.loads(attachments)),
        tool_calls=tuple(
            ToolCall(str(c["name"]), c.get("args") or {}, str(c.get("result_summary", "")))
            for c in json.loads(tool_calls)
        ),
        citations=tuple(json.loads(citations)),
        usage=json.loads(usage),
        model_messages_json=None if raw is None else str(raw),
    )
