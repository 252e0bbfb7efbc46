"""``reconcile_topic``: statements in the user's notes that contradict each other, as a report
(docs/second-brain.md). Nothing is written; ``vaultctx review contradictions`` applies it.

The model answers with a JSON array of ``{notePaths, statements, suggestion}``. Its reply is
hostile input read defensively: code fences and prose around the array are tolerated, items
that are not of that shape are dropped, and only paths among this search's hits are kept (a
model must not be able to point a later write at a note it was never shown). A reply with no
readable array, a truncated one included, is reported as exactly that, never as "no
contradictions": the two mean opposite things to the user.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from vaultctx.brain.passages import DATA_RULE, Passage, defuse, one_line, render, search_passages
from vaultctx.brain.settings import load_second_brain_settings
from vaultctx.brain.thinking import EmptyInputError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

RECONCILE_TOKENS = 1500
EMPTY_TOPIC = "A topic to reconcile is required."
MAX_ITEMS = 50
MAX_STATEMENTS = 10
STATEMENT_CHARS = 500
SUGGESTION_CHARS = 2000
_REPLY_CHARS = 200_000  # far beyond what 1500 tokens can say: a bound on the parsing work
_ARRAY_STARTS = 200  # how many "[" to try before giving up on a reply
_OBJECT_NEXT = re.compile(r"\s*\{")
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*$", re.MULTILINE)

Status = Literal["found", "none", "no-notes", "unreadable", "unusable"]

NO_CONTRADICTIONS = "No contradictions found. No notes were changed."
UNREADABLE = (
    "Could not interpret the model's answer (format error or truncation) — this is not the "
    "same as no contradictions; nothing changed. Run it again, or narrow the topic."
)


@dataclass(frozen=True)
class Contradiction:
    note_paths: list[str]
    statements: list[str]
    suggestion: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "notePaths": self.note_paths,
            "statements": self.statements,
            "suggestion": self.suggestion,
        }


@dataclass
class ReconcileReport:
    """What a reconcile found. ``status``: ``found`` (items), ``none`` (the model said there
    are none), ``no-notes`` (the search found nothing, the model was not asked),
    ``unreadable`` (no JSON array in the reply), ``unusable`` (items, but none citing a note
    of the search)."""

    topic: str
    status: Status
    items: list[Contradiction] = field(default_factory=list)
    dropped: int = 0  # items left out: wrong shape, or no path among the hits
    sources: list[Passage] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return report_text(self)

    def as_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "status": self.status,
            "items": [item.as_dict() for item in self.items],
            "dropped": self.dropped,
            "sources": [source.as_dict() for source in self.sources],
            "notices": self.notices,
            "text": self.text,
        }


async def reconcile_topic(vault: Vault, model: TextModel, topic: str) -> ReconcileReport:
    load_second_brain_settings(vault.path).require_enabled()
    if not isinstance(topic, str) or not topic.strip():
        raise EmptyInputError(EMPTY_TOPIC, "")
    topic = topic.strip()[:2000]
    passages, notices = search_passages(vault, topic)
    if not passages:
        return ReconcileReport(topic, "no-notes", notices=notices)
    system = (
        "You find statements in the user's notes that contradict each other (different "
        "numbers, dates, decisions or claims about the same thing). Answer with a JSON array "
        "only, no prose: each element is "
        '{"notePaths": [paths of the notes involved, exactly as given], '
        '"statements": [the conflicting statements, quoted], '
        '"suggestion": "how to reconcile them, in one or two sentences"}. '
        "Answer [] when the notes do not contradict each other. " + DATA_RULE
    )
    prompt = f"Topic:\n<topic>\n{defuse(topic)}\n</topic>\n\nPassages:\n{render(passages)}"
    reply = await model.complete(system, prompt, max_tokens=RECONCILE_TOKENS)
    return interpret(topic, reply, passages, notices)


def interpret(
    topic: str, reply: str, passages: list[Passage], notices: list[str] | None = None
) -> ReconcileReport:
    """The report for the model's ``reply`` to a reconcile over ``passages``."""
    notices = list(notices or [])
    raw = find_array(reply)
    if raw is None:
        return ReconcileReport(topic, "unreadable", sources=passages, notices=notices)
    known = {passage.path for passage in passages}
    items: list[Contradiction] = []
    dropped = 0
    for element in raw[:MAX_ITEMS]:
        item = _item(element, known)
        if item is None:
            dropped += 1
        else:
            items.append(item)
    dropped += max(len(raw) - MAX_ITEMS, 0)
    if items:
        status: Status = "found"
    else:
        status = "unusable" if dropped else "none"
    return ReconcileReport(topic, status, items, dropped, passages, notices)


def find_array(reply: str) -> list[Any] | None:
    """The JSON array of objects in ``reply``, or None when there is none to read.

    Code fence lines and prose around the array are ignored. An array that starts like ours
    (``[`` then ``{``) but does not parse was cut off or garbled: the whole reply is unreadable,
    even if a smaller array nested in it parses. An empty array counts only as the first
    bracket of the reply, so the ``[]`` of a truncated item's ``statements`` is never taken for
    "no contradictions".
    """
    text = _FENCE.sub("", reply[:_REPLY_CHARS])
    decoder = json.JSONDecoder()
    first = position = text.find("[")
    empty_first = False
    tries = 0
    while position != -1 and tries < _ARRAY_STARTS:
        tries += 1
        try:
            value, _ = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            if _OBJECT_NEXT.match(text, position + 1):
                return None
            position = text.find("[", position + 1)
            continue
        if isinstance(value, list):
            if value and all(isinstance(element, dict) for element in value):
                return value
            empty_first = empty_first or (not value and position == first)
        position = text.find("[", position + 1)
    return [] if empty_first else None


def _item(element: object, known: set[str]) -> Contradiction | None:
    if not isinstance(element, dict):
        return None
    paths = element.get("notePaths")
    statements = element.get("statements")
    suggestion = element.get("suggestion")
    if not isinstance(paths, list) or not isinstance(suggestion, str) or not suggestion.strip():
        return None
    if not isinstance(statements, list):
        statements = []
    kept: list[str] = []
    for path in paths:
        found = _known_path(path, known)
        if found is not None and found not in kept:
            kept.append(found)
    if not kept:
        return None
    quoted = [
        one_line(statement, STATEMENT_CHARS)
        for statement in statements[:MAX_STATEMENTS]
        if isinstance(statement, str) and statement.strip()
    ]
    return Contradiction(kept, quoted, one_line(suggestion, SUGGESTION_CHARS))


def _known_path(value: object, known: set[str]) -> str | None:
    """``value`` as one of the hits' paths (a model may drop ``.md`` or wrap it in [[ ]])."""
    if not isinstance(value, str):
        return None
    path = value.strip().removeprefix("[[").removesuffix("]]").split("|")[0].strip()
    for candidate in (path, path + ".md"):
        if candidate in known:
            return candidate
    return None


def report_text(report: ReconcileReport) -> str:
    if report.status == "no-notes":
        return f'No notes found about "{report.topic}", so there is nothing to reconcile.'
    if report.status == "unreadable":
        return UNREADABLE
    if report.status == "none":
        return NO_CONTRADICTIONS
    if report.status == "unusable":
        return (
            f"The model named {report.dropped} contradiction(s), but none cited a note from the "
            "search results, so none can be shown. This is not the same as no contradictions; "
            "nothing changed."
        )
    lines = [f'Contradictions about "{report.topic}" ({len(report.items)}):']
    for number, item in enumerate(report.items, start=1):
        lines.append(f"{number}. Notes: {', '.join(item.note_paths)}")
        lines += [f'   - "{statement}"' for statement in item.statements]
        lines.append(f"   Suggestion: {item.suggestion}")
    if report.dropped:
        lines.append(f"({report.dropped} more item(s) left out: not citing a searched note.)")
    lines.append(
        "Nothing was changed. To apply suggestions: "
        f'vaultctx review contradictions "{one_line(report.topic, 200)}"'
    )
    return "\n".join(lines)


__all__ = [
    "NO_CONTRADICTIONS",
    "UNREADABLE",
    "Contradiction",
    "ReconcileReport",
    "find_array",
    "interpret",
    "reconcile_topic",
]
