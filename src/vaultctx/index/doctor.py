"""``vaultctx doctor``: SQLite's and FTS5's integrity checks, and the index compared with the vault.

Each check is its own function returning its findings, in the order they are shown; a damaged
page met by any of them ends the run with a failed ``contents`` check. The advice names the
vault's own commands, which only the caller knows (``update``: bring the index up to date;
``rebuild``: rebuild it from the vault).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.index.db import (
    DAMAGE_ERRORS,
    POSTGRES,
    IndexDatabase,
    IndexDatabaseError,
    IndexFromNewerVersionError,
    IndexMissingError,
    IndexUnreachableError,
    NotAnIndexError,
    index_is_writable,
    open_index,
)
from vaultctx.index.inspect import counts, has_vector_table, notes_with_problems
from vaultctx.index.schema import META_LAST_RUN
from vaultctx.index.status import stored_bytes

Check = dict[str, str]
# Notes with front matter problems listed at most.
NOTES_SHOWN = 20


@dataclass(frozen=True)
class DoctorReport:
    """Checks of the index with advice; ``ok`` is False when something needs action."""

    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(check["status"] != "fail" for check in self.checks)


def check(name: str, status: str, detail: str, advice: str = "") -> Check:
    return {"check": name, "status": status, "detail": detail, "advice": advice}


def run_doctor(db_path: IndexLocation, *, update: str, rebuild: str) -> DoctorReport:
    """Every check of the index at ``db_path``; a file that is not an index, or is from a newer
    vaultctx, or a server that does not answer, is reported with its own advice, never
    "rebuild"; a missing index with the command that builds it."""
    try:
        db = open_index(db_path, readonly=True)
    except (NotAnIndexError, IndexFromNewerVersionError, IndexUnreachableError) as exc:
        return DoctorReport([check("database", "fail", exc.message, exc.suggestion)])
    except IndexMissingError as exc:  # nothing to rebuild: build it
        return DoctorReport([check("database", "fail", exc.message, update)])
    except IndexDatabaseError as exc:
        return DoctorReport([check("database", "fail", exc.message, rebuild)])
    checks = [check("database", "ok", f"{db_path} ({stored_bytes(db)} bytes)")]
    try:
        checks += _server(db)
        checks += _access(db_path)
        checks += _integrity(db, rebuild)
        checks += _vectors(db, update)
        checks += _last_run(db, update)
        checks += _notes(db)
    except DAMAGE_ERRORS as exc:  # a check met a damaged page
        checks.append(check("contents", "fail", f"cannot read the index ({exc})", rebuild))
    finally:
        db.close()
    return DoctorReport(checks)


def _access(db_path: IndexLocation) -> list[Check]:
    if isinstance(db_path, PostgresLocation) or index_is_writable(db_path):
        return []
    advice = (
        f"to update it, make {db_path.parent} writable, or index into a writable location with --db"
    )
    detail = (
        "the index is read-only here: it is readable and search works, but "
        "`vaultctx index` cannot update it"
    )
    return [check("access", "warn", detail, advice)]


def _server(db: IndexDatabase) -> list[Check]:
    """A database server's version, pgvector's and TLS: what an operator asks first."""
    facts = db.server_facts()
    if facts is None:
        return []
    vector = facts["pgvector_version"]
    tls = f"TLS ({facts['tls_version'] or 'on'})" if facts["tls"] else "no TLS"
    detail = (
        f"PostgreSQL {facts['server_version']}, "
        f"{f'pgvector {vector}' if vector else 'no pgvector'}, {tls}, schema {facts['schema']}"
    )
    if vector is None:
        advice = "as a superuser: CREATE EXTENSION vector; (search uses BM25 only meanwhile)"
        return [check("server", "warn", detail, advice)]
    return [check("server", "ok", detail)]


def _integrity(db: IndexDatabase, rebuild: str) -> list[Check]:
    problems = db.integrity_problems()
    name = "index integrity" if db.dialect == POSTGRES else "sqlite integrity"
    if problems:
        detail = "; ".join(problems[:3])
        return [check(name, "fail", detail, f"the index is damaged: {rebuild}")]
    if name == "index integrity":  # PostgreSQL checks its own pages; ours is the bookkeeping
        return [check(name, "ok", "keyword statistics add up to the rows they count")]
    # SQLite >= 3.44 runs FTS5's own integrity check inside integrity_check.
    return [check(name, "ok", "integrity_check ok (tables, indexes, FTS5)")]


def _vectors(db: IndexDatabase, update: str) -> list[Check]:
    numbers = counts(db)
    if has_vector_table(db):
        status = "ok" if numbers.vectors == numbers.chunks else "warn"
        advice = "" if status == "ok" else f"{update} to embed the missing chunks"
        return [
            check(
                "vectors", status, f"{numbers.vectors} vectors for {numbers.chunks} chunks", advice
            )
        ]
    if not db.capabilities.vectors and db.dialect != POSTGRES:  # PostgreSQL: _server says it
        return [
            check(
                "vectors",
                "warn",
                "sqlite-vec could not be loaded: search uses BM25 only",
                "reinstall vaultctx so the sqlite-vec wheel for this platform is present",
            )
        ]
    return []


def _last_run(db: IndexDatabase, update: str) -> list[Check]:
    last = db.meta_json(META_LAST_RUN)
    if last is None:
        return [check("last run", "warn", "no completed index run recorded", update)]
    if last.get("interrupted"):
        return [check("last run", "warn", "the last run was interrupted", f"{update} to finish it")]
    ago = time.time() - float(last["finished_at"])
    return [check("last run", "ok", f"finished {ago / 60:.0f} min ago")]


def _notes(db: IndexDatabase) -> list[Check]:
    return [
        check(
            "note",
            "warn",
            f"{path}: {problems[0]}",
            "fix the front matter; the note is indexed as plain text meanwhile",
        )
        for path, problems in notes_with_problems(db, NOTES_SHOWN)
    ]
