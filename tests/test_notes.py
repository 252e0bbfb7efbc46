from __future__ import annotations

import datetime as dt
import os
from dataclasses import replace

import pytest

from vaultctx.api import Vault
from vaultctx.config import Settings
from vaultctx.notes import NoteList, NoteNotFoundError, SectionNotFoundError
from vaultctx.search.budget import CHARS_PER_TOKEN
from vaultctx.search.filters import Filters, InvalidFilterError
from vaultctx.vault.paths import UnsafePathError, VaultAccessError

LONG_BODY = "\n\n".join(f"Paragraph {i} about sourdough starters and hydration." for i in range(80))

NOTES = {
    "kitchen/Bread.md": (
        "---\ntype: project\ntags: [cooking/bread]\n---\n# Bread\n\nIntro line.\n\n"
        "## Starter\nFeed daily.\n\n### Flour\nRye works best.\n\n## Baking\nBake at 250 °C.\n"
        "API key: sk-ant-api03-" + "A" * 93 + "AA\n"
    ),
    "kitchen/Long.md": f"# Long\n\n{LONG_BODY}\n",
    "garden/Tomatoes.md": "---\ntags: [garden]\n---\n# Tomatoes\n\n## Watering\nDeep.\n",
    "garden/snake_case/Note.md": "# Snake\n\nIn a folder with an underscore.\n",
    "garden/snakeXcase/Other.md": "# Other\n\nWhat an unescaped LIKE `_` would also match.\n",
    "journal/2024-05-01.md": "---\ntype: daily\n---\n# May 1\n\nRain. #weather\n",
    "journal/2024-05-02.md": "---\ntype: daily\n---\n# May 2\n\nSun. #weather/sunny\n",
    "clips/Page.html": "<html><head><title>A page</title></head><body><p>Visible words.</p>"
    "<script>hidden()</script></body></html>",
    "data/table.csv": "name,value\nalpha,1\n",
    "dup/one/Same.md": "# Same one\n",
    "dup/two/Same.md": "# Same two\n",
}
MTIMES = {
    "journal/2024-05-01.md": dt.datetime(2024, 5, 1, 23, 30),
    "journal/2024-05-02.md": dt.datetime(2024, 5, 2, 8, 0),
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("notes")
    folder = root / "vault"
    for rel, text in NOTES.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for rel, moment in MTIMES.items():
        stamp = moment.timestamp()
        os.utime(folder / rel, (stamp, stamp))
    (folder / "bin.md").write_bytes(b"\x00\x01binary")
    handle = Vault(folder, db=root / "index.db")
    handle.index(fast=True)
    return handle


def test_whole_note_is_scrubbed_with_headings(vault: Vault) -> None:
    note = vault.read_note("kitchen/Bread.md")
    assert note.title == "Bread" and note.section is None
    assert note.text.startswith("---\ntype: project")
    assert "sk-ant-api03" not in note.text and "[REDACTED:" in note.text and note.redactions == 1
    assert note.headings == ["Bread", "Starter", "Flour", "Baking"]
    assert not note.truncated and note.notice is None


def test_section_runs_to_the_next_heading_of_its_level(vault: Vault) -> None:
    starter = vault.read_note("kitchen/Bread.md", section="  starter ")
    assert starter.section == "Starter"
    assert starter.text == "## Starter\nFeed daily.\n\n### Flour\nRye works best."
    assert vault.read_note("kitchen/Bread", section="## Flour").text == "### Flour\nRye works best."
    cited = vault.read_note("kitchen/Bread.md#Baking")
    assert cited.section == "Baking" and cited.text.startswith("## Baking")


def test_missing_section_lists_headings(vault: Vault) -> None:
    with pytest.raises(SectionNotFoundError) as missing:
        vault.read_note("kitchen/Bread.md", section="Oven")
    assert "`Starter`" in missing.value.suggestion
    with pytest.raises(SectionNotFoundError, match="no heading"):
        vault.read_note("data/table.csv", section="x")


def test_truncation_is_stated(vault: Vault) -> None:
    note = vault.read_note("kitchen/Long.md", max_tokens=100)
    assert note.truncated and note.text.endswith("…")
    assert len(note.text) <= 100 * CHARS_PER_TOKEN and note.tokens <= 100 < note.total_tokens
    assert note.notice is not None and f"of {note.total_tokens} tokens" in note.notice
    assert not vault.read_note("kitchen/Long.md", max_tokens=100_000).truncated


def test_other_file_types(vault: Vault) -> None:
    page = vault.read_note("clips/Page.html")
    assert page.title == "A page" and "Visible words." in page.text
    assert "<p>" not in page.text and "hidden()" not in page.text
    assert vault.read_note("data/table.csv").text == "name,value\nalpha,1\n"
    with pytest.raises(VaultAccessError, match="binary"):
        vault.read_note("bin.md")


def test_name_resolution(vault: Vault) -> None:
    assert vault.read_note("Tomatoes").path == "garden/Tomatoes.md"
    assert vault.read_note("tomatoes.md").path == "garden/Tomatoes.md"
    with pytest.raises(NoteNotFoundError) as ambiguous:
        vault.read_note("Same.md")
    assert "`dup/one/Same.md`" in ambiguous.value.suggestion
    assert "`dup/two/Same.md`" in ambiguous.value.suggestion
    with pytest.raises(NoteNotFoundError, match="folder"):
        vault.read_note("kitchen")


def test_a_note_written_after_indexing_is_readable(vault: Vault) -> None:
    fresh = vault.path / "kitchen" / "Fresh.md"
    fresh.write_text("# Fresh\n\nJust written.\n", encoding="utf-8")
    try:
        assert vault.read_note("kitchen/Fresh.md").text.endswith("Just written.\n")
    finally:
        fresh.unlink()


def test_oversized_file_is_refused(vault: Vault) -> None:
    strict = Vault(config=replace(vault.config, settings=Settings(max_file_bytes=10)))
    with pytest.raises(VaultAccessError, match="byte limit"):
        strict.read_note("kitchen/Bread.md")


def test_unsafe_paths_are_refused(vault: Vault) -> None:
    for raw in ("../x.md", "/etc/passwd", "kitchen/../../x.md", "%2e%2e/x.md"):
        with pytest.raises(UnsafePathError):
            vault.read_note(raw)


def paths(listing: NoteList) -> list[str]:
    return [note.path for note in listing.notes]


def test_list_filters(vault: Vault) -> None:
    kitchen = {"kitchen/Bread.md", "kitchen/Long.md"}
    assert set(paths(vault.list_notes(Filters(folder="kitchen/")))) == kitchen
    assert paths(vault.list_notes(Filters(folder="garden/snake_case"))) == [
        "garden/snake_case/Note.md"
    ]
    assert paths(vault.list_notes(Filters(folder="garden/snake%case"))) == []
    journal = ["journal/2024-05-02.md", "journal/2024-05-01.md"]
    assert paths(vault.list_notes(Filters(tags=["weather"]))) == journal
    assert paths(vault.list_notes(Filters(tags=["#weather/sunny"]))) == ["journal/2024-05-02.md"]
    assert paths(vault.list_notes(Filters(tags=["cooking"]))) == ["kitchen/Bread.md"]
    assert paths(vault.list_notes(Filters(note_type="DAILY"))) == journal


def test_list_dates_are_local_days(vault: Vault) -> None:
    may_first = vault.list_notes(Filters(since="2024-05-01", until="2024-05-01"))
    assert paths(may_first) == ["journal/2024-05-01.md"]
    assert paths(vault.list_notes(Filters(since="2024-05-02", until="2024-05-02"))) == [
        "journal/2024-05-02.md"
    ]
    assert paths(vault.list_notes(Filters(until="2024-05-02T07:59"))) == ["journal/2024-05-01.md"]
    recent = vault.list_notes(Filters(since="2024-05-03"))
    assert "journal/2024-05-01.md" not in paths(recent) and recent.total == len(NOTES) - 2
    info = may_first.notes[0]
    assert dt.datetime.fromisoformat(info.modified) == MTIMES[info.path].astimezone()


def test_list_limit_total_and_order(vault: Vault) -> None:
    listing = vault.list_notes(limit=3)
    assert len(listing.notes) == 3 and listing.total == len(NOTES)
    stamps = [dt.datetime.fromisoformat(n.modified) for n in vault.list_notes(limit=50).notes]
    assert stamps == sorted(stamps, reverse=True)


def test_list_errors_and_advice(vault: Vault) -> None:
    with pytest.raises(InvalidFilterError, match="ISO 8601"):
        vault.list_notes(Filters(since="05/01/2024"))
    with pytest.raises(InvalidFilterError, match="not before"):
        vault.list_notes(Filters(since="2024-05-03", until="2024-05-01"))
    with pytest.raises(UnsafePathError):
        vault.list_notes(Filters(folder="../elsewhere"))
    empty = vault.list_notes(Filters(folder="cellar"))
    assert empty.total == 0 and empty.suggestion is not None and "`kitchen`" in empty.suggestion
    assert vault.list_notes(Filters(tags=["nothing-like-this"])).suggestion == (
        "remove a filter or widen the date range"
    )
