"""The server's remembered last scrub (mcp/scrubbed.py): the same text as the scrubber's, and a
memory bounded by characters however many distinct strings pass."""

from __future__ import annotations

import threading

from vaultctx.mcp.scrubbed import ScrubMemory
from vaultctx.scrub import scrub_secrets

TOKEN = "ghp_" + "x9K2mQ7vL4pR8sT1wY6zB3nD5fH0jC2aE7gU"


def test_a_remembered_text_is_the_scrubbers_text_every_time() -> None:
    memory = ScrubMemory()
    texts = [f"deploy with {TOKEN}", "plain words", "", f"{TOKEN}\n{TOKEN}", "café ünïcode"]
    for _ in range(3):
        assert [memory.scrubbed(t) for t in texts] == [scrub_secrets(t).text for t in texts]
    assert len(memory) == len(texts)
    assert all(TOKEN not in memory.scrubbed(t) for t in texts)


def test_the_memory_stays_within_its_budget_least_recently_used_first_out() -> None:
    memory = ScrubMemory(budget_chars=100, longest_chars=40)
    for n in range(50):
        memory.scrubbed(f"passage number {n:04d}")  # 19 characters each
        assert memory.chars <= 100
    assert len(memory) == 100 // 19
    memory.scrubbed("passage number 0046")  # used again: now the newest
    memory.scrubbed("another passage here")
    assert memory.scrubbed("passage number 0046") == "passage number 0046"
    assert len(memory) == 100 // 19


def test_a_redacted_text_counts_both_its_forms() -> None:
    memory = ScrubMemory()
    text = f"key {TOKEN}"
    memory.scrubbed(text)
    assert memory.chars == len(text) + len(scrub_secrets(text).text)


def test_a_text_longer_than_the_limit_is_scrubbed_and_never_kept() -> None:
    memory = ScrubMemory(budget_chars=1000, longest_chars=30)
    long_text = f"a long passage that ends with {TOKEN}"
    assert memory.scrubbed(long_text) == scrub_secrets(long_text).text
    assert len(memory) == 0 and memory.chars == 0
    assert memory.scrubbed("short") == "short" and len(memory) == 1


def test_the_longest_kept_text_fits_the_budget_twice() -> None:
    memory = ScrubMemory(budget_chars=60, longest_chars=1000)
    memory.scrubbed("x" * 31)
    assert len(memory) == 0
    memory.scrubbed("y" * 30)
    assert len(memory) == 1


def test_threads_share_one_memory_and_each_gets_the_scrubbed_text() -> None:
    memory = ScrubMemory(budget_chars=2000, longest_chars=200)
    texts = [f"note {n} holds {TOKEN}" for n in range(40)]
    expected = [scrub_secrets(t).text for t in texts]
    wrong: list[str] = []

    def work() -> None:
        for _ in range(20):
            for text, clean in zip(texts, expected, strict=True):
                if memory.scrubbed(text) != clean:
                    wrong.append(text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert memory.chars <= 2000
