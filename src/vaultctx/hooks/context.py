"""What the context hook asks the vault, which passages count as relevant, and how they read.

Shared by the hook process (in-process fallback) and the HTTP server's hook endpoint, so both
answer the same way. Importing this module must stay cheap: the hook runs on every prompt, so
numpy, the models and the scrubber are only imported by the functions that search.

Relevance rule (docs/hooks.md): a passage is injected only when the keyword ranker (BM25) found
it *and* it contains enough of the request's distinctive words (1 word for a one-word request,
2 for up to 8 words, 3 beyond). Vector search always returns a nearest neighbour, however far, so
it can rank passages but never prove that something relevant exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from vaultctx.search.budget import CHARS_PER_TOKEN, fit_to_budget
from vaultctx.search.fts_query import STOPWORDS

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest

HOOK_MAX_TOKENS = 1500
MAX_PASSAGES = 4
PASSAGE_MAX_TOKENS = 225  # ~900 characters: a passage's first 300-500 carry it, doubled
CANDIDATES = 30  # BM25's own top k: hybrid ranking must not push keyword hits out
CHUNK_MAX_TOKENS = 500  # a chunk is at most 2,000 characters
MAX_TERMS = 24
MAX_REQUEST_CHARS = 4000

CONTEXT_TOOLS = ("Edit", "MultiEdit", "Write", "Bash")

# Words every coding prompt or source file is full of: they would make everything "relevant".
_GENERIC_TEXT = """
    about also any add all args async await been before break case catch class const continue
    could def default del elif else end except export false file files final finally fix fn
    for func function get go import into just let like make need new none null only other
    pass please print public raise return self should some static str string struct super
    sure test true try type use used using var void want while would yield code line lines
    run now here
"""
_GENERIC_WORDS = frozenset(_GENERIC_TEXT.split())
_WORDS = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af]")
_SHELL_WORDS = re.compile(r"(?:^|[\s;&|(])vaultctx(?:\s|$)|-m\s+vaultctx\b")


class ContextRequest(NamedTuple):
    """One hook event turned into what to search for; ``event`` names the answer's event."""

    event: str
    text: str


class Passage(Protocol):
    """The fields of a search result the hook uses (``SearchResult`` has them)."""

    @property
    def citation(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def section(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def bm25_rank(self) -> int | None: ...


# Runs the hook's search: in the hook process (keywords only) or on a warm server (hybrid).
Searcher = Callable[["SearchRequest"], Sequence[Passage]]


def context_request(event: Mapping[str, Any]) -> ContextRequest | None:
    """What to look up for a Claude Code hook event, or None when the event needs no context.

    UserPromptSubmit searches the prompt (slash commands are for Claude Code, not questions);
    PreToolUse searches what an Edit/Write is about to put in a file, or the Bash command.
    Commands that run vaultctx itself are skipped so the hook never feeds on its own work.
    """
    name = event.get("hook_event_name")
    if name == "UserPromptSubmit":
        prompt = _string(event.get("prompt")).strip()
        if not prompt or prompt.startswith("/"):
            return None
        return ContextRequest(name, prompt[:MAX_REQUEST_CHARS])
    if name != "PreToolUse" or event.get("tool_name") not in CONTEXT_TOOLS:
        return None
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return None
    if event["tool_name"] == "Bash":
        command = _string(tool_input.get("command")).strip()
        if not command or _SHELL_WORDS.search(command):
            return None
        return ContextRequest(name, command[:MAX_REQUEST_CHARS])
    text = _file_change_text(tool_input)
    return ContextRequest(name, text[:MAX_REQUEST_CHARS]) if text.strip() else None


def _file_change_text(tool_input: Mapping[str, Any]) -> str:
    """The file's name words first (what the file is), then the text being written."""
    path = _string(tool_input.get("file_path"))
    stem = re.split(r"[\\/]", path)[-1].rsplit(".", 1)[0]
    parts = [stem, _string(tool_input.get("content")), _string(tool_input.get("new_string"))]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        parts += [_string(e.get("new_string")) for e in edits if isinstance(e, Mapping)]
    return "\n".join(p for p in parts if p)


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def query_terms(text: str) -> list[str]:
    """The request's distinctive words, in order of appearance, at most ``MAX_TERMS``."""
    terms: list[str] = []
    seen: set[str] = set()
    for word in _WORDS.findall(text.lower()):
        if word in seen or word in STOPWORDS or word in _GENERIC_WORDS or word.isdigit():
            continue
        if len(word) < 3 and not _CJK.search(word):
            continue
        seen.add(word)
        terms.append(word)
        if len(terms) == MAX_TERMS:
            break
    return terms


def required_matches(term_count: int) -> int:
    return 1 if term_count <= 1 else 2 if term_count <= 8 else 3


def matched_terms(terms: Sequence[str], passage: Passage) -> set[str]:
    """Terms the passage contains, allowing word endings to differ (token/tokens, rotate/rotation).

    A term matches a word that starts with its first ``max(4, len - 3)`` letters; CJK terms
    (no spaces between words) match as substrings.
    """
    haystack = f"{passage.title} {passage.section} {passage.text}".lower()
    words = set(_WORDS.findall(haystack))
    found: set[str] = set()
    for term in terms:
        if _CJK.search(term):
            if term in haystack:
                found.add(term)
            continue
        stem = term[: max(4, len(term) - 3)]
        if term in words or any(word.startswith(stem) for word in words):
            found.add(term)
    return found


def is_relevant(terms: Sequence[str], passage: Passage) -> bool:
    if passage.bm25_rank is None:
        return False
    return len(matched_terms(terms, passage)) >= required_matches(len(terms))


class Excerpt(NamedTuple):
    """A relevant passage as injected: its citation and its text, cut and scrubbed."""

    citation: str
    text: str


def relevant_excerpts(search: Searcher, text: str) -> list[Excerpt]:
    """The passages worth injecting for ``text``, best first (empty when none is relevant).

    Scrubbed here, where the search ran, so the hook process never loads the scrubber.
    """
    from vaultctx.search.request import SearchRequest

    terms = query_terms(text)
    if not terms:
        return []
    # Budget for every candidate whole: a cut passage could lose the words that make it relevant.
    budget = CANDIDATES * CHUNK_MAX_TOKENS
    results = search(SearchRequest(" ".join(terms), limit=CANDIDATES, max_tokens=budget))
    relevant = [r for r in results if is_relevant(terms, r)][:MAX_PASSAGES]
    if not relevant:
        return []
    from vaultctx.scrub import scrub_secrets

    excerpts = []
    for passage in relevant:
        [cut] = fit_to_budget([_flatten(passage.text)], PASSAGE_MAX_TOKENS) or [""]
        excerpts.append(Excerpt(passage.citation, scrub_secrets(cut).text))
    return excerpts


def hook_excerpts(vault: Vault, text: str) -> list[Excerpt]:
    """The server's answer to a hook (``loopback.hook_endpoint``): hybrid search on the warm
    server; the relevance rule still demands a keyword hit."""

    def search(request: SearchRequest) -> list[Any]:
        return list(vault.search(request).results)

    return relevant_excerpts(search, text)


HEADER = (
    "From the user's own notes (vaultctx vault search). Use these facts where they apply and "
    "cite them as path#heading.\n"
)


def _block(excerpt: Excerpt) -> str:
    return f"\nFrom your notes ({excerpt.citation}): {excerpt.text}\n"


def fitting(excerpts: Sequence[Excerpt], max_tokens: int = HOOK_MAX_TOKENS) -> list[Excerpt]:
    """The leading excerpts whose formatted text fits ``max_tokens`` (4 characters a token)."""
    budget = max_tokens * CHARS_PER_TOKEN - len(HEADER)
    kept: list[Excerpt] = []
    for excerpt in excerpts:
        budget -= len(_block(excerpt))
        if budget < 0:
            break
        kept.append(excerpt)
    return kept


def format_context(excerpts: Sequence[Excerpt]) -> str:
    """Excerpts as statements a model can use and cite (pass them through ``fitting`` first)."""
    return HEADER + "".join(_block(e) for e in excerpts) if excerpts else ""


def _flatten(text: str) -> str:
    """One paragraph: blank lines and indentation cost tokens and carry nothing here."""
    return re.sub(r"\s*\n\s*", " ", text).strip()
