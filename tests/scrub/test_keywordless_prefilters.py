"""Prefilters of keyword-less rules (scrubber.KEYWORDLESS_PREFILTERS) lose nothing.

Such a rule runs on every text, so each may name a piece of its own pattern that every match
must contain; the rule is skipped where the piece is absent. The piece must be a top-level,
unconditional part of the rule's regex (so every match contains it), which is checked on the
pattern text itself, and scrubbing with and without the prefilters must agree.
"""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.scrub import compiled_rules, scrub_secrets
from vaultctx.scrub.scrubber import KEYWORDLESS_PREFILTERS

ALNUM = string.ascii_letters + string.digits
TOKEN = ALNUM + "_-"


def fake_discord_token(seed: int) -> str:
    rng = random.Random(seed)
    first = rng.choice("MNO") + "".join(rng.choice(TOKEN) for _ in range(rng.randint(23, 25)))
    middle = "".join(rng.choice(TOKEN) for _ in range(6))
    last = "".join(rng.choice(TOKEN) for _ in range(rng.randint(27, 38)))
    return f"{first}.{middle}.{last}"


def _top_level_parts(pattern: str) -> bool:
    """True if the pattern has no alternation outside groups and character classes: then any
    contiguous run of its top-level atoms is part of every match."""
    depth, in_class, escaped = 0, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return False
    return True


@pytest.mark.parametrize("name", sorted(KEYWORDLESS_PREFILTERS))
def test_each_prefilter_is_a_top_level_piece_of_its_rule(name: str) -> None:
    rules = {rule.name: rule for rule in compiled_rules().rules}
    assert name in rules, f"{name} is no longer a rule: drop its prefilter"
    assert not rules[name].keywords, "prefilters are only for rules without keywords"
    pattern = rules[name].regex.pattern
    piece = KEYWORDLESS_PREFILTERS[name]
    assert piece in pattern
    assert _top_level_parts(pattern)
    before, after = pattern.split(piece, 1)
    # Not inside a group: as many "(" as ")" before the piece.
    assert before.count("(") - before.count("\\(") == before.count(")") - before.count("\\)")
    # Not quantified: what follows does not start with a quantifier.
    assert not re.match(r"[?*+{]", after)


def test_every_keywordless_rule_that_is_prefiltered_is_compiled_with_it() -> None:
    compiled = compiled_rules()
    named = {compiled.rules[index].name for index in compiled.prefilters}
    keywordless = {compiled.rules[index].name for index in compiled.keywordless}
    assert named == keywordless & set(KEYWORDLESS_PREFILTERS)
    assert named, "the Discord prefilter is what this module tests"


@pytest.mark.parametrize("seed", range(20))
def test_a_discord_token_is_still_scrubbed_in_a_note(seed: int) -> None:
    token = fake_discord_token(seed)
    note = f"# Bot\n\nStart it with bot.run('{token}') and keep it running.\n"
    result = scrub_secrets(note)
    assert token not in result.text
    assert "[REDACTED:discord-bot-token]" in result.text
    assert result.text.startswith("# Bot\n\nStart it with bot.run('")


def _without_prefilters(text: str) -> str:
    compiled = compiled_rules()
    saved = dict(compiled.prefilters)
    compiled.prefilters.clear()
    try:
        return scrub_secrets(text).text
    finally:
        compiled.prefilters.update(saved)


PIECES = st.sampled_from(
    [".", "..", "M", "N", "O", "_", "-", " ", "\n", "abcdef", "ABCDEF", "012345", "x" * 24]
)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.one_of(PIECES, st.text(alphabet=TOKEN + ". ", max_size=40)), max_size=12),
    seed=st.integers(0, 10_000),
    with_token=st.booleans(),
)
def test_scrubbing_with_and_without_prefilters_agrees(
    parts: list[str], seed: int, with_token: bool
) -> None:
    text = "".join(parts)
    if with_token:
        text = text + fake_discord_token(seed) + "".join(reversed(parts))
    assert scrub_secrets(text).text == _without_prefilters(text)
