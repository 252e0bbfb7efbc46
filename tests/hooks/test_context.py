"""``hook context``: which events it answers, the relevance rule, the answer's shape and budget."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hooks import events
from tests.hooks.conftest import IndexedVault, run_hook_process, subprocess_env
from vaultctx.config import load_config
from vaultctx.hooks import session
from vaultctx.hooks.__main__ import main as hook_main
from vaultctx.hooks.claude import HookOptions, run_hook, search_in_process
from vaultctx.hooks.context import (
    HOOK_MAX_TOKENS,
    MAX_TERMS,
    ContextRequest,
    Excerpt,
    Searcher,
    context_request,
    fitting,
    format_context,
    is_relevant,
    matched_terms,
    query_terms,
    relevant_excerpts,
    required_matches,
)
from vaultctx.search.request import SearchRequest

ROLLBACK_PROMPT = "How do we roll back the billing service deploy?"


@dataclass(frozen=True)
class FakePassage:
    citation: str = "notes/a.md#Section"
    title: str = "A"
    section: str = "Section"
    text: str = ""
    bm25_rank: int | None = 1


def test_user_prompt_is_searched() -> None:
    request = context_request(events.user_prompt_submit(ROLLBACK_PROMPT))
    assert request == ContextRequest("UserPromptSubmit", ROLLBACK_PROMPT)


@pytest.mark.parametrize("prompt", ["", "   ", "/clear", "/deploy staging"])
def test_empty_prompts_and_slash_commands_are_skipped(prompt: str) -> None:
    assert context_request(events.user_prompt_submit(prompt)) is None


def test_write_searches_the_file_name_and_content() -> None:
    event = events.pre_tool_use(
        "Write", events.write_input("/repo/src/rate_limiter.py", "class TokenBucket: ...")
    )
    request = context_request(event)
    assert request is not None and request.event == "PreToolUse"
    assert request.text.startswith("rate_limiter") and "TokenBucket" in request.text


def test_edit_searches_the_new_text_not_the_old() -> None:
    event = events.pre_tool_use(
        "Edit", events.edit_input("/repo/billing.py", "timeout = None", "timeout = PAYMENT_TIMEOUT")
    )
    request = context_request(event)
    assert request is not None
    assert "PAYMENT_TIMEOUT" in request.text and "None" not in request.text


def test_multi_edit_searches_every_new_string() -> None:
    tool_input = {
        "file_path": "/repo/a.py",
        "edits": [
            {"old_string": "x", "new_string": "alpha"},
            {"old_string": "y", "new_string": "beta"},
        ],
    }
    request = context_request(events.pre_tool_use("MultiEdit", tool_input))
    assert request is not None and "alpha" in request.text and "beta" in request.text


def test_bash_searches_the_command() -> None:
    request = context_request(
        events.pre_tool_use("Bash", events.bash_input("kubectl rollout undo"))
    )
    assert request == ContextRequest("PreToolUse", "kubectl rollout undo")


@pytest.mark.parametrize(
    "command",
    ["vaultctx index --vault ~/notes", "python -m vaultctx.hooks context", "x && vaultctx"],
)
def test_commands_running_vaultctx_are_skipped(command: str) -> None:
    assert context_request(events.pre_tool_use("Bash", events.bash_input(command))) is None


@pytest.mark.parametrize(
    "event",
    [
        events.pre_tool_use("Read", {"file_path": "/repo/a.py"}),
        events.pre_tool_use("Grep", {"pattern": "billing"}),
        events.pre_tool_use("Write", "not an object"),  # type: ignore[arg-type]
        events.post_tool_use_bash("ls", "a b c"),
        {"hook_event_name": "Stop", "stop_hook_active": False},
        {},
    ],
)
def test_other_events_get_no_context(event: dict[str, object]) -> None:
    assert context_request(event) is None


def test_query_terms_keep_distinctive_words_only() -> None:
    terms = query_terms("Please fix the function that rolls back the billing deploy, thanks 42")
    assert terms == ["rolls", "back", "billing", "deploy", "thanks"]


def test_query_terms_are_capped() -> None:
    text = " ".join(f"word{letter}x" for letter in "abcdefghijklmnopqrstuvwxyz")
    assert len(query_terms(text)) == MAX_TERMS


def test_korean_terms_are_kept() -> None:
    assert "형태소" in query_terms("형태소 분석기")


@pytest.mark.parametrize(("count", "required"), [(1, 1), (2, 2), (8, 2), (9, 3), (24, 3)])
def test_required_matches_grow_with_the_request(count: int, required: int) -> None:
    assert required_matches(count) == required


def test_word_endings_may_differ() -> None:
    passage = FakePassage(text="OAuth token rotation: rotate both tokens on every refresh.")
    assert matched_terms(["rotate", "tokens", "oauth", "kafka"], passage) == {
        "rotate",
        "tokens",
        "oauth",
    }


def test_a_passage_needs_a_keyword_hit() -> None:
    text = "Roll back the billing deploy with kubectl."
    assert is_relevant(["billing", "deploy"], FakePassage(text=text, bm25_rank=3))
    assert not is_relevant(["billing", "deploy"], FakePassage(text=text, bm25_rank=None))


def test_one_shared_word_is_not_enough_for_a_longer_request() -> None:
    passage = FakePassage(text="The billing service sends invoices.")
    assert not is_relevant(["billing", "kubernetes", "ingress"], passage)


def search_returning(*passages: FakePassage) -> Searcher:
    def search(request: SearchRequest) -> list[FakePassage]:
        return list(passages)

    return search


def test_excerpts_are_cut_flattened_and_scrubbed() -> None:
    long_text = "Billing deploy steps:\n\n  - step\n" + "more words " * 400
    secret = "Billing deploy uses AKIAZ7VRSQ5TJN2UEXAM for the bucket."
    search = search_returning(
        FakePassage("a.md#A", text=long_text), FakePassage("b.md", text=secret)
    )
    first, second = relevant_excerpts(search, "billing deploy")
    assert first.citation == "a.md#A" and first.text.startswith("Billing deploy steps: - step more")
    assert len(first.text) <= 900 and first.text.endswith("…")
    assert "AKIA" not in second.text and "[REDACTED:" in second.text


def test_irrelevant_and_vector_only_results_are_dropped() -> None:
    search = search_returning(
        FakePassage("a.md", text="Billing deploy notes.", bm25_rank=None),
        FakePassage("b.md", text="Gardening.", bm25_rank=1),
    )
    assert relevant_excerpts(search, "billing deploy") == []


def test_format_states_facts_with_citations_within_budget() -> None:
    excerpts = [Excerpt(f"n/{i}.md#Part {i}", "word " * 180) for i in range(8)]
    kept = fitting(excerpts, HOOK_MAX_TOKENS)
    assert 3 <= len(kept) < len(excerpts) and kept == excerpts[: len(kept)]
    text = format_context(kept)
    assert len(text) <= HOOK_MAX_TOKENS * 4
    assert "From your notes (n/0.md#Part 0): word" in text
    assert text.count("From your notes") == len(kept)


def test_format_of_nothing_is_empty() -> None:
    assert format_context([]) == ""


def test_in_process_search_finds_the_runbook(indexed_vault: IndexedVault) -> None:
    config = load_config(indexed_vault.vault, indexed_vault.db)
    excerpts = search_in_process(config, ROLLBACK_PROMPT)
    runbook = [
        e for e in excerpts if e.citation == "20-areas/engineering/On-call handbook.md#Rules"
    ]
    assert runbook and "Roll back first" in runbook[0].text


def test_in_process_search_finds_nothing_for_unrelated_text(indexed_vault: IndexedVault) -> None:
    config = load_config(indexed_vault.vault, indexed_vault.db)
    assert search_in_process(config, "quantum chromodynamics of gluon plasma") == []


def test_injected_context_is_scrubbed(indexed_vault: IndexedVault) -> None:
    config = load_config(indexed_vault.vault, indexed_vault.db)
    excerpts = search_in_process(config, "AWS access key for the billing staging environment")
    text = " ".join(e.text for e in excerpts)
    assert "[REDACTED:" in text and "AKIAZ7VRSQ5TJN2UEXAM" not in text


def test_hook_process_answers_with_the_documented_json(indexed_vault: IndexedVault) -> None:
    run = run_hook_process(
        indexed_vault.hook_args("context"),
        events.as_stdin(events.user_prompt_submit(ROLLBACK_PROMPT)),
    )
    assert run.returncode == 0 and run.stderr == ""
    answer = run.answer()
    assert set(answer) == {"hookSpecificOutput"}
    output = answer["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}
    assert output["hookEventName"] == "UserPromptSubmit"
    assert "On-call handbook.md#Rules" in output["additionalContext"]
    assert len(output["additionalContext"]) <= HOOK_MAX_TOKENS * 4


def test_hook_process_answers_pre_tool_use(indexed_vault: IndexedVault) -> None:
    event = events.pre_tool_use(
        "Edit",
        events.edit_input(
            "/repo/billing/invoice_job.py",
            "retries = 0",
            "retries = 3  # invoice job outage: payment provider timeouts",
        ),
    )
    run = run_hook_process(indexed_vault.hook_args("context"), events.as_stdin(event))
    output = run.answer()["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert "Postmortem - invoice job outage 2024-03-12.md" in output["additionalContext"]


def run_in_process(options: HookOptions, stdin: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_hook("context", options, io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def test_nothing_relevant_prints_nothing(indexed_vault: IndexedVault) -> None:
    event = events.user_prompt_submit("Write a function to calculate the factorial of a number")
    options = HookOptions(str(indexed_vault.vault), str(indexed_vault.db))
    assert run_in_process(options, events.as_stdin(event)) == (0, "", "")


PROMPT = events.as_stdin(events.user_prompt_submit(ROLLBACK_PROMPT))


@pytest.mark.parametrize(
    ("stdin", "problem", "message"),
    [
        ("not json", None, "invalid JSON"),
        ("[1, 2]", None, "expected a JSON object"),
        (PROMPT, "no index", "no index at"),
        (PROMPT, "no vault", "vault folder not found"),
    ],
)
def test_errors_never_fail_the_prompt(
    indexed_vault: IndexedVault, stdin: str, problem: str | None, message: str
) -> None:
    vault, db = indexed_vault.vault, indexed_vault.db
    if problem == "no index":
        db = db.parent / "no-such-index.db"
    if problem == "no vault":
        vault = vault.parent / "no-such-vault"
    code, out, err = run_in_process(HookOptions(str(vault), str(db)), stdin)
    assert code == 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_bad_command_line_never_fails_the_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    assert hook_main(["explode", "--nope"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "usage" in captured.err


def test_recursion_guard_makes_a_nested_hook_do_nothing(indexed_vault: IndexedVault) -> None:
    run = run_hook_process(
        indexed_vault.hook_args("context"),
        events.as_stdin(events.user_prompt_submit(ROLLBACK_PROMPT)),
        env=subprocess_env(VAULTCTX_HOOK_ACTIVE="1"),
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_a_session_is_not_given_the_same_notes_twice(indexed_vault: IndexedVault) -> None:
    options = HookOptions(str(indexed_vault.vault), str(indexed_vault.db))
    prompt = events.user_prompt_submit(ROLLBACK_PROMPT, session_id="session-one")
    first = run_in_process(options, events.as_stdin(prompt))
    assert "On-call handbook.md#Rules" in first[1]
    assert run_in_process(options, events.as_stdin(prompt)) == (0, "", "")
    other = events.user_prompt_submit(ROLLBACK_PROMPT, session_id="session-two")
    assert run_in_process(options, events.as_stdin(other))[1] == first[1]


def test_session_memory_fades(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    excerpts = [Excerpt("a.md#A", "alpha"), Excerpt("b.md", "beta")]
    session.remember(db, "s", excerpts[:1], now=1000.0)
    assert session.not_yet_injected(db, "s", excerpts, now=1001.0) == excerpts[1:]
    later = 1000.0 + session.REMEMBER_SECONDS
    assert session.not_yet_injected(db, "s", excerpts, now=later) == excerpts
    assert session.not_yet_injected(db, None, excerpts, now=1001.0) == excerpts
    changed = [Excerpt("a.md#A", "alpha, edited since")]
    assert session.not_yet_injected(db, "s", changed, now=1001.0) == changed


def test_output_is_ascii_json(indexed_vault: IndexedVault) -> None:
    options = HookOptions(str(indexed_vault.vault), str(indexed_vault.db))
    _, out, _ = run_in_process(options, events.as_stdin(events.user_prompt_submit("형태소 분석기")))
    assert out.isascii()
    assert "형태소" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
