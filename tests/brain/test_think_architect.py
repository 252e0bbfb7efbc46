"""architect: Architecture.md in the wiki folder from a bounded scan; an AI-first new note, only
the generated blocks replaced afterwards, nothing written when nothing changed, one ledger record
per run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.think_support import (
    chat_bodies,
    fake_model,
    max_tokens_of,
    prompt_of,
    run,
    turn_on,
)
from vaultctx.api import Vault
from vaultctx.brain.architect import NothingToScanError, architect
from vaultctx.brain.code_scan import ScanPathError, scan_folder, skeleton
from vaultctx.brain.markers import MarkerError, read_block
from vaultctx.brain.wiki import WikiFolderError
from vaultctx.ledger.context import ChangeContext

NOTE = "Second Brain/Architecture.md"
CHANGE = ChangeContext("architect test", source="cli")
CODE = {
    "proj/README.md": "# Proj\n\nA tool.\n",
    "proj/src/proj/__main__.py": "from proj.app import run\n\nrun()\n",
    "proj/src/proj/app.py": "def run() -> None:\n    print('hi')\n",
    "proj/src/proj/util/text.py": "X = 1\n",
    "proj/web/index.ts": "export const main = 1;\n",
    "proj/.git/config": "[core]\n",
    "notes/Unrelated.md": "# Unrelated\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    root = tmp_path / "v"
    for path, text in CODE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    turn_on(root)
    return Vault(root, db=tmp_path / "v.db")


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


def sections(fake: OpenAIFake, tag: str = "") -> None:
    fake.queue(
        Answer(f"It is a small CLI.{tag}"),
        Answer(f"- `src/proj`: the app{tag}"),
        Answer(f"- Python with a __main__ entry point{tag}"),
    )


def test_a_new_note_is_ai_first_with_three_blocks_from_three_questions(
    vault: Vault, fake: OpenAIFake
) -> None:
    sections(fake)
    result = run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert result.status == "created" and result.path == NOTE
    assert result.files == 5  # .git is not walked
    assert result.entry_points == ["proj/src/proj/__main__.py", "proj/web/index.ts"]
    bodies = chat_bodies(fake)
    assert len(bodies) == 3 and all(max_tokens_of(body) == 1500 for body in bodies)
    prompt = prompt_of(bodies[0])
    assert "proj/src/proj/__main__.py" in prompt and "run()" in prompt  # the entry's start
    assert "Unrelated" not in prompt and ".git" not in prompt
    text = (vault.path / NOTE).read_text(encoding="utf-8")
    front = text.split("---\n")[1]
    assert 'title: "Architecture"' in front and "recency: dated" in front
    assert 'source: "architect"' in front and "learned_at: " in front
    assert "## For future AI" in text
    assert read_block(text, "overview") == "## Overview\n\nIt is a small CLI."
    assert read_block(text, "decisions") == ("## Decisions\n\n- Python with a __main__ entry point")
    modules = read_block(text, "modules") or ""
    assert modules.startswith("## Modules\n\n- `src/proj`: the app\n\n_Scanned proj: 5 files.")
    (record,) = vault.ledger(limit=1)
    assert record.id == result.record_id and record.label == "architect test"


def test_regenerating_keeps_the_users_text_and_writes_nothing_when_unchanged(
    vault: Vault, fake: OpenAIFake
) -> None:
    sections(fake)
    run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    note = vault.path / NOTE
    mine = "\n## My notes\n\nThe deploy script lives elsewhere. <!-- @end:overview -->?\n"
    edited = note.read_text(encoding="utf-8").replace("## For future AI", "## For future AI" + mine)
    note.write_text(edited + "\nA closing remark.\n", encoding="utf-8")
    user_version = note.read_bytes()
    records = len(vault.ledger())
    sections(fake)
    same = run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert same.status == "unchanged" and same.record_id is None
    assert note.read_bytes() == user_version and len(vault.ledger()) == records
    sections(fake, " (v2)")
    changed = run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert changed.status == "updated"
    text = note.read_text(encoding="utf-8")
    assert read_block(text, "overview") == "## Overview\n\nIt is a small CLI. (v2)"
    assert mine in text and text.endswith("\nA closing remark.\n")
    vault.undo()
    assert note.read_bytes() == user_version


def test_the_whole_vault_is_scanned_without_the_note_itself(vault: Vault, fake: OpenAIFake) -> None:
    sections(fake)
    run(architect(vault, fake_model(fake), None, change=CHANGE))
    sections(fake)
    result = run(architect(vault, fake_model(fake), None, change=CHANGE))
    assert result.files == 7  # CODE without .git, plus vaultctx.toml; not the wiki's log
    assert (code := prompt_of(chat_bodies(fake)[-1])) and "Architecture.md" not in code
    assert "log.md" not in code and (vault.path / "Second Brain" / "log.md").is_file()


def test_a_tree_over_400_lines_shows_its_folders_with_counts_and_says_what_it_left_out(
    vault: Vault, fake: OpenAIFake
) -> None:
    (vault.path / "proj" / "gen").mkdir()
    for i in range(450):
        (vault.path / "proj" / "gen" / f"f{i:03}.py").write_text("", encoding="utf-8")
    lines, omitted = skeleton(scan_folder(vault.path, "proj"))
    assert lines == [
        "README.md",
        "gen/ (450 files)",
        "src/ (3 files)",
        "  proj/ (3 files)",
        "    util/ (1 file)",
        "web/ (1 file)",
    ]
    assert omitted == (5 + 450) + 5 - len(lines)  # the full tree: files and 5 folder lines
    sections(fake)
    result = run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert result.omitted == omitted
    assert f"…{omitted} omitted" in prompt_of(chat_bodies(fake)[0])


def test_a_small_tree_is_shown_whole_and_a_huge_one_cut_at_400_lines(vault: Vault) -> None:
    lines, omitted = skeleton(scan_folder(vault.path, "proj"))
    assert omitted == 0
    assert lines == [
        "README.md",
        "src/",
        "  proj/",
        "    __main__.py",
        "    app.py",
        "    util/",
        "      text.py",
        "web/",
        "  index.ts",
    ]
    for i in range(450):
        (vault.path / "proj" / f"d{i:03}").mkdir()
        (vault.path / "proj" / f"d{i:03}" / "x.md").write_text("", encoding="utf-8")
    lines, omitted = skeleton(scan_folder(vault.path, "proj"))
    assert len(lines) == 400 and lines[:2] == ["README.md", "d000/ (1 file)"]
    assert omitted == 9 + 2 * 450 - 400


def test_the_scan_stops_at_its_file_and_time_limits(vault: Vault) -> None:
    capped = scan_folder(vault.path, "proj", max_files=2)
    assert len(capped.files) == 2 and capped.stopped == "the scan stopped at 2 files (its limit)"
    timed = scan_folder(vault.path, "proj", max_seconds=0)
    assert timed.stopped is not None and "time limit" in timed.stopped


def test_nothing_to_scan_and_not_a_folder_are_errors_before_any_question(
    vault: Vault, fake: OpenAIFake
) -> None:
    (vault.path / "empty").mkdir()
    with pytest.raises(
        NothingToScanError, match=r"No files to analyze under the scan path \(empty\)"
    ):
        run(architect(vault, fake_model(fake), "empty", change=CHANGE))
    with pytest.raises(ScanPathError, match="not a folder"):
        run(architect(vault, fake_model(fake), "proj/README.md", change=CHANGE))
    with pytest.raises(ScanPathError, match="not a folder"):
        run(architect(vault, fake_model(fake), "missing", change=CHANGE))
    assert chat_bodies(fake) == []


def test_a_wiki_folder_that_is_a_file_is_refused_and_nothing_written(
    vault: Vault, fake: OpenAIFake
) -> None:
    (vault.path / "Second Brain").write_text("I am a file", encoding="utf-8")
    with pytest.raises(WikiFolderError, match="is a file; nothing was written"):
        run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert (vault.path / "Second Brain").read_text(encoding="utf-8") == "I am a file"
    assert vault.ledger() == []


def test_an_unclosed_marker_in_the_note_stops_the_write(vault: Vault, fake: OpenAIFake) -> None:
    note = vault.path / NOTE
    note.parent.mkdir(parents=True)
    note.write_text("# Mine\n\n<!-- @generated:modules -->\nhalf\n", encoding="utf-8")
    sections(fake)
    with pytest.raises(MarkerError, match="nothing was written"):
        run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert chat_bodies(fake) == []  # found before the model was asked
    assert note.read_text(encoding="utf-8") == "# Mine\n\n<!-- @generated:modules -->\nhalf\n"
    assert vault.ledger() == []


def test_a_custom_wiki_folder_is_used(vault: Vault, fake: OpenAIFake) -> None:
    turn_on(vault.path, "Wiki/AI")
    sections(fake)
    result = run(architect(vault, fake_model(fake), "proj", change=CHANGE))
    assert result.path == "Wiki/AI/Architecture.md"
    assert (vault.path / "Wiki/AI/Architecture.md").is_file()


def test_many_entry_points_are_listed_up_to_50_and_read_up_to_8(
    vault: Vault, fake: OpenAIFake
) -> None:
    for i in range(60):
        (vault.path / "proj" / "pkgs" / f"p{i:02}").mkdir(parents=True)
        (vault.path / "proj" / "pkgs" / f"p{i:02}" / "index.ts").write_text(
            f"export const id = 'package-{i:02}';\n", encoding="utf-8"
        )
    sections(fake)
    result = run(architect(vault, fake_model(fake), "proj/pkgs", change=CHANGE))
    assert len(result.entry_points) == 60
    prompt = prompt_of(chat_bodies(fake)[0])
    assert "proj/pkgs/p49/index.ts" in prompt and "…10 more" in prompt
    assert "package-07" in prompt and "package-08" not in prompt  # the first 8 are read
