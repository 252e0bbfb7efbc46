"""``vaultctx conversations ...``: output, export safety, errors as one line with exit 2, and
conversations surviving every way the index can be rebuilt."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from vaultctx.cli import conversation_cmds
from vaultctx.cli.main import app, run
from vaultctx.config import default_db_path
from vaultctx.conversations import ConversationStore, Message, conversations_path


def _cli(vault: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["conversations", *args, "--vault", str(vault)])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def _saved(vault: Path, title: str = "Database locks") -> str:
    with ConversationStore.open(vault) as store:
        chat = store.new(title, "ollama", "qwen3")
        store.append(
            chat.id,
            [
                Message("user", "Why did the database lock?"),
                Message("assistant", "A checkpoint held the zeppelin lock.", citations=["[[wal]]"]),
            ],
        )
        return chat.id


def test_list_search_show(vault: Path) -> None:
    chat_id = _saved(vault)
    code, out, _ = _cli(vault, "list")
    assert code == 0 and chat_id in out and "Database locks" in out and "2 msg" in out
    code, out, _ = _cli(vault, "list", "--json")
    assert json.loads(out) == [
        {**json.loads(out)[0], "id": chat_id, "title": "Database locks", "messages": 2}
    ]
    code, out, _ = _cli(vault, "search", "zeppelin")
    assert code == 0 and f"{chat_id}  Database locks" in out and "**zeppelin**" in out
    code, out, _ = _cli(vault, "search", "zeppelin", "--json")
    assert json.loads(out)[0]["id"] == chat_id
    code, out, _ = _cli(vault, "show", chat_id[:3])
    assert code == 0 and "## You" in out and "Sources:\n- [[wal]]" in out
    code, out, _ = _cli(vault, "show", chat_id, "--json")
    assert [m["role"] for m in json.loads(out)["messages"]] == ["user", "assistant"]


def test_reading_an_empty_vault_creates_nothing(vault: Path) -> None:
    code, out, err = _cli(vault, "list")
    assert code == 0 and out == "" and "no saved conversations" in err
    assert not conversations_path(vault).exists()


def test_rename_and_delete(vault: Path) -> None:
    chat_id = _saved(vault)
    assert _cli(vault, "rename", chat_id, "WAL lessons")[0] == 0
    assert "WAL lessons" in _cli(vault, "list")[1]
    code, _, err = _cli(vault, "delete", chat_id, "--yes")
    assert code == 0 and f"deleted {chat_id} (WAL lessons)" in err
    assert _cli(vault, "list", "--json")[1].strip() == "[]"


def test_export_to_stdout_parses_and_writes_nothing(vault: Path, tmp_path: Path) -> None:
    chat_id = _saved(vault)
    before = sorted(vault.rglob("*"))
    code, out, _ = _cli(vault, "export", chat_id)
    assert code == 0
    front = yaml.safe_load(out.split("---\n")[1])
    assert front["id"] == chat_id and front["messages"] == 2
    assert sorted(vault.rglob("*")) == before


def test_export_into_the_vault_only_when_asked_and_never_over_a_file(vault: Path) -> None:
    chat_id = _saved(vault)
    target = vault / "chats" / "locks.md"
    target.parent.mkdir()
    code, _, err = _cli(vault, "export", chat_id, "--out", str(target))
    assert code == 0 and "inside the vault: recorded" in err
    assert yaml.safe_load(target.read_text(encoding="utf-8").split("---\n")[1])["id"] == chat_id

    target.write_text("my own edits\n", encoding="utf-8")
    with pytest.raises(Exception, match="already exists") as raised:
        _cli(vault, "export", chat_id, "--out", str(target))
    assert "--force" in raised.value.suggestion  # type: ignore[attr-defined]
    assert target.read_text(encoding="utf-8") == "my own edits\n"

    # Inside the vault the replacement is a recorded change: undo brings the edits back.
    assert _cli(vault, "export", chat_id, "--out", str(target), "--force")[0] == 0
    assert target.read_text(encoding="utf-8").startswith("---\nid: ")
    assert not (target.parent / "locks.md.bak").exists()
    undone = CliRunner().invoke(app, ["undo", "--vault", str(vault)])
    assert undone.exit_code == 0, undone.output
    assert target.read_text(encoding="utf-8") == "my own edits\n"


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_export_refuses_a_symbolic_link(vault: Path, tmp_path: Path) -> None:
    chat_id = _saved(vault)
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH\n", encoding="utf-8")
    link = tmp_path / "out.md"
    link.symlink_to(victim)
    for extra in ([], ["--force"]):
        with pytest.raises(Exception, match="symbolic link"):
            _cli(vault, "export", chat_id, "--out", str(link), *extra)
    assert victim.read_text(encoding="utf-8") == "export PATH\n"


def _entry_point(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[object, str]:
    """The console script's ``run()`` in this process: (exit code, stderr)."""
    monkeypatch.setattr(sys, "argv", ["vaultctx", "conversations", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exited:
        run()
    return exited.value.code, capsys.readouterr().err


def _ambiguous(vault: Path) -> str:
    with ConversationStore.open(vault) as store:
        ids = [store.new(f"chat {n}", "b", "m").id for n in range(40)]
    return max("abcdefghijklmnopqrstuvwxyz234567", key=lambda c: sum(i[0] == c for i in ids))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "zzzz"], "no conversation with the id 'zzzz'"),
        (["show", "{ambiguous}"], "matches several conversations"),
        (["search", "  "], "nothing to search for"),
        (["export", "{id}", "--out", "{vault}/missing/x.md"], "does not exist; create it"),
        (["export", "{id}", "--out", "{vault}"], "is not a file"),
        (["list", "--vault", "{vault}/nowhere"], "vault folder not found"),
    ],
)
def test_errors_are_one_line_and_exit_two(
    vault: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    values = {"id": _saved(vault), "vault": str(vault), "ambiguous": ""}
    if any("{ambiguous}" in a for a in args):
        values["ambiguous"] = _ambiguous(vault)
    filled = [a.format(**values) for a in args]
    if "--vault" not in filled:
        filled += ["--vault", str(vault)]
    code, err = _entry_point(monkeypatch, capsys, *filled)
    assert code == 2, err
    assert err.startswith("error: ") and message in err and "; " in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_unwritable_location_is_an_error(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_id = _saved(vault)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if sys.platform == "win32" or os.geteuid() == 0:  # permissions would not stop the write

        def refuse(path: Path, data: str, **options: object) -> None:
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(conversation_cmds, "write_atomically", refuse)
    code, err = _entry_point(
        monkeypatch, capsys, "export", chat_id, "--out", str(locked / "x.md"), "--vault", str(vault)
    )
    assert code == 2 and "cannot write" in err


def test_a_foreign_store_file_is_refused_untouched(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import apsw

    path = conversations_path(vault)
    path.parent.mkdir(parents=True)
    conn = apsw.Connection(str(path))
    conn.execute("CREATE TABLE t(x); INSERT INTO t VALUES ('someone else''s data')")
    conn.close()
    before = path.read_bytes()
    for args in (["list"], ["search", "data"], ["show", "abcd"]):
        code, err = _entry_point(monkeypatch, capsys, *args, "--vault", str(vault))
        assert code == 2 and "not a vaultctx conversation store" in err and "move that file" in err
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_reindexing_never_touches_conversations(vault: Path) -> None:
    """`index --full`, a deleted index and a rebuilt one: the conversations stay as they were."""
    chat_id = _saved(vault)
    store_file = conversations_path(vault)
    before = store_file.read_bytes()
    runner = CliRunner()
    for _ in range(2):
        done = runner.invoke(app, ["index", "--full", "--vault", str(vault)])
        assert done.exit_code == 0, done.output
        assert default_db_path(vault).exists()
        default_db_path(vault).unlink()
    done = runner.invoke(app, ["index", "--vault", str(vault)])
    assert done.exit_code == 0, done.output
    assert store_file.read_bytes() == before
    code, out, _ = _cli(vault, "search", "zeppelin")
    assert code == 0 and chat_id in out
