"""Claude Code hooks: ``hook context`` injects vault context, ``hook compress`` shrinks test logs.

Both read the hook event JSON Claude Code writes to stdin and answer with the JSON its hooks
reference documents (``hookSpecificOutput``). A hook runs inside the user's session, so it must
never get in the way: whatever goes wrong, it exits 0 with nothing on stdout and one line on
stderr (an exit code of 2 would block the prompt or the tool call).

``hook context`` asks a running ``vaultctx serve --http`` for the same vault when there is one
(found through ``server_link``), else searches the index in-process with BM25 only: loading the
embedding models would cost more than the hook's whole time budget.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TextIO

from vaultctx.config import Config, load_config
from vaultctx.db_location import local_anchor
from vaultctx.errors import VaultctxError
from vaultctx.hooks import session
from vaultctx.hooks.context import (
    Excerpt,
    context_request,
    fitting,
    format_context,
    relevant_excerpts,
)
from vaultctx.loopback import server_link

if TYPE_CHECKING:
    from vaultctx.search.request import SearchRequest

HookKind = Literal["context", "compress", "capture"]
GUARD_ENV = "VAULTCTX_HOOK_ACTIVE"
SERVER_TIMEOUT_SECONDS = 5.0
_OWN_COMMAND_WORDS = ("vaultctx hook", "vaultctx.hooks")


class HookOptions(NamedTuple):
    vault: str | None = None
    db: str | None = None
    # A warm vault's own search for a text (the engine's), instead of a server's or this
    # process's keyword search.
    excerpts: Callable[[str], list[Excerpt]] | None = None


class HookInputError(VaultctxError):
    """Standard input did not hold a hook event."""


_HOOK_INPUT_ADVICE = "run it as a Claude Code hook, which writes the event JSON to standard input"


def enter_hook_process() -> bool:
    """False when this process was started from inside a vaultctx hook (it must do nothing);
    else marks the environment so that nothing this hook starts can re-enter it."""
    if os.environ.get(GUARD_ENV):
        return False
    os.environ[GUARD_ENV] = "1"
    return True


def run_hook(
    kind: HookKind, options: HookOptions, stdin: TextIO, stdout: TextIO, stderr: TextIO
) -> int:
    """Answer one hook event; always returns 0 (see the module docstring for why)."""
    try:
        event = read_event(stdin)
        if kind == "context":
            answer = context_answer(event, options, stderr)
        elif kind == "capture":
            from vaultctx.hooks.capture_hook import capture_answer

            capture_answer(event, options.vault, options.db)  # nothing for Claude to read
            answer = None
        else:
            answer = compress_answer(event)
    except Exception as exc:
        problem = (
            exc.one_line() if isinstance(exc, VaultctxError) else f"{type(exc).__name__}: {exc}"
        )
        message = " ".join(problem.split())
        print(f"vaultctx hook {kind}: {message[:300]}", file=stderr)
        return 0
    if answer is not None:
        # ASCII-only JSON survives any console encoding the hook's stdout may have.
        stdout.write(json.dumps(answer) + "\n")
    return 0


def read_event(stdin: TextIO) -> dict[str, Any]:
    raw = stdin.read()
    try:
        event = json.loads(raw)
    except ValueError as exc:
        raise HookInputError(
            f"stdin is not a hook event (invalid JSON: {exc})", _HOOK_INPUT_ADVICE
        ) from exc
    if not isinstance(event, dict):
        raise HookInputError(
            "stdin is not a hook event (expected a JSON object)", _HOOK_INPUT_ADVICE
        )
    return event


def context_answer(
    event: Mapping[str, Any], options: HookOptions, stderr: TextIO = sys.stderr
) -> dict[str, Any] | None:
    """The hook output adding vault context, or None when the event needs none or none is found.

    Excerpts this session was given in the last half hour are left out (``hooks.session``).
    """
    request = context_request(event)
    if request is None:
        return None
    config = load_config(options.vault, options.db)
    session_id = event.get("session_id") if isinstance(event.get("session_id"), str) else None
    if options.excerpts is not None:
        excerpts = options.excerpts(request.text)
    else:
        excerpts = fetch_excerpts(config, request.text, stderr)
    fresh = fitting(session.not_yet_injected(local_anchor(config.db), session_id, excerpts))
    if not fresh:
        return None
    session.remember(local_anchor(config.db), session_id, fresh)
    context = format_context(fresh)
    return {"hookSpecificOutput": {"hookEventName": request.event, "additionalContext": context}}


def fetch_excerpts(config: Config, text: str, stderr: TextIO = sys.stderr) -> list[Excerpt]:
    """From the running server when there is one, else from the index in this process."""
    server = server_link.find_server(local_anchor(config.db))
    if server is not None:
        try:
            answer = server_link.post_json(
                server, server_link.HOOK_CONTEXT_PATH, {"text": text}, SERVER_TIMEOUT_SECONDS
            )
            return _excerpts_from(answer)
        except server_link.ServerUnavailableError:
            pass  # a stale record: the server has stopped
        except (server_link.ServerRefusedError, ValueError) as exc:
            print(f"vaultctx hook context: {exc}; searching in-process", file=stderr)
    return search_in_process(config, text)


def _excerpts_from(answer: Any) -> list[Excerpt]:
    items = answer.get("excerpts") if isinstance(answer, dict) else None
    if not isinstance(items, list) or not all(
        isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)
        for item in items
    ):
        raise ValueError(f"unexpected answer from the server: {str(answer)[:200]}")
    return [Excerpt(citation, text) for citation, text in items]


def search_in_process(config: Config, text: str) -> list[Excerpt]:
    """Keyword search only, so no embedding model has to load on the hook's clock."""
    from vaultctx.index.db import open_index
    from vaultctx.search.ignored_results import ignored_now, search_without_ignored
    from vaultctx.search.retriever import Retriever

    db = open_index(config.db, readonly=True)
    try:
        retriever = Retriever(db, None)
        # The index may still hold a note ignored since it was indexed (as Vault.search).
        ignored = ignored_now(config.vault, config.settings.ignore)

        def keyword_search(request: SearchRequest) -> list[Any]:
            response = retriever.search(replace(request, mode="bm25"))
            return list(search_without_ignored(response, ignored).results)

        return relevant_excerpts(keyword_search, text)
    finally:
        db.close()


def compress_answer(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """Shrink a long test run's output after a Bash call; None when there is nothing to shrink.

    PostToolUse replaces what Claude sees with ``updatedToolOutput`` (same shape as the tool's
    own response) and repeats the counts as ``additionalContext`` for Claude Code versions that
    ignore the replacement. A failed command fires PostToolUseFailure, whose output cannot be
    replaced: there the counts and the failing tests are added as context.
    """
    from vaultctx.hooks.compress import compress_test_output

    if event.get("tool_name") != "Bash":
        return None
    tool_input = event.get("tool_input")
    command = tool_input.get("command", "") if isinstance(tool_input, Mapping) else ""
    if isinstance(command, str) and any(word in command for word in _OWN_COMMAND_WORDS):
        return None
    name = event.get("hook_event_name")
    if name == "PostToolUse":
        return _compressed_response(event.get("tool_response"))
    if name == "PostToolUseFailure":
        error = event.get("error")
        result = compress_test_output(error) if isinstance(error, str) else None
        if result is None:
            return None
        _, summary = result
        failures = "".join(f"\n  {name}" for name in dict.fromkeys(summary.failures))
        note = f"vaultctx test summary: {summary.headline()}" + (
            f"\nFailed:{failures}" if failures else ""
        )
        return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": note}}
    return None


def _compressed_response(response: Any) -> dict[str, Any] | None:
    from vaultctx.hooks.compress import compress_test_output

    if isinstance(response, Mapping):
        if response.get("interrupted") or response.get("isImage"):
            return None
        streams = [response.get(key) for key in ("stdout", "stderr")]
        text = "\n".join(s for s in streams if isinstance(s, str) and s)
    elif isinstance(response, str):
        text = response
    else:
        return None
    result = compress_test_output(text)
    if result is None:
        return None
    compressed, summary = result
    updated: Any = (
        {**response, "stdout": compressed, "stderr": ""}
        if isinstance(response, Mapping)
        else compressed
    )
    return {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": updated,
            "additionalContext": f"vaultctx test summary: {summary.headline()}",
        }
    }
