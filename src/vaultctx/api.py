"""The public Python API: ``Vault`` is the one object every integration goes through.

The CLI, MCP server, hooks and (later) the agent and web UI are thin shells over these methods, so a
behaviour is written once. Heavy imports (numpy, models, SQLite) happen on first use, not at import,
because hooks run on every prompt and must start fast.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultctx.config import Config, ConfigError, default_db_path, load_config
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import Change, ChangeContext

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from vaultctx.capture import CaptureResult
    from vaultctx.citations import CitationReport
    from vaultctx.context_blocks import BlockResult
    from vaultctx.embed.base import Embedder
    from vaultctx.index.db import IndexDatabase
    from vaultctx.index.doctor import DoctorReport
    from vaultctx.index.indexer import Indexer, IndexReport, ProgressSink
    from vaultctx.index.status import IndexStatus
    from vaultctx.index.watch import VaultWatcher, WatchEvent
    from vaultctx.ledger.batch import ChangeBatch
    from vaultctx.ledger.changes import NoteChanger
    from vaultctx.ledger.diff import FileDiff
    from vaultctx.ledger.store import LedgerRecord, LedgerStore, UnreadableRecord
    from vaultctx.ledger.undo import UndoReport
    from vaultctx.notes import NoteList, NoteText
    from vaultctx.search.context import ContextBlock
    from vaultctx.search.filters import Filters
    from vaultctx.search.graph import LinkGraph, NoteLinks, ResolvedLink
    from vaultctx.search.request import SearchRequest
    from vaultctx.search.retriever import Retriever, SearchResponse
    from vaultctx.search.vector_sources import IndexRetriever


# What a context block asks for unless told otherwise: fewer, longer passages than a search.
CONTEXT_DEFAULTS: dict[str, Any] = {"limit": 8, "max_tokens": 2000}


def _as_request(request: SearchRequest | str, options: dict[str, Any]) -> SearchRequest:
    """``request`` itself, or the request a query string and keyword options spell out."""
    from vaultctx.search.request import SearchRequest

    if isinstance(request, SearchRequest):
        if options:
            raise TypeError("pass options inside the SearchRequest, or a query string with them")
        return request
    return SearchRequest(request, **options)


def _create_engine(name: str, setting: str) -> Embedder:
    from vaultctx.embed.registry import UnknownEngineError, create_embedder

    try:
        return create_embedder(name)
    except UnknownEngineError as exc:
        raise ConfigError(f"{setting} in vaultctx.toml: {exc.message}", exc.suggestion) from exc


class Vault:
    """A vault of notes and its index: ``Vault("~/notes").index()``, then ``.status()``."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        db: str | IndexLocation | None = None,
        config: Config | None = None,
    ) -> None:
        self.config = config or load_config(path, db)
        self._embedder: Embedder | None = None
        self._quality_embedder: Embedder | None = None
        self._multilingual_embedder: Embedder | None = None
        self._multilingual_checked = False
        self._retrievers: IndexRetriever | None = None
        self._changer: NoteChanger | None = None
        # The handle whose models this one uses (``reader``); None: its own.
        self._models_from: Vault | None = None
        # Set by a caller that can ask a running server (``vaultctx ask``): it answers a search
        # there, or returns None and the search runs here.
        self.search_elsewhere: Callable[[SearchRequest], SearchResponse | None] | None = None

    @property
    def path(self) -> Path:
        return self.config.vault

    @property
    def db_path(self) -> IndexLocation:
        return self.config.db

    def embedder(self) -> Embedder:
        """The pass-1 engine (``engine`` in vaultctx.toml; the bundled static model by default),
        loaded once per ``Vault`` (and its readers)."""
        if self._models_from is not None:
            return self._models_from.embedder()
        if self._embedder is None:
            self._embedder = _create_engine(self.config.settings.engine, "engine")
        return self._embedder

    def indexer(self, *, progress: ProgressSink | None = None) -> Indexer:
        from vaultctx.index.indexer import Indexer

        return Indexer(
            self.config,
            self.embedder(),
            quality_embedder=self.quality_embedder(),
            multilingual_embedder=self.multilingual_embedder,
            progress=progress,
        )

    def index(
        self, *, full: bool = False, fast: bool = False, progress: ProgressSink | None = None
    ) -> IndexReport:
        """Bring the index up to date: pass 1 (searchable), then pass 2 unless ``fast``."""
        return self.indexer(progress=progress).run(full=full, fast=fast)

    def quality_embedder(self) -> Embedder | None:
        """The pass-2 engine (``quality_engine``; the bundled transformer by default); None when
        it is switched off (``quality_engine = ""``) or its runtime is not installed."""
        if self._models_from is not None:
            return self._models_from.quality_embedder()
        name = self.config.settings.quality_engine
        if self._quality_embedder is None and name:
            try:
                self._quality_embedder = _create_engine(name, "quality_engine")
            except ImportError:
                return None
        return self._quality_embedder

    def multilingual_embedder(self) -> Embedder | None:
        """The engine for notes and questions the English models cannot read
        (``multilingual_engine``; "auto": the best one installed); None when there is none."""
        if self._models_from is not None:
            return self._models_from.multilingual_embedder()
        if not self._multilingual_checked:
            from vaultctx.embed.registry import UnknownEngineError, create_multilingual_embedder

            self._multilingual_checked = True
            name = self.config.settings.multilingual_engine
            try:
                self._multilingual_embedder = create_multilingual_embedder(name)
            except ImportError:
                return None
            except UnknownEngineError as exc:
                raise ConfigError(
                    f"multilingual_engine in vaultctx.toml: {exc.message}", exc.suggestion
                ) from exc
        return self._multilingual_embedder

    def reader(self) -> Vault:
        """Another handle on this index for a thread of its own (a server answering several
        searches at once): its own connection, as SQLite's WAL and PostgreSQL let readers run
        side by side, and this handle's models, loaded once and safe to call from threads."""
        twin = Vault(config=self.config)
        twin._models_from = self._models_from or self
        return twin

    def retriever(self, *, vectors: bool = True) -> Retriever:
        """A read-only retriever, opened once and reused so models stay warm between queries;
        its vector sources come with ``vectors`` (search/vector_sources.py says which)."""
        if self._retrievers is None:
            from vaultctx.search.vector_sources import IndexRetriever

            self._retrievers = IndexRetriever(
                self.config.db,
                static=self.embedder,
                quality=self.quality_embedder,
                multilingual=self.multilingual_embedder,
            )
        return self._retrievers.get(vectors=vectors)

    def index_command(self, *, full: bool = False) -> str:
        """The command that (re)builds this very index, for advice a user copies: with ``--db``
        whenever the index is not the vault's default, or following it would build another."""
        words = ["vaultctx", "index", *(["--full"] if full else []), "--vault"]
        words.append(shlex.quote(str(self.path)))
        if isinstance(self.db_path, PostgresLocation):
            # The URL as given (``--db`` refuses one with a password); none when it came from
            # the user's own settings file, which the command reads again.
            if self.db_path.config_file is None:
                from vaultctx.index.postgres.connect import command_line_url

                words += ["--db", shlex.quote(command_line_url(self.db_path.url))]
        elif self.db_path != default_db_path(self.path):
            words += ["--db", shlex.quote(str(self.db_path))]
        return " ".join(words)

    @contextlib.contextmanager
    def _naming_this_index(self) -> Iterator[None]:
        """Index errors from below advise ``vaultctx index --vault <your vault>``: name this
        vault's own command instead, with ``--db`` when the index is not the default one."""
        try:
            yield
        except VaultctxError as exc:
            from vaultctx.index.database import IndexUnreachableError
            from vaultctx.index.db import IndexMissingError, IndexNeedsRebuildError

            if isinstance(exc, IndexUnreachableError):
                self.close()  # the server went away: the next call connects afresh
            if isinstance(exc, IndexMissingError):
                raise type(exc)(exc.message, f"run `{self.index_command()}`") from exc
            if isinstance(exc, IndexNeedsRebuildError):
                self.close()  # the rebuilt index is a new file: the next call opens it
                raise type(exc)(exc.message, self._rebuild_advice()) from exc
            raise
        except Exception as exc:
            from vaultctx.index.db import DAMAGE_ERRORS, damaged_index_error

            if not isinstance(exc, DAMAGE_ERRORS):
                raise
            # A damaged page is met by whichever read reaches it first, long after the open.
            self.close()
            damaged = damaged_index_error(self.db_path, exc)
            raise type(damaged)(damaged.message, self._rebuild_advice()) from exc

    def reporting_index_damage(self) -> contextlib.AbstractContextManager[None]:
        """For integrations that run their own code against this vault (the MCP server's tools):
        a damaged page met inside becomes ``IndexNeedsRebuildError`` naming this vault's rebuild
        command, and index errors from below name it too."""
        return self._naming_this_index()

    def _rebuild_advice(self) -> str:
        kept = (
            "its keyword statistics are rebuilt from every chunk"
            if isinstance(self.db_path, PostgresLocation)
            else "the damaged file is kept aside, not deleted"
        )
        return f"run `{self.index_command(full=True)}` (the vault is the source of truth; {kept})"

    def close(self) -> None:
        if self._retrievers is not None:
            self._retrievers.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def search(self, request: SearchRequest | str, **options: Any) -> SearchResponse:
        """The passages that answer ``request`` best: scrubbed, within its token budget.

        ``request`` says what to look for and how (``SearchRequest``: limit, token budget, mode,
        fusion, weights, one result per note, filters, graph); a string is shorthand for
        ``SearchRequest(query, **options)``. With ``graph`` each result says why it is there and
        maps of content linking to the results come back as ``related_mocs``.
        """
        from vaultctx.search.ignored_results import search_without_ignored

        request = _as_request(request, options)
        if self.search_elsewhere is not None:
            answered = self.search_elsewhere(request)
            if answered is not None:
                return search_without_ignored(answered, self._ignored_now())
        with self._naming_this_index():
            retriever = self.retriever(vectors=request.mode != "bm25")
            return search_without_ignored(retriever.search(request), self._ignored_now())

    def _ignored_now(self) -> Callable[[str], bool]:
        """The ignore rules of this moment: what the index holds may predate a new rule."""
        from vaultctx.search.ignored_results import ignored_now

        return ignored_now(self.config.vault, self.config.settings.ignore)

    def context(self, request: SearchRequest | str, **options: Any) -> ContextBlock:
        """The best passages about the request's query as one markdown block with sources.

        The whole block, headings and sources included, fits ``request.max_tokens``. A string is
        shorthand for ``SearchRequest(topic, limit=8, max_tokens=2000, **options)``.
        """
        from vaultctx.search.context import fitted_block, passage_budget

        if isinstance(request, str):
            options = {**CONTEXT_DEFAULTS, **options}
        request = _as_request(request, options)
        passages = passage_budget(request.max_tokens, request.limit)
        response = self.search(replace(request, max_tokens=passages))
        return fitted_block(
            request.query, response.results, response.related_mocs, request.max_tokens
        )

    def links(self, note: str) -> NoteLinks:
        """A note's outlinks and backlinks with line numbers; ``note`` is a path, name or alias."""
        from vaultctx.search.graph import UnknownNoteError, note_links
        from vaultctx.search.ignored_results import links_without_ignored

        found = note_links(self._link_graph(), note)
        ignored = self._ignored_now()
        if ignored(found.path):
            raise UnknownNoteError(
                f"no note {note!r} in the index",
                "it is excluded by the vault's ignore rules (.indexignore); ask about another note",
            )
        return links_without_ignored(found, ignored)

    def broken_links(self) -> list[ResolvedLink]:
        """Links that resolve to no file in the vault (attachments are looked for on disk)."""
        from vaultctx.search.graph import broken_links
        from vaultctx.search.ignored_results import broken_without_ignored

        return broken_without_ignored(broken_links(self._link_graph()), self._ignored_now())

    def _link_graph(self) -> LinkGraph:
        from vaultctx.search.graph import load_link_graph
        from vaultctx.vault.links import vault_file_paths

        with self._reading_index() as db:
            return load_link_graph(db, vault_file_paths(self.config.vault))

    @contextlib.contextmanager
    def _reading_index(self) -> Iterator[IndexDatabase]:
        """The index opened read-only for one question, its errors naming this vault's commands."""
        from vaultctx.index.db import open_index

        with self._naming_this_index():
            db = open_index(self.config.db, readonly=True)
            try:
                yield db
            finally:
                db.close()

    def context_block(self, name: str, *, refresh: bool = False) -> BlockResult:
        """A named context block from ``vaultctx.toml``, cached until its TTL or sources change."""
        from vaultctx.context_blocks import get_block

        return get_block(self.config, self.context, name, refresh=refresh)

    def capture(
        self,
        text: str,
        *,
        title: str | None = None,
        note_type: str = "note",
        domain: str | None = None,
        tags: Sequence[str] = (),
        source: str | None = None,
        inbox: str | None = None,
    ) -> CaptureResult:
        """A new draft note in the inbox folder (``inbox``, else ``inbox_folder``, else the
        vault's own ``00-inbox/`` or ``Inbox/``), never overwriting one, searchable at once;
        recorded in the ledger like every change, so ``undo`` removes it."""
        from vaultctx.capture import CaptureDraft, capture

        draft = CaptureDraft(
            text,
            title=title,
            note_type=note_type,
            domain=domain,
            tags=tags,
            source=source,
            inbox=inbox,
        )
        return capture(self, draft)

    def watcher(
        self,
        *,
        idle_seconds: float | None = None,
        quality: bool = True,
        on_event: Callable[[WatchEvent], None] | None = None,
    ) -> VaultWatcher:
        """Keeps the index current as files change: ``run()`` blocks until ``stop()``."""
        from vaultctx.index.watch import VaultWatcher

        return VaultWatcher(
            self.config,
            self.indexer,
            idle_seconds=idle_seconds,
            quality=quality and self.quality_embedder() is not None,
            on_event=on_event,
        )

    def read_note(
        self, path: str, *, section: str | None = None, max_tokens: int = 8000
    ) -> NoteText:
        """One note (or one section) by vault-relative path: confined, scrubbed, within budget."""
        from vaultctx.notes import read_note

        return read_note(self.config, path, section=section, max_tokens=max_tokens)

    def list_notes(self, filters: Filters | None = None, *, limit: int = 20) -> NoteList:
        """Indexed notes passing ``filters`` (folder, tags, type, modification dates, front
        matter conditions: the filters of a search), newest first."""
        from vaultctx.notes import list_notes
        from vaultctx.search.filters import Filters

        with self._naming_this_index():
            listed = list_notes(self.config.db, filters or Filters(), limit=limit)
        ignored = self._ignored_now()
        shown = [note for note in listed.notes if not ignored(note.path)]
        if len(shown) == len(listed.notes):
            return listed
        return replace(listed, notes=shown, total=listed.total - (len(listed.notes) - len(shown)))

    def tag_counts(self, *, limit: int = 200) -> list[tuple[str, int]]:
        """The vault's tags with how many notes carry each, most used first."""
        from vaultctx.index.tag_queries import tag_counts

        with self._reading_index() as db:
            return tag_counts(db, limit)

    def verify_citations(self, text: str, *, source: str | None = None) -> CitationReport:
        """The note, heading and block citations in ``text`` (an answer) that do not resolve.

        ``source`` is the vault-relative path of the note ``text`` comes from, if it is one.
        """
        from vaultctx.citations import verify_citations

        with self._naming_this_index():
            return verify_citations(text, self.config, source=source)

    def korean_share(self) -> float:
        """Share of Korean words in the indexed notes (a sample of chunks; 0.0 without an index):
        the agent translates a question that is not in the notes' language."""
        from vaultctx.index.status import indexed_korean_share

        with self._naming_this_index():
            return indexed_korean_share(self.config.db)

    # -- changes to the vault (docs/changes.md) ---------------------------------------------

    def ledger_store(self) -> LedgerStore:
        """The vault's AI change ledger (in the per-user data dir, apart from the index)."""
        from vaultctx.ledger.store import LedgerStore, ledger_folder

        settings = self.config.settings
        return LedgerStore(
            ledger_folder(self.config.vault),
            self.config.vault,
            keep_days=settings.ledger_keep_days,
            max_bytes=settings.ledger_max_mb * 1_000_000,
        )

    def _note_changer(self) -> NoteChanger:
        if self._changer is None:
            from vaultctx.ledger.changes import NoteChanger

            self._changer = NoteChanger(self.config, self.ledger_store())
        return self._changer

    def create_note(self, path: str, content: str, *, change: ChangeContext) -> Change:
        """A new note at the vault-relative ``path`` (parent folders are created); an existing
        file or folder there is a ``NoteChangeError``. Recorded in the ledger, searchable at
        once."""
        return self._reindexed(self._note_changer().create_note(path, content, change=change))

    def replace_note(self, path: str, content: str, *, change: ChangeContext) -> Change:
        """The whole content of an existing note replaced."""
        return self._reindexed(self._note_changer().replace_note(path, content, change=change))

    def edit_note(self, path: str, find: str, replace: str, *, change: ChangeContext) -> Change:
        """Every occurrence of ``find`` replaced, in the note as it is now (a user's save made
        meanwhile is kept); a CRLF note matches an LF ``find``."""
        changed = self._note_changer().edit_note(path, find, replace, change=change)
        return self._reindexed(changed)

    def append_to_note(self, path: str, content: str, *, change: ChangeContext) -> Change:
        """``"\\n" + content`` appended to an existing note."""
        return self._reindexed(self._note_changer().append_to_note(path, content, change=change))

    def move_path(self, source: str, destination: str, *, change: ChangeContext) -> Change:
        """A note or folder moved (the destination must be free); links to it in other notes
        are rewritten as Obsidian does, and the whole move is one ledger record."""
        moved = self._note_changer().move_path(source, destination, change=change)
        return self._reindexed(moved)

    def trash_path(self, path: str, *, change: ChangeContext) -> Change:
        """A note or folder moved into the vault's ``.trash/``, never deleted for good."""
        return self._reindexed(self._note_changer().trash_path(path, change=change))

    @contextlib.contextmanager
    def change_batch(self, change: ChangeContext, kind: str) -> Iterator[ChangeBatch]:
        """Several changes (``create``, ``rewrite``, ``move`` of notes) as one ledger record,
        so one undo reverts them all; the index is updated once, after. ``batch.change`` then
        says what was recorded. No other change method may be called inside the block."""
        from vaultctx.ledger.batch import ChangeBatch

        batch = ChangeBatch(self._note_changer(), change, kind)
        try:
            with batch:
                yield batch
        finally:
            if batch.change is not None:
                batch.change = self._reindexed(batch.change)

    def undo(self, record_id: str | None = None, *, dry_run: bool = False) -> UndoReport:
        """Revert the newest recorded change (or the one ``record_id`` names, when no later one
        touched its files), if every file it touched is as it left them or already as before;
        else ``UndoConflictError`` names the files and nothing is written."""
        from vaultctx.ledger.undo import undo_record
        from vaultctx.vault.writes import vault_root

        root = vault_root(self.config.vault)
        report = undo_record(self.ledger_store(), root, record_id, dry_run=dry_run)
        if dry_run:
            return report
        notices = self._reindex()
        return replace(report, notices=[*report.notices, *notices])

    def ledger(self, limit: int | None = 20) -> list[LedgerRecord]:
        """The recorded changes that read back, newest first (``limit`` None: all kept)."""
        return self.ledger_store().records()[::-1][:limit]

    def ledger_record(self, record_id: str) -> LedgerRecord:
        return self.ledger_store().get(record_id)

    def ledger_unreadable(self) -> list[UnreadableRecord]:
        """The record files that cannot be read back, with why (they block no other record)."""
        return self.ledger_store().unreadable()

    def ledger_drop(self, record_id: str) -> tuple[LedgerRecord | UnreadableRecord, list[FileDiff]]:
        """Discard one record without undoing it, with the diff it held."""
        from vaultctx.ledger.undo import discard

        return discard(self.ledger_store(), record_id)

    def ledger_diffs(self, record: LedgerRecord) -> list[FileDiff]:
        """What a recorded change did, one unified diff per file."""
        from vaultctx.ledger.diff import record_diffs

        return record_diffs(self.ledger_store(), record)

    def _reindexed(self, change: Change) -> Change:
        if change.record_id is None:
            return change
        notices = self._reindex()
        return replace(change, notices=[*change.notices, *notices]) if notices else change

    def _reindex(self) -> list[str]:
        """Bring the index up to date with the files just changed (the fast pass: text, BM25
        and static vectors), so the next search sees them; nothing when there is no index yet."""
        from vaultctx.index.db import index_exists
        from vaultctx.index.indexer import Indexer, IndexerBusyError

        if not index_exists(self.config.db):
            return []
        try:
            report = Indexer(self.config, self.embedder()).run(fast=True)
        except IndexerBusyError:
            return [
                "another vaultctx process is updating the index and will pick the change up "
                "(if none is watching the vault, run `vaultctx index`)"
            ]
        except VaultctxError as exc:
            return [f"the index was not updated: {exc.one_line()}"]
        if report.damaged_kept_as is not None:
            return [
                "the index was damaged and has been rebuilt from the vault; the damaged file is "
                f"kept as {report.damaged_kept_as}"
            ]
        return []

    def status(self) -> IndexStatus:
        from vaultctx.index.status import index_status

        with self._naming_this_index():
            return index_status(self.config.vault, self.config.db)

    def doctor(self) -> DoctorReport:
        """Run SQLite's and FTS5's integrity checks and compare the index with the vault."""
        from vaultctx.index.doctor import run_doctor

        update = f"run `{self.index_command()}`"
        return run_doctor(self.config.db, update=update, rebuild=self._rebuild_advice())
