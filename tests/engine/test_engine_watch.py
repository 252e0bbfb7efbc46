"""The engine keeps the vaults it holds indexed, and runs ``vaultctx index`` itself: an edit is
found without a manual index, a forwarded index prints what the in-process one prints, and a
vault whose folder disappears is dropped while the engine goes on."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_vault
from tests.engine.conftest import (
    ENGINE_NOTE,
    Indexed,
    by_engine,
    engine_answers,
    engine_env,
    rest,
    vaultctx,
    wait_for,
)
from tests.terminal_signals import ctrl_c_as_from_a_terminal
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

SECONDS = re.compile(r"\d+\.\d+(?= s\b)|(?<=\": )\d+\.\d+(?:e-?\d+)?")  # the run's own times


def paths(json_output: str) -> set[str]:
    return {hit["file_path"] for hit in json.loads(json_output)["results"]}


def watched(vault: Path) -> bool:
    """Whether the engine holds ``vault`` and its watcher has caught up."""
    try:
        _hello, answer = client.request({"op": "status"})
    except Exception:
        return False
    held = [v for v in answer.get("vaults", []) if v.get("vault") == str(vault)]
    return bool(held) and bool(held[0].get("watching"))


def held(vault: Path) -> bool:
    _hello, answer = client.request({"op": "status"})
    return any(v.get("vault") == str(vault) for v in answer.get("vaults", []))


def start_watching(indexed: Indexed) -> None:
    assert vaultctx(["engine", "start"]).returncode == 0
    wait_for(engine_answers, "the engine answers")
    assert by_engine(vaultctx(indexed.args("search", "vault", "--limit", "1")))
    wait_for(lambda: watched(indexed.vault), "the engine watches the vault")


def test_an_edited_note_is_found_through_the_engine(indexed: Indexed, folder: Path) -> None:
    start_watching(indexed)
    query = indexed.args("search", "zanzibarquokka", "--limit", "3", "--mode", "bm25", "--json")
    assert paths(vaultctx(query).stdout) == set()
    note = indexed.vault / "daily" / "2024-03-12.md"
    note.write_text(note.read_text() + "\nA zanzibarquokka lives here now.\n")
    (indexed.vault / "Quokka.md").write_text("# Quokka\n\nThe zanzibarquokka hops at dawn.\n")

    def found() -> bool:
        run = vaultctx(query)
        return by_engine(run) and {"Quokka.md", "daily/2024-03-12.md"} <= paths(run.stdout)

    wait_for(found, "a search through the engine finds the edited and the new note")


def test_a_forwarded_index_prints_the_in_process_output(indexed: Indexed, folder: Path) -> None:
    start_watching(indexed)
    assert vaultctx(indexed.args("index"), in_process=True).returncode == 0  # nothing left to do
    for args in (["index"], ["index", "--json"], ["index", "--fast", "-q"]):
        engine = vaultctx(indexed.args(*args))
        here = vaultctx(indexed.args(*args), in_process=True)
        assert by_engine(engine), engine.stderr
        assert engine.returncode == here.returncode == 0, engine.stderr
        assert SECONDS.sub("N", engine.stdout) == SECONDS.sub("N", here.stdout), args
        assert rest(engine) == rest(here), args
    assert watched(indexed.vault)  # paused for the run, watching again after


def test_an_index_through_the_engine_streams_its_progress(indexed: Indexed, folder: Path) -> None:
    """A real run prints its progress lines on stderr as it goes, before the run ends (pass 2
    of a full run takes seconds), and the same lines as in-process."""
    start_watching(indexed)
    child = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", *indexed.args("index", "--full")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=engine_env(),
    )
    assert child.stderr is not None
    first = child.stderr.readline()
    still_running = child.poll() is None
    out, err = child.communicate(timeout=600)
    assert child.returncode == 0 and ENGINE_NOTE in err, first + err
    assert re.fullmatch(r"indexing: \d+ files\n", first), first
    assert still_running, "the first progress line came only with the answer"
    assert re.search(r"^embedding \(pass 2\): \d+ chunks$", err, re.MULTILINE), err
    assert out.startswith("indexed in ")


def test_a_vault_whose_folder_disappears_is_dropped(tmp_path: Path, folder: Path) -> None:
    vault = make_vault(tmp_path / "gone", {"a.md": "# A\n\nA note about herons.\n"})
    db = tmp_path / "gone.db"
    args = ["--vault", str(vault), "--db", str(db)]
    assert vaultctx(["index", "--fast", *args], in_process=True).returncode == 0
    assert vaultctx(["engine", "start"]).returncode == 0
    wait_for(engine_answers, "the engine answers")
    assert by_engine(vaultctx(["search", "herons", *args]))
    wait_for(lambda: watched(vault), "the engine watches the vault")
    shutil.rmtree(vault)
    wait_for(lambda: not held(vault), "the engine drops the vault")
    assert engine_answers()
    log = (folder / runtime.LOG_NAME).read_text()
    assert f"{vault}: the vault's folder is gone; the engine dropped it" in log
    assert "Traceback" not in log


def test_engine_status_says_a_vault_is_watched(indexed: Indexed, folder: Path) -> None:
    start_watching(indexed)
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", "engine", "status"],
        capture_output=True,
        text=True,
        env=engine_env(),
        timeout=120,
    )
    assert f"warm: {indexed.vault} (index {indexed.db}), watched for changes" in done.stdout
    assert f"log {folder / runtime.LOG_NAME}\n" in done.stdout


def test_ctrl_c_stops_a_forwarded_index_keeping_its_work(tmp_path: Path, folder: Path) -> None:
    """The client interrupted mid-run: the engine notices within a heartbeat and stops the run
    as a first Ctrl-C does in-process (exit 130 in its log, pass 2 left for the next run),
    instead of finishing it unseen."""
    notes = {
        f"n{i:03}.md": f"# Note {i}\n\nThe keeper of lighthouse {i} logs storm {i * 7} at dusk.\n"
        for i in range(600)
    }
    vault = make_vault(tmp_path / "many", notes)
    args = ["--vault", str(vault), "--db", str(tmp_path / "many.db")]
    assert vaultctx(["index", "--fast", *args], in_process=True).returncode == 0  # pass 1 only
    assert vaultctx(["engine", "start"]).returncode == 0
    wait_for(engine_answers, "the engine answers")
    child = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", "index", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=engine_env(),
        preexec_fn=ctrl_c_as_from_a_terminal,
    )
    assert child.stderr is not None
    first = child.stderr.readline()  # pass 2 has begun in the engine
    assert first.startswith("embedding (pass 2): 600 chunks"), first
    child.send_signal(signal.SIGINT)
    _out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    log = folder / runtime.LOG_NAME
    wait_for(lambda: "index, exit 130" in log.read_text(), "the engine stops the run")
    status = vaultctx(["status", "--json", *args], in_process=True)
    held = json.loads(status.stdout)
    assert held["chunks"] == 600 and held["quality_vectors"] < 600  # stopped, not finished
    assert engine_answers()
