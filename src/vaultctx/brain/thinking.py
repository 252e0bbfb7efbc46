"""The Second Brain's thinking tools: ``challenge`` a claim, ``connect`` two topics, find what
``emerge``s from recent notes (docs/second-brain.md).

Each asks the model one question over passages of the user's notes and returns its answer; none
writes anything. When there is nothing to ask about (no passages, no recent notes) the model is
not called and the result says so in plain words.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.brain.passages import (
    DATA_RULE,
    Passage,
    defuse,
    excerpt,
    render,
    search_passages,
)
from vaultctx.brain.settings import load_second_brain_settings
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

CHALLENGE_TOKENS = 1500
CONNECT_TOKENS = 1500
EMERGE_TOKENS = 2000
EMERGE_CAP = 60
EMERGE_DEFAULT_DAYS = 7
EMERGE_MAX_DAYS = 36_500  # a hundred years: beyond it the date arithmetic overflows
_EMERGE_EXCERPT = 300
_INPUT_CHARS = 2000  # a claim or a topic: a sentence, not a document

EMPTY_CLAIM = "A claim to review is required."
EMPTY_ANSWER = "(The model returned no text; try again, or another model.)"
EMPTY_TOPICS = "Both topics (topicA, topicB) are required."


@dataclass
class ThinkingResult:
    """The model's answer (``asked``), or the plain reason it was not asked, and the notes it
    was shown."""

    tool: str
    text: str
    asked: bool
    sources: list[Passage] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "text": self.text,
            "asked": self.asked,
            "sources": [source.as_dict() for source in self.sources],
            "notices": self.notices,
        }


class EmptyInputError(VaultctxError):
    """A thinking tool was given nothing to think about."""


def _require_enabled(vault: Vault) -> None:
    load_second_brain_settings(vault.path).require_enabled()


def _checked(text: object, message: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise EmptyInputError(message, "")
    return text.strip()[:_INPUT_CHARS]


async def challenge(vault: Vault, model: TextModel, claim: str) -> ThinkingResult:
    """What the user's own notes say against ``claim``: gaps, counterexamples, assumptions."""
    _require_enabled(vault)
    claim = _checked(claim, EMPTY_CLAIM)
    passages, notices = search_passages(vault, claim)
    if not passages:
        text = f'No notes found about "{claim}", so there is nothing to challenge it with.'
        return ThinkingResult("challenge", text, False, notices=notices)
    system = (
        "You are a careful critic helping the user test a claim against their own notes. "
        "List the gaps, counterexamples and hidden assumptions the notes reveal, citing each "
        "note by its path. Say plainly where the notes support the claim, and where they are "
        "silent. " + DATA_RULE
    )
    prompt = (
        f"The claim to challenge:\n<claim>\n{defuse(claim)}\n</claim>\n\n"
        f"Passages from the user's notes:\n{render(passages)}"
    )
    text = await model.complete(system, prompt, max_tokens=CHALLENGE_TOKENS)
    return ThinkingResult("challenge", _answer(text), True, passages, notices)


async def connect(vault: Vault, model: TextModel, topic_a: str, topic_b: str) -> ThinkingResult:
    """How two topics of the user's notes bear on each other."""
    _require_enabled(vault)
    topic_a, topic_b = _checked(topic_a, EMPTY_TOPICS), _checked(topic_b, EMPTY_TOPICS)
    first, notices = search_passages(vault, topic_a)
    second, more = search_passages(vault, topic_b)
    notices += [notice for notice in more if notice not in notices]
    if not first and not second:
        text = f'No notes found about "{topic_a}" or "{topic_b}", so there is nothing to connect.'
        return ThinkingResult("connect", text, False, notices=notices)
    system = (
        "You find non-obvious connections between two topics in the user's notes: shared "
        "causes, transferable ideas, tensions, and questions worth exploring. Cite notes by "
        "their path; say so when one side has no notes. " + DATA_RULE
    )
    prompt = (
        f"Topic A:\n<topic>\n{defuse(topic_a)}\n</topic>\n"
        f"Passages about topic A:\n{render(first) or '(none found)'}\n\n"
        f"Topic B:\n<topic>\n{defuse(topic_b)}\n</topic>\n"
        f"Passages about topic B:\n{render(second, first=len(first) + 1) or '(none found)'}"
    )
    text = await model.complete(system, prompt, max_tokens=CONNECT_TOKENS)
    return ThinkingResult("connect", _answer(text), True, first + second, notices)


def _answer(text: str) -> str:
    return text.strip() or EMPTY_ANSWER


def emerge_days(value: object) -> int:
    """``days`` as the tools take it: a non-number becomes 7, then rounded, at least 1 (and at
    most a hundred years)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return EMERGE_DEFAULT_DAYS
    if isinstance(value, float) and not math.isfinite(value):
        return EMERGE_DEFAULT_DAYS
    return min(max(round(value), 1), EMERGE_MAX_DAYS)


async def emerge(
    vault: Vault, model: TextModel, days: object = EMERGE_DEFAULT_DAYS
) -> ThinkingResult:
    """Patterns nobody named yet in the notes modified in the last ``days`` days (the 60 most
    recent of them, saying so when there were more)."""
    from vaultctx.search.filters import Filters

    _require_enabled(vault)
    count = emerge_days(days)
    since = dt.datetime.now().astimezone() - dt.timedelta(days=count)
    listing = vault.list_notes(Filters(since=since), limit=EMERGE_CAP)
    if not listing.notes:
        return ThinkingResult("emerge", f"No notes modified in the last {count} day(s).", False)
    passages = [_recent_passage(vault, note.path, note.title) for note in listing.notes]
    notices: list[str] = []
    if listing.total > len(listing.notes):
        notices.append(
            f"(Analyzed only the {len(listing.notes)} most recent of {listing.total} notes "
            f"modified in the last {count} day(s).)"
        )
    system = (
        "You look across the notes a user wrote or changed recently and name patterns they "
        "have not named themselves: recurring themes, questions that keep coming back, "
        "ideas converging from different places, and shifts in focus. Cite notes by their "
        "path. " + DATA_RULE
    )
    prompt = (
        f"The {len(passages)} most recently modified notes of the last {count} day(s), newest "
        f"first:\n{render(passages)}"
    )
    text = _answer(await model.complete(system, prompt, max_tokens=EMERGE_TOKENS))
    if notices:
        text = f"{text}\n\n{notices[0]}"
    return ThinkingResult("emerge", text, True, passages, notices)


def _recent_passage(vault: Vault, path: str, title: str) -> Passage:
    """A recent note's start (front matter left out), or an empty excerpt when it cannot be
    read any more (moved or deleted since the index saw it)."""
    from vaultctx.vault.note import split_front_matter

    try:
        note = vault.read_note(path, max_tokens=_EMERGE_EXCERPT)
    except VaultctxError:
        return Passage(title, path, "")
    _, body_start, _ = split_front_matter(note.text)
    return Passage(title, path, excerpt(note.text[body_start:], _EMERGE_EXCERPT))


__all__ = [
    "EMERGE_CAP",
    "EMPTY_CLAIM",
    "EMPTY_TOPICS",
    "EmptyInputError",
    "ThinkingResult",
    "challenge",
    "connect",
    "emerge",
    "emerge_days",
]
