"""``capture``: a draft note in 00-inbox/ with SPEC §1 front matter, searchable at once."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from filelock import FileLock
from typer.testing import CliRunner

from tests.ledger.conftest import isolate_data_dir
from vaultctx.api import Vault
from vaultctx.capture import (
    CaptureDraft,
    CaptureError,
    derive_title,
    note_markdown,
    parse_tags,
    safe_file_stem,
    write_capture,
)
from vaultctx.cli.main import app
from vaultctx.vault.note import parse_note


@pytest.fixture(autouse=True)
def _private_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Captures are recorded in the ledger: a private data dir keeps it out of the real one."""
    isolate_data_dir(tmp_path_factory.mktemp("data"), monkeypatch)


@pytest.mark.parametrize(
    ("title", "stem"),
    [
        ("OAuth token rotation", "OAuth token rotation"),
        ("a/b\\c: d*e?f", "a b c d e f"),
        ("../../etc/passwd", "etc passwd"),
        (
            'Links [[break]] on #tags ^blocks | pipes "quotes" <x>',
            "Links break on tags blocks pipes quotes x",
        ),
        ("  .hidden.  ", "hidden"),
        ("trailing dots...", "trailing dots"),
        ("CON", "CON_"),
        ("com1.txt", "com1.txt_"),
        ("Console", "Console"),
        ("tab\tand\nnewline", "tab and newline"),
        ("///", ""),
    ],
)
def test_safe_file_stem(title: str, stem: str) -> None:
    assert safe_file_stem(title) == stem


def test_long_titles_fit_a_file_name() -> None:
    stem = safe_file_stem("한국어 제목 " * 40)
    assert 0 < len(stem.encode("utf-8")) <= 120 and not stem.endswith(" ")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("# Heading\nbody", "Heading"),
        ("\n\n  first line  \nsecond", "first line"),
        (
            "OAuth token rotation requires both access and refresh token invalidation at once",
            "OAuth token rotation requires both access and refresh token",
        ),
        ("   \n ", ""),
    ],
)
def test_derive_title(text: str, title: str) -> None:
    assert derive_title(text) == title


def test_parse_tags() -> None:
    assert parse_tags("oauth, #tokens,,token management,oauth") == [
        "oauth",
        "tokens",
        "token-management",
    ]
    assert parse_tags(None) == []


def test_front_matter_is_what_the_parser_reads() -> None:
    text = note_markdown(
        "Rotate both tokens.",
        title='Tokens: "rotation" & #1',
        domain="security",
        tags=["oauth", "tokens"],
        source="https://example.com/a?b=c",
        today=dt.date(2026, 1, 15),
    )
    note = parse_note("00-inbox/x.md", text)
    assert note.problems == []
    assert note.title == 'Tokens: "rotation" & #1'
    assert note.type == "note" and note.status == "draft"
    assert note.tags == ["oauth", "tokens"]
    assert note.front_matter["domain"] == "security"
    assert note.front_matter["source"] == "https://example.com/a?b=c"
    assert str(note.front_matter["created"]) == "2026-01-15"
    assert note.body.strip() == "Rotate both tokens."


def test_optional_keys_are_left_out() -> None:
    text = note_markdown("x", title="T", today=dt.date(2026, 1, 15))
    assert text == (
        "---\ntitle: T\ntype: note\ncreated: 2026-01-15\nupdated: 2026-01-15\n"
        "status: draft\n---\nx\n"
    )


def _bare(tmp_path: Path) -> Vault:
    """A vault never indexed: ``write_capture`` writes and records, and indexes nothing."""
    return Vault(tmp_path, db=tmp_path.parent / f"{tmp_path.name}.db")


def test_never_overwrites(tmp_path: Path) -> None:
    vault = _bare(tmp_path)
    first = write_capture(vault, CaptureDraft("one", title="Same"))
    second = write_capture(vault, CaptureDraft("two", title="Same"))
    third = write_capture(vault, CaptureDraft("three", title="Same"))
    assert [first[0], second[0], third[0]] == [
        "00-inbox/Same.md",
        "00-inbox/Same 2.md",
        "00-inbox/Same 3.md",
    ]
    assert "one" in (tmp_path / "00-inbox" / "Same.md").read_text(encoding="utf-8")


def test_a_title_of_only_unsafe_characters_gets_a_dated_name(tmp_path: Path) -> None:
    path, file, title, _ = write_capture(_bare(tmp_path), CaptureDraft("body", title="///"))
    assert path.startswith("00-inbox/Capture ") and file.is_file() and title == "///"


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("   ", {}, "nothing to capture"),
        ("x", {"note_type": "tweet"}, "unknown note type 'tweet'"),
    ],
)
def test_refused_captures(tmp_path: Path, text: str, options: dict[str, str], message: str) -> None:
    with pytest.raises(CaptureError, match=message):
        write_capture(_bare(tmp_path), CaptureDraft(text, **options))  # type: ignore[arg-type]
    assert not (tmp_path / "00-inbox").exists() or not any((tmp_path / "00-inbox").iterdir())


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "existing.md").write_text("# Existing\n\nAn older note about gardening.\n")
    handle = Vault(folder, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


def test_a_capture_is_found_by_the_next_search(vault: Vault) -> None:
    result = vault.capture(
        "Zanzibar-style ACLs need a consistent snapshot token.", domain="security", tags=["authz"]
    )
    assert result.indexed and result.notices == []
    assert result.path == "00-inbox/Zanzibar-style ACLs need a consistent snapshot token.md"
    vault.close()
    hits = vault.search("zanzibar snapshot", mode="bm25").results
    assert [hit.file_path for hit in hits] == [result.path]


def test_a_busy_index_leaves_the_note_for_the_running_indexer(vault: Vault) -> None:
    with FileLock(f"{vault.db_path}.lock"):
        result = vault.capture("Written while the watcher indexes.")
    assert result.file.is_file() and not result.indexed
    assert "another vaultctx process" in result.notices[0]


def test_an_ignored_inbox_is_refused_before_anything_is_written(vault: Vault) -> None:
    """vaultctx writes only where it reads: a note there could not be found, nor recorded."""
    (vault.path / ".indexignore").write_text("00-inbox/\n")
    with pytest.raises(CaptureError, match="excluded by the ignore rules"):
        vault.capture("Kept out of the index.")
    assert not (vault.path / "00-inbox").exists()
    assert vault.ledger() == []


@pytest.mark.parametrize(
    ("folders", "inbox"),
    [
        ([], "00-inbox"),
        (["Inbox"], "Inbox"),
        (["00-inbox", "Inbox"], "00-inbox"),
    ],
)
def test_an_existing_inbox_folder_is_used(tmp_path: Path, folders: list[str], inbox: str) -> None:
    for folder in folders:
        (tmp_path / folder).mkdir()
    path, file, _, _ = write_capture(_bare(tmp_path), CaptureDraft("body", title="Idea"))
    assert path == f"{inbox}/Idea.md" and file == tmp_path / inbox / "Idea.md"
    assert {p.name for p in tmp_path.iterdir()} == set(folders) | {inbox}


def test_the_inbox_folder_setting_wins(vault: Vault) -> None:
    (vault.path / "Inbox").mkdir()
    (vault.path / "vaultctx.toml").write_text('inbox_folder = "areas/captures"\n')
    result = CliRunner().invoke(
        app,
        ["capture", "Quokkas smile.", "--vault", str(vault.path), "--db", str(vault.db_path)],
    )
    assert result.exit_code == 0, result.output
    assert "captured areas/captures/Quokkas smile.md (indexed)" in result.stdout
    assert (vault.path / "areas" / "captures" / "Quokkas smile.md").is_file()
    assert list((vault.path / "Inbox").iterdir()) == []


def test_cli_json_and_stdin(vault: Vault) -> None:
    result = CliRunner().invoke(
        app,
        [
            "capture",
            "-",
            "--vault",
            str(vault.path),
            "--db",
            str(vault.db_path),
            "--title",
            "From a pipe",
            "--tags",
            "a,b",
            "--type",
            "signal",
            "--json",
        ],
        input="Piped text about quokkas.\n",
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["path"] == "00-inbox/From a pipe.md" and answer["indexed"] is True
    note = parse_note(answer["path"], Path(answer["file"]).read_text(encoding="utf-8"))
    assert note.type == "signal" and note.tags == ["a", "b"]
    assert "quokkas" in note.body
