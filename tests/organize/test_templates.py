"""Note templates: list, save and apply over real vaults, and ``vaultctx template`` as a process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.organize.templates import (
    TemplateFolderExcludedError,
    TemplateNameError,
    TemplateNotFoundError,
    apply_template,
    fill,
    list_templates,
    save_template,
    template_path,
)

CLI = ChangeContext(label="template test", source="cli")


@pytest.fixture(autouse=True)
def private_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger and the user's settings in tmp, never the caller's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def write(root: Path, notes: dict[str, str]) -> Path:
    for relative, content in notes.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    root.mkdir(parents=True, exist_ok=True)
    return root


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        path.relative_to(root).as_posix(): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }


# -- list --------------------------------------------------------------------------------------


def test_list_is_sorted_case_insensitively_and_skips_other_files(tmp_path: Path) -> None:
    notes = {f"Templates/{name}": "x" for name in ("meeting.md", "Daily.md", "b.txt")}
    vault = write(tmp_path / "v", {**notes, "Templates/Sub/Inner.md": "x"})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        assert list_templates(handle, "Templates") == ["Daily", "meeting"]


def test_list_empty_and_missing_folder(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Home.md": "hi"})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        assert list_templates(handle, "Templates") is None
        (vault / "Templates").mkdir()
        assert list_templates(handle, "Templates") == []


def test_an_excluded_template_folder_is_refused(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {".indexignore": "Hidden/\n", "Hidden/T.md": "x"})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        with pytest.raises(TemplateFolderExcludedError) as error:
            list_templates(handle, "Hidden")
        assert "template_folder" in error.value.suggestion
        with pytest.raises(TemplateFolderExcludedError):
            template_path(handle, "Hidden", "T")


# -- save --------------------------------------------------------------------------------------


def test_save_creates_then_updates_each_recorded_and_undone(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Home.md": "hi"})
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        path = template_path(handle, "Templates", "Meeting.md")
        assert path == "Templates/Meeting.md"
        first = save_template(handle, path, "# {{title}}\n", change=CLI)
        assert first.created and first.record_id is not None
        second = save_template(handle, path, "## {{title}}\n", change=CLI)
        assert not second.created and second.record_id is not None
        assert (vault / path).read_text(encoding="utf-8") == "## {{title}}\n"
        records = handle.ledger()
        assert [r.source for r in records] == ["cli", "cli"]
        handle.undo()
        assert (vault / path).read_text(encoding="utf-8") == "# {{title}}\n"
        handle.undo()
    assert snapshot(vault) == before


@pytest.mark.parametrize("name", ["../x", "a/b", "a\\b", "%2e%2e%2fx", "", "  ", ".md"])
def test_a_name_that_is_a_path_is_refused(tmp_path: Path, name: str) -> None:
    vault = write(tmp_path / "v", {"Home.md": "hi"})
    with Vault(vault, db=tmp_path / "i.db") as handle, pytest.raises(TemplateNameError):
        template_path(handle, "Templates", name)
    assert snapshot(vault) == {"Home.md": b"hi"}


# -- apply -------------------------------------------------------------------------------------


def test_fill_is_literal() -> None:
    values = {"a": "$1 \\1 \\g<0> .* {{b}}", "b": "never re-filled"}
    assert fill("{{a}}|{{a}}|{{ a }}", values) == (
        "$1 \\1 \\g<0> .* {{b}}|$1 \\1 \\g<0> .* {{b}}|{{ a }}"
    )
    assert fill("{{a.*}} {{a}}", {"a.*": "x"}) == "x {{a}}"


def test_apply_fills_reports_leftovers_and_is_undone(tmp_path: Path) -> None:
    template = "# {{title}}\nBy {{author}} on {{date}} about {{title}} {{date}}\n"
    vault = write(tmp_path / "v", {"Templates/Meeting.md": template})
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        applied = apply_template(
            handle,
            "Templates/Meeting.md",
            "meetings/Kickoff.md",
            {"title": "Kick $1 off \\1 .*", "author": "Kim", "unused": "x"},
            change=CLI,
        )
        assert applied.path == "meetings/Kickoff.md"
        assert applied.leftovers == ["{{date}}"]
        assert (vault / applied.path).read_text(encoding="utf-8") == (
            "# Kick $1 off \\1 .*\nBy Kim on {{date}} about Kick $1 off \\1 .* {{date}}\n"
        )
        assert [r.source for r in handle.ledger()] == ["cli"]
        handle.undo()
    assert snapshot(vault) == before


def test_apply_refuses_an_existing_output_and_writes_nothing(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Templates/T.md": "{{x}}", "out.md": "mine"})
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        with pytest.raises(VaultctxError, match="exists"):
            apply_template(handle, "Templates/T.md", "out.md", {"x": "y"}, change=CLI)
        assert handle.ledger() == []
    assert snapshot(vault) == before


def test_apply_a_missing_template_or_outside_the_vault(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Templates/T.md": "{{x}}", "Nope.md": "not a template"})
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        with pytest.raises(TemplateNotFoundError, match=r"Templates/Nope\.md"):
            apply_template(handle, "Templates/Nope.md", "o.md", {}, change=CLI)
        with pytest.raises(VaultctxError):
            apply_template(handle, "Templates/T.md", "../escape.md", {}, change=CLI)
    assert snapshot(vault) == before
    assert not (tmp_path / "escape.md").exists()


# -- the command -------------------------------------------------------------------------------


def run_cli(
    tmp_path: Path, vault: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = clean_cli_env(tmp_path)
    words = [*args, "--vault", str(vault), "--db", str(tmp_path / "index.db")]
    return run_vaultctx(words, env=env, input=stdin or "")


def test_cli_save_list_apply_then_undo(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Home.md": "hi"})
    before = snapshot(vault)
    # The folder comes from [agent] template_folder, as the agent reads it.
    (vault / "vaultctx.toml").write_text('[agent]\ntemplate_folder = "Meta"\n', encoding="utf-8")
    missing = run_cli(tmp_path, vault, "template", "list")
    assert missing.returncode == 0 and "Meta/ does not exist yet" in missing.stderr
    source = tmp_path / "meeting.md"
    source.write_text("# {{title}} {{date}}\n", encoding="utf-8")
    saved = run_cli(tmp_path, vault, "template", "save", "Meeting", "--from", str(source), "--json")
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["path"] == "Meta/Meeting.md"
    updated = run_cli(
        tmp_path, vault, "template", "save", "Meeting", "--from", "-", stdin="# {{title}} {{date}}!"
    )
    assert updated.returncode == 0 and updated.stdout.startswith("updated Meta/Meeting.md")
    listed = run_cli(tmp_path, vault, "template", "list", "--json")
    assert json.loads(listed.stdout) == {"folder": "Meta", "templates": ["Meeting"]}
    argv = ["template", "apply", "Meeting", "notes/K.md", "--var", "title=a=$1", "--json"]
    applied = run_cli(tmp_path, vault, *argv)
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["leftovers"] == ["{{date}}"]
    assert (vault / "notes/K.md").read_text(encoding="utf-8") == "# a=$1 {{date}}!"
    records = json.loads(run_cli(tmp_path, vault, "ledger", "--json").stdout)
    assert len(records) == 3 and {r["source"] for r in records} == {"cli"}
    for _ in records:
        assert run_cli(tmp_path, vault, "undo").returncode == 0
    (vault / "vaultctx.toml").unlink()
    assert snapshot(vault) == before


def test_cli_errors_are_one_line_and_write_nothing(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Templates/T.md": "{{x}}", "out.md": "mine"})
    before = snapshot(vault)
    for argv, needle in [
        (["template", "apply", "T", "new.md", "--var", "x"], "--var key=value"),
        (["template", "apply", "T", "out.md", "--var", "x=1"], "exists"),
        (["template", "apply", "../T", "new.md"], "without a folder"),
        (["template", "apply", "Nope", "new.md"], "vaultctx template list"),
        (["template", "save", "N", "--from", str(tmp_path / "none.md")], "cannot read"),
    ]:
        result = run_cli(tmp_path, vault, *argv)
        assert result.returncode == 2, argv
        assert result.stderr.strip().count("\n") == 0 and needle in result.stderr, result.stderr
    assert snapshot(vault) == before


def test_fill_matches_the_innermost_braces() -> None:
    assert fill("{{{a}}} {{a}", {"a": "x"}) == "{x} {{a}"
    assert fill("{{}} {{a}}}}", {"": "e", "a": "x"}) == "e x}}"
