"""Start-up weight: what the hot entry points import, checked in fresh interpreters.

AI tools and scripts spawn ``vaultctx search``, ``vaultctx serve`` and the context hook over and
over, so their start-up is part of the interface (issues 3 and 4). Each test runs a new Python
process and lists the top-level modules it ended up importing; the heavy ones must appear only
where the work needs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.clean_env import clean_cli_env
from vaultctx.api import Vault
from vaultctx.cli.main import HOT_COMMANDS, app_for, build_app

HEAVY = {"numpy", "onnxruntime", "tokenizers", "model2vec", "mcp", "pydantic", "rich", "yaml"}
ENGINES = {"onnxruntime", "tokenizers", "model2vec"}

# Runs the CLI in this process, then prints the modules it imported.
RUN_CLI = """
import json, sys
from vaultctx.cli.main import run
sys.argv = ["vaultctx", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""

NOTES = {
    "keys.md": "# Key rotation\n\nRotate the deploy API keys every ninety days.\n",
    "garden.md": "# Garden\n\nTomatoes need sun, water and a stake against the wind.\n",
    "trains.md": "# Trains\n\nThe night train to Vienna leaves at ten and carries bicycles.\n",
}


def python(*args: str, stdin: str = "") -> str:
    env = clean_cli_env(inherit=False, PATH="/usr/bin:/bin", HOME=str(Path.home()))
    done = subprocess.run(
        [sys.executable, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def imported(*args: str, stdin: str = "") -> tuple[str, set[str]]:
    """The process's output before the module list, and the modules it imported (``a.b`` also
    counts as ``a``)."""
    output, _, modules = python(*args, stdin=stdin).rpartition("\nMODULES ")
    names = set(json.loads(modules))
    return output, names | {name.split(".")[0] for name in names}


def indexed_vault(root: Path, *, fast: bool) -> tuple[Path, Path]:
    vault = root / "vault"
    vault.mkdir()
    for name, text in NOTES.items():
        (vault / name).write_text(text, encoding="utf-8")
    db = root / "index.db"
    handle = Vault(vault, db=db)
    handle.index(fast=fast)
    handle.close()
    return vault, db


@pytest.fixture(scope="module")
def both_passes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return indexed_vault(tmp_path_factory.mktemp("both-passes"), fast=False)


@pytest.fixture(scope="module")
def first_pass_only(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return indexed_vault(tmp_path_factory.mktemp("first-pass"), fast=True)


def search_args(where: tuple[Path, Path], *extra: str) -> list[str]:
    vault, db = where
    return ["search", "rotate api keys", "--vault", str(vault), "--db", str(db), "--json", *extra]


def test_importing_the_cli_loads_no_heavy_library() -> None:
    _, modules = imported("-c", RUN_CLI.replace("run()", "pass"))
    assert modules.isdisjoint(HEAVY), modules & HEAVY


def test_a_hot_command_imports_only_its_own_family() -> None:
    probe = (
        "import json, sys\n"
        "from vaultctx.cli.main import app_for\n"
        "app_for(['vaultctx', 'search'])\n"
        "print('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n"
    )
    _, modules = imported("-c", probe)
    assert "vaultctx.cli.search_cmds" in modules
    others = {"index_cmds", "capture_cmds", "links_cmds", "verify_cmds", "serve_cmds", "hook_cmds"}
    assert modules.isdisjoint(f"vaultctx.cli.{name}" for name in others)
    assert modules.isdisjoint({"mcp", "onnxruntime", "model2vec", "rich", "vaultctx.index.indexer"})


@pytest.mark.parametrize("command", sorted(HOT_COMMANDS))
def test_a_hot_command_parses_as_in_the_whole_cli(command: str) -> None:
    runner = CliRunner()
    alone = runner.invoke(app_for(["vaultctx", command]), [command, "--help"])
    whole = runner.invoke(build_app(), [command, "--help"])
    assert alone.exit_code == whole.exit_code == 0, alone.output
    assert alone.output == whole.output


def test_keyword_search_loads_no_embedding_engine(both_passes: tuple[Path, Path]) -> None:
    output, modules = imported("-c", RUN_CLI, *search_args(both_passes, "--mode", "bm25"))
    assert json.loads(output)["results"][0]["file_path"] == "keys.md"
    assert modules.isdisjoint(ENGINES), modules & ENGINES
    # sqlite-vec is loaded as an extension without importing its package (which imports numpy).
    assert modules.isdisjoint({"numpy", "sqlite_vec"}), modules & {"numpy", "sqlite_vec"}


def test_hybrid_search_after_pass_two_skips_the_static_engine(
    both_passes: tuple[Path, Path],
) -> None:
    output, modules = imported("-c", RUN_CLI, *search_args(both_passes))
    best = json.loads(output)["results"][0]
    assert best["file_path"] == "keys.md" and best["vec_rank"] is not None
    assert "onnxruntime" in modules
    assert "vaultctx.embed.static" not in modules


def test_hybrid_search_after_pass_one_uses_the_static_engine(
    first_pass_only: tuple[Path, Path],
) -> None:
    output, modules = imported("-c", RUN_CLI, *search_args(first_pass_only))
    best = json.loads(output)["results"][0]
    assert best["file_path"] == "keys.md" and best["vec_rank"] is not None
    assert "vaultctx.embed.static" in modules and "tokenizers" in modules
    # The static engine is read without model2vec (and so without huggingface_hub).
    assert modules.isdisjoint({"model2vec", "huggingface_hub", "onnxruntime"}), modules


def test_the_context_hook_loads_neither_the_cli_nor_the_models(
    both_passes: tuple[Path, Path],
) -> None:
    vault, db = both_passes
    event = {
        "session_id": "startup-test",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "How often do we rotate the deploy API keys?",
    }
    probe = (
        "import json, sys\n"
        "from vaultctx.hooks.__main__ import main\n"
        "main(sys.argv[1:])\n"
        "print('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n"
    )
    args = ["context", "--vault", str(vault), "--db", str(db)]
    output, modules = imported("-c", probe, *args, stdin=json.dumps(event))
    assert "keys.md" in json.loads(output)["hookSpecificOutput"]["additionalContext"]
    assert modules.isdisjoint({"typer", "rich", "mcp", "pydantic", "numpy", *ENGINES}), modules


FORWARD_PROBE = """
import json, sys
from vaultctx.cli.entry import run
sys.argv = ["vaultctx", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def test_a_search_forwarded_to_a_running_server_imports_no_engine(tmp_path: Path) -> None:
    """With a server recorded for the index, ``vaultctx search`` (a Korean one too) is a few
    standard-library imports and one request: no typer, rich, numpy, sqlite-vec, MCP SDK,
    pydantic or Kiwi in the process."""
    import socket
    import threading

    from vaultctx.loopback import server_link

    answer = json.dumps({"protocol": 1, "stdout": "from the server\n", "stderr": "", "exit": 0})
    response = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(answer)}\r\n\r\n{answer}"
    ).encode()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                connection.sendall(response)

    threading.Thread(target=serve, daemon=True).start()
    vault = tmp_path / "vault"
    vault.mkdir()
    db = tmp_path / "index.db"
    server_link.write_server_state(db, "127.0.0.1", listener.getsockname()[1], "t")
    try:
        for query in ("rotate api keys", "배포 키 교체"):
            args = ["search", query, "--vault", str(vault), "--db", str(db)]
            output, modules = imported("-c", FORWARD_PROBE, *args)
            assert output == "from the server\n"
            heavy = {"typer", "rich", "numpy", "sqlite_vec", "mcp", "pydantic", "kiwipiepy"}
            assert modules.isdisjoint(heavy | ENGINES), modules & (heavy | ENGINES)
    finally:
        listener.close()


def mapped_libraries(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_serve_loads_models_only_after_the_handshake_and_kiwi_never_for_english(
    both_passes: tuple[Path, Path],
) -> None:
    """What ``vaultctx serve`` has loaded when its ``initialize`` answer is out, and once warm.

    The warm-up starts with the client's next message (mcp/server.py ``WarmUpAfterHandshake``),
    so at the answer no model runtime is mapped; ``obsidian_get_context`` waits for the warm-up,
    after which the transformer's runtime is there (the check can see a library) and Kiwi is not:
    these notes hold no Korean (index/hangul.py).
    """
    vault, db = both_passes
    env = clean_cli_env(inherit=False, PATH="/usr/bin:/bin", HOME=str(Path.home()))
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:

        def ask(message_id: int, method: str, params: dict[str, object]) -> dict[str, object]:
            assert process.stdin is not None and process.stdout is not None
            line = {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
            process.stdin.write(json.dumps(line).encode() + b"\n")
            process.stdin.flush()
            while True:
                answer: dict[str, object] = json.loads(process.stdout.readline())
                if answer.get("id") == message_id:
                    return answer

        client = {"name": "startup-test", "version": "0"}
        hello: dict[str, object] = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": client,
        }
        assert "result" in ask(1, "initialize", hello)
        at_handshake = mapped_libraries(process.pid)
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        process.stdin.flush()
        context = ask(
            2, "tools/call", {"name": "obsidian_get_context", "arguments": {"topic": "keys"}}
        )
        assert "keys.md" in json.dumps(context)
        warm = mapped_libraries(process.pid)
    finally:
        process.kill()
        process.wait()
    assert "onnxruntime" not in at_handshake and "kiwipiepy" not in at_handshake
    assert "onnxruntime" in warm
    assert "kiwipiepy" not in warm


# Issue 16: what each fast path may import. A no-op index run decides from the scan digest and
# loads no engine; status reads the index; neither may import the model runtimes, the agent, the
# Korean analyser or the progress bars (``--json``: no terminal).
NEVER_ON_A_FAST_PATH = {"pydantic_ai", "openai", "mcp", "kiwipiepy", "model2vec", "sqlite_vec"}
# pydantic: typer converts option values through it unless cli/fast_params finds them plain.
NO_OP = NEVER_ON_A_FAST_PATH | {"numpy", "onnxruntime", "tokenizers", "rich", "pydantic"}


def index_args(where: tuple[Path, Path], *extra: str) -> list[str]:
    vault, db = where
    return ["index", "--vault", str(vault), "--db", str(db), "--json", *extra]


@pytest.mark.parametrize("fixture", ["both_passes", "first_pass_only"])
def test_a_no_op_index_loads_no_engine(fixture: str, request: pytest.FixtureRequest) -> None:
    where: tuple[Path, Path] = request.getfixturevalue(fixture)
    # Pass 2 is complete in one and not wanted (--fast) in the other: both are no-ops.
    extra = ("--fast",) if fixture == "first_pass_only" else ()
    output, modules = imported("-c", RUN_CLI, *index_args(where, *extra))
    summary = json.loads(output)
    assert summary["files"]["unchanged"] == len(NOTES) and summary["chunks"]["written"] == 0
    assert modules.isdisjoint(NO_OP), modules & NO_OP
    # Only the index family's own module of the CLI: never the whole app.
    assert "vaultctx.cli.search_cmds" not in modules and "vaultctx.cli.agent_cmds" not in modules
    assert "vaultctx.brain.staleness" not in modules  # the Second Brain is off
    # Nothing changed, so nothing is prepared: no parser, chunker, YAML or worker pool.
    preparing = {"vaultctx.index.prepare", "vaultctx.index.parallel", "yaml", "multiprocessing"}
    assert modules.isdisjoint(preparing), modules & preparing
    # The run lock is flock itself on POSIX (index/run_lock.py): filelock cost ~10 ms to import.
    if os.name == "posix":
        assert "filelock" not in modules
    # No .indexignore: the default rules are answered without pathspec (vault/scanner.py).
    assert "pathspec" not in modules


def test_status_loads_no_engine(both_passes: tuple[Path, Path]) -> None:
    vault, db = both_passes
    args = ["status", "--vault", str(vault), "--db", str(db), "--json"]
    output, modules = imported("-c", RUN_CLI, *args)
    assert json.loads(output)["files"] == len(NOTES)
    assert modules.isdisjoint(NO_OP), modules & NO_OP
    assert "vaultctx.cli.index_cmds" in modules and "vaultctx.cli.search_cmds" not in modules


def test_an_english_search_loads_neither_the_agent_nor_kiwi(both_passes: tuple[Path, Path]) -> None:
    _, modules = imported("-c", RUN_CLI, *search_args(both_passes))
    assert modules.isdisjoint(NEVER_ON_A_FAST_PATH), modules & NEVER_ON_A_FAST_PATH
    unneeded = {"rich", "yaml", "pydantic", "pathspec", "filelock"}
    assert modules.isdisjoint(unneeded), modules & unneeded


def test_options_converted_without_pydantic_fail_as_typer_words_it(
    both_passes: tuple[Path, Path],
) -> None:
    """cli/fast_params converts plain values itself and hands the rest to typer: the errors are
    typer's own, and plain values arrive converted."""
    runner = CliRunner()
    app = app_for(["vaultctx", "search"])
    vault, db = both_passes
    where = ["--vault", str(vault), "--db", str(db)]
    for bad, message in [
        (["--limit", "abc"], "unable to parse string as an integer"),
        (["--limit", "0"], "greater than or equal to 1"),
        (["--limit", "-3"], "greater than or equal to 1"),
        (["--limit", "９"], "unable to parse string as an integer"),  # a full-width digit
    ]:
        result = runner.invoke(app, ["search", "keys", *where, *bad])
        words = " ".join(result.output.replace("│", " ").split())  # the box wraps lines
        assert result.exit_code == 2 and message in words, result.output
    result = runner.invoke(app, ["search", "rotate keys", *where, "--json", "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["results"]) == 1


def test_ask_reaches_the_backend_without_mcp_kiwi_or_the_transformer(
    first_pass_only: tuple[Path, Path], tmp_path: Path
) -> None:
    """Everything ``ask`` imported by the end of its run, so everything before the backend call
    too: the agent and its client library, but not the MCP SDK (no mcp.json), the Korean analyser
    (an English question) or the transformer runtime (the index has no pass-2 vectors)."""
    from tests.agent.cli_support import agent_env, openai_toml
    from tests.agent.fakes import Answer, OpenAIFake

    vault, db = first_pass_only
    with OpenAIFake() as fake:
        fake.queue(Answer("Rotate them every ninety days [keys.md]."))
        settings = "[agent]\n" + openai_toml(fake) + "translate = false\n"
        env = agent_env(tmp_path, settings, OPENAI_TEST="sk-test-0123456789abcdefghijklmnop")
        question = "How often do we rotate the deploy API keys?"
        args = ["ask", question, "--vault", str(vault), "--db", str(db)]
        done = subprocess.run(
            [sys.executable, "-c", RUN_CLI, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert len(fake.requests_to("/chat/completions")) == 1, done.stderr
    output, _, listed = done.stdout.rpartition("\nMODULES ")
    assert "ninety days" in output
    names = set(json.loads(listed))
    modules = names | {name.split(".")[0] for name in names}
    assert "pydantic_ai" in modules  # the probe sees the agent's imports
    unwanted = {"mcp", "kiwipiepy", "onnxruntime", "model2vec", "vaultctx.cli.index_cmds"}
    assert modules.isdisjoint(unwanted), modules & unwanted


def test_the_engines_model_hashes_need_no_model_load() -> None:
    """The hash a no-op index run checks is read from the model files' headers, and equals the
    hash of the loaded model (the index would otherwise be rebuilt, or mix two models)."""
    from vaultctx.embed.onnx import OnnxEmbedder
    from vaultctx.embed.static import StaticEmbedder

    onnx, static = OnnxEmbedder(), StaticEmbedder()
    light = (onnx.model_hash, static.model_hash)
    assert onnx._tokenizer is None and static._model is None  # nothing was loaded for them
    onnx._loaded_tokenizer()
    fresh_static = StaticEmbedder()
    fresh_static._loaded()
    assert light == (onnx.model_hash, fresh_static.model_hash)


# A one-shot command ends with os._exit once its output is flushed (cli/entry.py): the
# interpreter's teardown (every module, the ONNX session, BLAS threads) cost 30-100 ms.
EXIT_PROBE = """
import atexit, sys
atexit.register(lambda: print("TEARDOWN", flush=True))
from vaultctx.cli.entry import run
sys.argv = ["vaultctx", *sys.argv[1:]]
run()
"""


def entry_process(*args: str) -> subprocess.CompletedProcess[str]:
    env = clean_cli_env(inherit=False, PATH="/usr/bin:/bin", HOME=str(Path.home()))
    return subprocess.run(
        [sys.executable, "-c", EXIT_PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_one_shot_command_exits_after_its_whole_output_without_the_teardown(
    both_passes: tuple[Path, Path],
) -> None:
    done = entry_process(*search_args(both_passes, "--limit", "200"))
    assert done.returncode == 0, done.stderr
    assert "TEARDOWN" not in done.stdout
    assert json.loads(done.stdout)["results"][0]["file_path"] == "keys.md"  # flushed whole
    vault, db = both_passes
    done = entry_process("index", "--vault", str(vault), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files"]["unchanged"] == len(NOTES)


def test_a_one_shot_command_keeps_its_error_and_exit_code(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    missing = tmp_path / "none.db"
    done = entry_process("search", "keys", "--vault", str(vault), "--db", str(missing))
    assert done.returncode == 2
    assert "no index at" in done.stderr and "TEARDOWN" not in done.stdout


def test_other_commands_exit_normally(both_passes: tuple[Path, Path]) -> None:
    vault, db = both_passes
    done = entry_process("links", "keys.md", "--vault", str(vault), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("TEARDOWN")


@pytest.mark.parametrize(
    ("command", "preset", "expected"),
    [("search", None, "1"), ("context", None, "1"), ("search", "4", "4"), ("index", None, None)],
)
def test_search_starts_openblas_single_threaded_unless_the_user_chose(
    command: str,
    preset: str | None,
    expected: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """numpy's OpenBLAS starts one thread per core at import (60-100 ms of a cold search); a
    query multiplies no large matrix, so search and context start it with one."""
    import vaultctx.cli.main
    from vaultctx.cli import entry

    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "recorded, so the test's change is undone")
    if preset is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    seen: list[str | None] = []

    def in_process(forwarding: bool = True) -> None:
        seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))

    monkeypatch.setattr(vaultctx.cli.main, "run", in_process)
    monkeypatch.setattr(entry, "forward", lambda arguments: None)
    monkeypatch.setattr(sys, "argv", ["vaultctx", command, "topic"])
    entry.run()
    assert seen == [expected]
