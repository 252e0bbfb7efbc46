"""``vaultctx todo``: the plan as pure functions, the run over real vaults, the CLI as a process."""

from __future__ import annotations

import json
import subprocess
import tempfile
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx
from vaultctx.api import Vault
from vaultctx.config import ConfigError
from vaultctx.errors import VaultctxError
from vaultctx.organize.todo import (
    FALLBACK_TEMPLATE,
    TodoSettings,
    note_date,
    plan_todo,
    run_todo,
)

TODAY = date(2026, 12, 1)
PREV = "ToDo/2026-11-30 To-Do.md"
NEW = "ToDo/2026-12-01 To-Do.md"


@pytest.fixture(autouse=True)
def private_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger and the user's settings in tmp, never the caller's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def plan_for(previous: str, template: str | None = None) -> str:
    content = plan_todo(TODAY, {PREV: previous}, template=template).content
    assert content is not None
    return content


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        path.relative_to(root).as_posix(): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }


def write(root: Path, notes: dict[str, str | bytes]) -> Path:
    for relative, content in notes.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
    return root


# -- the plan ----------------------------------------------------------------------------------


def test_note_names_current_and_old() -> None:
    assert note_date("2026-12-01 To-Do.md") == date(2026, 12, 1)
    assert note_date("2026-12-01.md") == date(2026, 12, 1)
    assert note_date("2026-13-01.md") is None
    assert note_date("Plan.md") is None
    assert note_date("2026-12-01 To-Do.md.bak") is None


def test_fallback_template_without_an_earlier_note() -> None:
    plan = plan_todo(TODAY, {})
    assert plan.path == NEW
    assert plan.content == FALLBACK_TEMPLATE.replace("{{date}}", "2026-12-01")
    assert plan.source is None and plan.carried == 0


def test_unfinished_items_carry_with_their_sub_items() -> None:
    previous = (
        "# 2026-11-30\n\n## To-Do\n\n"
        "- [ ] write report\n"
        "  - [x] outline\n"
        "  - [ ] draft\n"
        "\t- tab-indented note\n"
        "    - [ ] deeper\n"
        "- [x] done thing\n"
        "  - [ ] sub of a done item\n"
        "- [ ] \n"
        "- [ ]\n"
        "* [ ] star item\n"
        "- [-] cancelled\n"
        "\n"
        "  - [ ] indented after a blank line\n"
    )
    content = plan_for(previous)
    carried = content.split("## 🔄 Carry Over\n\n", 1)[1]
    assert carried == (
        "- [ ] write report\n  - [x] outline\n  - [ ] draft\n\t- tab-indented note\n"
        "    - [ ] deeper\n* [ ] star item\n"
    )
    assert plan_todo(TODAY, {PREV: previous}).carried == 2


def test_two_subsections_map_to_same_named_ones() -> None:
    previous = (
        "## ✅ 할 일\n\n### 🏢 업무\n\n- [ ] 보고서\n  - [ ] 표\n- [x] 끝\n\n"
        "### 🏠 개인\n\n- [ ] 장보기\n\n## 🔄 이전 미완료\n\n- [ ] 예전 일\n"
    )
    template = (
        "# {{date}}\n\n## ✅ 할 일\n\n### 🏢 업무\n\n- [ ] \n\n### 🏠 개인\n\n"
        "## 🔄 이전 미완료\n\n## 📝 메모 / 노트\n"
    )
    assert plan_for(previous, template) == (
        "# 2026-12-01\n\n## ✅ 할 일\n\n### 🏢 업무\n\n- [ ] 보고서\n  - [ ] 표\n\n"
        "### 🏠 개인\n\n- [ ] 장보기\n\n## 🔄 이전 미완료\n\n- [ ] 예전 일\n\n## 📝 메모 / 노트\n"
    )


def test_one_subsection_goes_under_the_carry_over_heading() -> None:
    previous = "## To-Do\n\n### Work\n\n- [ ] task\n"
    template = "# {{date}}\n\n## To-Do\n\n### Work\n\n- [ ] \n\n## Unfinished\n\n## Notes\n"
    assert plan_for(previous, template) == (
        "# 2026-12-01\n\n## To-Do\n\n### Work\n\n- [ ] \n\n## Unfinished\n\n- [ ] task\n\n"
        "## Notes\n"
    )


def test_a_subsection_the_template_lacks_falls_back_to_carry_over() -> None:
    previous = "## Tasks\n\n### A\n\n- [ ] one\n\n### B\n\n- [ ] two\n"
    content = plan_for(previous, "# {{date}}\n\n## Tasks\n\n### A\n")
    assert (
        content
        == "# 2026-12-01\n\n## Tasks\n\n### A\n\n- [ ] one\n\n## 🔄 Carry Over\n\n- [ ] two\n"
    )


def test_user_template_variables() -> None:
    content = plan_for("", "# {{date}} (after {{prevDate}}) {{other}}\n")
    assert content == "# 2026-12-01 (after 2026-11-30) {{other}}\n"


def test_prev_date_is_yesterday_not_the_earlier_note() -> None:
    notes = {"ToDo/2026-11-20 To-Do.md": "- [ ] old\n"}
    content = plan_todo(TODAY, notes, template="{{prevDate}}\n").content
    assert content is not None and content.startswith("2026-11-30\n")


def test_dated_memos_carry_when_today_or_later() -> None:
    previous = (
        "## 📝 메모 / 노트\n\n"
        "- 2026-12-01 dentist\n"
        "- 2026-11-30 yesterday's\n"
        "- 12/5(목) 회의\n"
        "- 12월 24일 파티\n"
        "- 12/9\n"
        "- no date here\n"
        "- 2/30 impossible date\n"
    )
    plan = plan_todo(TODAY, {PREV: previous}, template="## To-Do\n\n## 📝 메모 / 노트\n")
    assert plan.content == (
        "## To-Do\n\n## 📝 메모 / 노트\n\n- 2026-12-01 dentist\n- 12/5(목) 회의\n- 12월 24일 파티\n"
    )
    assert plan.memos == 3


def test_latest_earlier_note_is_the_source_old_names_too() -> None:
    notes = {
        "ToDo/2026-11-28 To-Do.md": "- [ ] from the 28th\n",
        "ToDo/2026-11-29.md": "- [ ] from the 29th\n",
        "ToDo/2026-12-02 To-Do.md": "- [ ] from the future\n",
    }
    plan = plan_todo(TODAY, notes)
    assert plan.source == "ToDo/2026-11-29.md"
    assert plan.content is not None and "from the 29th" in plan.content
    assert "28th" not in plan.content and "future" not in plan.content


def test_an_old_style_note_for_today_counts_as_today() -> None:
    plan = plan_todo(TODAY, {"ToDo/2026-12-01.md": "x\n", PREV: "- [ ] a\n"})
    assert plan.content is None


def test_malformed_checkboxes_are_reported_not_carried() -> None:
    previous = (
        "## To-Do\r\n\r\n"
        "-[ ] no space\r\n"
        "- [  ] two spaces\r\n"
        "-\t[ ] tab\r\n"
        "- [ ]glued\r\n"
        "* [x] done star\r\n"
        "- [ ] good one\r\n"
        "## A heading inside the items\r\n"
        "  - [ ] orphan sub-item\r\n"
    )
    plan = plan_todo(TODAY, {PREV: previous})
    assert plan.unrecognised == [3, 4, 5, 6]
    assert plan.carried == 1
    assert plan.content is not None
    assert plan.content.endswith("## 🔄 Carry Over\n\n- [ ] good one\n")
    assert "\r" not in plan.content


def test_checkboxes_in_code_and_front_matter_are_not_items() -> None:
    previous = "---\ntags: [todo]\n- [ ] yaml\n---\n```\n- [ ] code\n```\n- [ ] real\n"
    content = plan_for(previous)
    assert "yaml" not in content and "code" not in content and "- [ ] real" in content


def test_archive_boundary_is_exactly_archive_days() -> None:
    notes = {
        "ToDo/2026-11-24 To-Do.md": "",  # today - 7: kept
        "ToDo/2026-11-23 To-Do.md": "",  # before it: archived
        "ToDo/2026-11-01.md": "",
        "ToDo/2026-11-02.md": "",
    }
    plan = plan_todo(TODAY, notes, archived={"2026-11-02.md"})
    assert plan.archive == [
        ("ToDo/2026-11-01.md", "ToDo/Archive/2026-11-01.md"),
        ("ToDo/2026-11-23 To-Do.md", "ToDo/Archive/2026-11-23 To-Do.md"),
    ]
    assert plan.skipped == ["ToDo/2026-11-02.md"]
    custom = TodoSettings(archive_days=1, archive_folder="Old")
    moved = plan_todo(TODAY, notes, settings=custom).archive
    assert ("ToDo/2026-11-24 To-Do.md", "Old/2026-11-24 To-Do.md") in moved


# -- settings ----------------------------------------------------------------------------------


def test_settings_from_the_vaults_toml(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"vaultctx.toml": '[todo]\nfolder = "Daily"\narchive_days = 3\n'})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        run = run_todo(handle, TODAY)
    assert run.plan.path == "Daily/2026-12-01 To-Do.md"
    assert (vault / "Daily/2026-12-01 To-Do.md").is_file()


@pytest.mark.parametrize(
    "toml",
    ['[todo]\nfolder = "../out"\n', "[todo]\narchive_days = 0\n", "[todo]\nfolders = 1\n"],
)
def test_bad_settings_are_config_errors(tmp_path: Path, toml: str) -> None:
    vault = write(tmp_path / "v", {"vaultctx.toml": toml})
    with Vault(vault, db=tmp_path / "i.db") as handle, pytest.raises(ConfigError):
        run_todo(handle, TODAY)


# -- the run -----------------------------------------------------------------------------------


def test_run_is_idempotent_and_one_undo_removes_the_note(tmp_path: Path) -> None:
    vault = write(
        tmp_path / "v",
        {PREV: "## To-Do\n\n- [ ] a\n", "ToDo/2026-11-01.md": "old\n", "Home.md": "hi\n"},
    )
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        first = run_todo(handle, TODAY)
        assert first.plan.content is not None and len(first.records) == 1
        after_first = snapshot(vault)
        records = len(handle.ledger(100))
        second = run_todo(handle, TODAY)
        assert second.plan.content is None and second.records == []
        assert snapshot(vault) == after_first
        assert len(handle.ledger(100)) == records
        assert (vault / "ToDo/Archive/2026-11-01.md").exists()
        handle.undo()
        assert not (vault / NEW).exists()
    assert snapshot(vault) == before


def test_todo_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"ToDo": "not a folder\n"})
    with Vault(vault, db=tmp_path / "i.db") as handle, pytest.raises(VaultctxError) as error:
        run_todo(handle, TODAY)
    assert "ToDo is a file, not a folder" in error.value.message
    assert "[todo] folder" in error.value.suggestion
    assert (vault / "ToDo").read_text() == "not a folder\n"


def test_crlf_note_is_left_byte_for_byte(tmp_path: Path) -> None:
    old = b"## To-Do\r\n\r\n- [ ] a\r\n  - [ ] b\r\n- [x] c\r\n"
    vault = write(tmp_path / "v", {PREV: old})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        run_todo(handle, TODAY)
    assert (vault / PREV).read_bytes() == old
    assert (
        (vault / NEW)
        .read_bytes()
        .endswith(b"## \xf0\x9f\x94\x84 Carry Over\n\n- [ ] a\n  - [ ] b\n")
    )


def test_template_is_read_from_the_vault(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Templates/Daily To-Do.md": "# {{date}} / {{prevDate}}\n"})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        run_todo(handle, TODAY)
    assert (vault / NEW).read_text(encoding="utf-8") == "# 2026-12-01 / 2026-11-30\n"


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {PREV: "- [ ] a\n", "ToDo/2026-11-01.md": "old\n"})
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        run = run_todo(handle, TODAY, dry_run=True)
        assert handle.ledger() == []
    assert run.plan.carried == 1 and run.plan.archive
    assert snapshot(vault) == before


# A previous note: lines made of the characters that matter to the parser.
_LINE = st.text(alphabet=st.sampled_from(list("-*+[] x\t#\r/12가ab`")), max_size=12)
_PREVIOUS = st.lists(
    st.one_of(
        _LINE,
        st.sampled_from(["- [ ] task", "  - [ ] sub", "## To-Do", "### A", "### B", "## Notes"]),
    ),
    max_size=12,
).map("\n".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(previous=_PREVIOUS)
def test_the_previous_note_is_never_altered(previous: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        old = previous.encode("utf-8")
        vault = write(root / "v", {PREV: old})
        with Vault(vault, db=root / "i.db") as handle:
            run = run_todo(handle, TODAY)
        assert (vault / PREV).read_bytes() == old
        # Bytes, not read_text: universal newlines would split a line at a lone "\r" it carries.
        new_lines = (vault / NEW).read_bytes().decode("utf-8").split("\n")
        old_lines = [line.removesuffix("\r") for line in previous.split("\n")]
        carried = new_lines[new_lines.index("## 🔄 Carry Over") + 2 :] if run.plan.carried else []
        assert all(line in old_lines for line in carried if line)


# -- the command -------------------------------------------------------------------------------


def run_cli(tmp_path: Path, vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_cli_env(tmp_path)
    words = [*args, "--vault", str(vault), "--db", str(tmp_path / "index.db")]
    return run_vaultctx(words, env=env)


def test_cli_twice_then_undo(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {PREV: "## 할 일\n\n- [ ] 보고서\n  - [x] 초안\n"})
    before = snapshot(vault)
    first = run_cli(tmp_path, vault, "todo", "--date", "2026-12-01", "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["path"] == NEW and report["created"] is True
    assert report["carried"] == 1 and report["archived"] == []
    after = snapshot(vault)
    second = run_cli(tmp_path, vault, "todo", "--date", "2026-12-01", "--json")
    assert (
        json.loads(second.stdout)["created"] is False and json.loads(second.stdout)["records"] == []
    )
    assert snapshot(vault) == after
    ledger = run_cli(tmp_path, vault, "ledger", "--json")
    records = json.loads(ledger.stdout)
    assert len(records) == 1 and records[0]["source"] == "cli"
    undo = run_cli(tmp_path, vault, "undo")
    assert undo.returncode == 0, undo.stderr
    assert snapshot(vault) == before


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"ToDo": "x"})
    result = run_cli(tmp_path, vault, "todo")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "is a file, not a folder" in result.stderr
    bad_date = run_cli(tmp_path, vault, "todo", "--date", "12/01/2026")
    assert bad_date.returncode == 2 and "YYYY-MM-DD" in bad_date.stderr


def test_undo_removes_the_folder_the_run_created(tmp_path: Path) -> None:
    vault = write(tmp_path / "v", {"Home.md": "hi\n"})
    before = snapshot(vault)
    with Vault(vault, db=tmp_path / "i.db") as handle:
        run_todo(handle, TODAY)
        assert (vault / NEW).is_file()
        handle.undo()
    assert snapshot(vault) == before
