"""Replace credentials in text with ``[REDACTED:<rule>]`` markers.

Every output path calls :func:`scrub_secrets`, so the common case must be nearly free: one pass
over the lowercased text finds every rule keyword (gitleaks' pre-filter), only rules whose
keyword occurs run, and most of those run only at the offsets where their keyword starts. Text
without any keyword costs that pass plus one cheap keyword-less rule (Discord bot tokens).

The keyword pass is an Aho-Corasick automaton (``pyahocorasick``, C). It replaced one regex
shaped as a trie, which cost some 65 ns per character in CPython's regex engine and was 83 % of
scrubbing a vault (1.56 of 1.88 s on 2,500 PowerShell docs); the alternatives measured then
were slower still (one ``in`` test per keyword 2×, a flat alternation 6×).
``bench/scrub_quality.py`` prints the per-chunk cost.

Quality is measured on 899 labelled strings from gitleaks' and detect-secrets' test suites
(``tests/scrub/labelled_fixtures.py`` scores them; ``bench/scrub_quality.py`` prints the figures,
overall and per gitleaks rule or detect-secrets plugin, also end to end through the CLI). The two
suites label 90 rows oppositely by identical text or identical shape, which caps any scrubber at
94.4 % recall with at most 3 % of non-secrets altered on the whole file. The largest such shape
is a vendor prefix padded with one repeated character: detect-secrets' AWS, Artifactory and
Twilio tests call ``AKIAZZZZ…`` or ``AKCxxxxxxxxxx`` secret, gitleaks' tests call ``AKIAXXXX…``
and ``ghp_xxxx…`` not secret. A filler is never a live credential, so it stays after any prefix.
The targets (recall >= 97 %, <= 3 % altered) are asserted on the rows without conflicts, also
leaving out the rows whose label gitleaks' own rule set contradicts: it reports a detector's
"must not flag" string, or drops a "secret" by its entropy limit or an allowlist.

Public IP addresses, which detect-secrets labels secret, are not credentials and stay: notes name
servers, resolvers and hosts by them, and a redacted address could no longer be searched for.
detect-secrets' rule for them would alter 1,088 of the 14,142 PowerShell docs: 666 only for
version numbers (``Help Version: 5.0.0.1``) or masks (``255.255.255.0``), the rest for example
addresses (``1.2.3.4``); a vault of home-lab or server notes would lose the addresses it exists
to record. ``bench/scrub_quality.py`` measures it.
"""

from __future__ import annotations

import re
import string
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import ahocorasick

from vaultctx.scrub.patterns import (
    PRIORITY_VENDOR,
    Allowlist,
    Rule,
    generic_rules,
    literal_heads,
    load_gitleaks_rules,
    looks_like_placeholder,
    shannon_entropy,
)

_REDACTION = r"\[REDACTED:[a-z0-9-]+\]"
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_LINE_REACH = 1000
_ALLOWLIST_REACH = 1000
# Rules without keywords run on every text. Each may have here a piece of its own pattern that
# every match must contain (a top-level part of the regex, checked by tests/scrub): the rule runs
# only where that piece is found. Discord bot tokens are three dot-separated runs; their scan,
# which tries every capital M, N or O, was a quarter of scrubbing a note.
KEYWORDLESS_PREFILTERS = {"discord-bot-token": r"\.[A-Za-z0-9_-]{6}\."}


@dataclass(frozen=True)
class ScrubResult:
    """The scrubbed text and how many values each rule replaced (never the values)."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class CompiledRules(NamedTuple):
    """All rules, compiled once per process, plus what that cost and what had to be left out.

    ``keywords`` finds every occurrence of every keyword, overlapping ones included, and yields
    (end offset, (keyword, length)). Rules in ``anchored`` provably match only where one of
    their keywords starts; ``keywordless`` rules run on every text (gitleaks' rule for rules
    without keywords).
    """

    rules: tuple[Rule, ...]
    global_allowlists: tuple[Allowlist, ...]
    keywords: ahocorasick.Automaton
    rules_by_keyword: dict[str, tuple[int, ...]]
    keywordless: tuple[int, ...]
    prefilters: dict[int, re.Pattern[str]]
    anchored: frozenset[int]
    gitleaks_compiled: int
    gitleaks_skipped: dict[str, str]
    compile_seconds: float


class _Finding(NamedTuple):
    start: int
    end: int
    name: str
    priority: int


_compiled: CompiledRules | None = None
_compile_lock = threading.Lock()


def compiled_rules() -> CompiledRules:
    """Compile the rule set on first use; importing this module compiles nothing."""
    global _compiled
    if _compiled is None:
        with _compile_lock:
            if _compiled is None:
                _compiled = _compile()
    return _compiled


def _compile() -> CompiledRules:
    started = time.perf_counter()
    gitleaks, global_allowlist, skipped = load_gitleaks_rules()
    generic_api_key = next((rule for rule in gitleaks if rule.name == "generic-api-key"), None)
    shared = generic_api_key.allowlists if generic_api_key else ()
    rules = (*gitleaks, *generic_rules(shared))
    by_keyword: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        for keyword in rule.keywords:
            by_keyword.setdefault(keyword, []).append(index)
    automaton = ahocorasick.Automaton()
    for keyword in by_keyword:
        automaton.add_word(keyword, (keyword, len(keyword)))
    automaton.make_automaton()
    return CompiledRules(
        rules=rules,
        global_allowlists=(global_allowlist,),
        keywords=automaton,
        rules_by_keyword={keyword: tuple(indices) for keyword, indices in by_keyword.items()},
        keywordless=tuple(index for index, rule in enumerate(rules) if not rule.keywords),
        prefilters={
            index: re.compile(KEYWORDLESS_PREFILTERS[rule.name])
            for index, rule in enumerate(rules)
            if not rule.keywords and rule.name in KEYWORDLESS_PREFILTERS
        },
        anchored=frozenset(
            index for index, rule in enumerate(rules) if _starts_only_at_keywords(rule)
        ),
        gitleaks_compiled=len(gitleaks),
        gitleaks_skipped=skipped,
        compile_seconds=time.perf_counter() - started,
    )


def _starts_only_at_keywords(rule: Rule) -> bool:
    heads = literal_heads(rule.regex.pattern)
    return (
        bool(rule.keywords)
        and heads is not None
        and all(any(head.startswith(keyword) for keyword in rule.keywords) for head in heads)
    )


def scrub_secrets(text: str) -> ScrubResult:
    """Redact every credential found in ``text``; the context around each one is kept.

    Idempotent: existing ``[REDACTED:...]`` markers are left alone, so scrubbing twice (the
    indexer, then an output path) changes nothing the second time.
    """
    compiled = compiled_rules()
    hits = _keyword_hits(compiled, _lower_keeping_offsets(text))
    candidates = (
        sorted(
            {index for keyword in hits for index in compiled.rules_by_keyword[keyword]}.union(
                compiled.keywordless
            )
        )
        if hits
        else compiled.keywordless
    )
    findings: list[_Finding] = []
    for index in candidates:
        rule = compiled.rules[index]
        matches: Iterable[re.Match[str]]
        prefilter = compiled.prefilters.get(index)
        if prefilter is not None and prefilter.search(text) is None:
            continue
        if index in compiled.anchored:
            starts = sorted({start for keyword in rule.keywords for start in hits.get(keyword, ())})
            matches = _matches_at(rule.regex, text, starts)
        else:
            matches = rule.regex.finditer(text)
        findings.extend(_findings(rule, matches, text, compiled.global_allowlists))
    if findings and "[REDACTED:" in text:
        findings = _outside_existing_redactions(findings, text)
    if not findings:
        return ScrubResult(text)
    return _redact(text, findings)


def _lower_keeping_offsets(text: str) -> str:
    """Lowercase for the keyword search. Offsets must stay those of ``text``, which Unicode
    lowercasing breaks for the rare character that becomes two (``İ``); keywords are ASCII."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _keyword_hits(compiled: CompiledRules, lowered: str) -> dict[str, list[int]]:
    """Every offset where each keyword starts, overlapping occurrences included."""
    hits: dict[str, list[int]] = {}
    for end, (keyword, length) in compiled.keywords.iter(lowered):
        found = hits.get(keyword)
        if found is None:
            hits[keyword] = [end - length + 1]
        else:
            found.append(end - length + 1)
    return hits


def _matches_at(regex: re.Pattern[str], text: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """What ``finditer`` yields, for a regex that can only match at one of ``starts``."""
    resume = 0
    for start in starts:
        if start < resume:
            continue
        found = regex.match(text, start)
        if found:
            yield found
            resume = max(found.end(), start + 1)


def _findings(
    rule: Rule,
    matches: Iterable[re.Match[str]],
    text: str,
    global_allowlists: tuple[Allowlist, ...],
) -> list[_Finding]:
    """Keep the matches that pass gitleaks' checks (entropy, global then rule allowlists) and
    ours; the allowlists go last because their regexes are the most expensive."""
    found = []
    for match in matches:
        start, end = _secret_span(rule, match)
        if rule.reach_back is not None:
            reached = rule.reach_back(text, start)
            if reached is None:
                continue
            start = reached
        secret = text[start:end]
        if not secret or (rule.entropy and shannon_entropy(secret) <= rule.entropy):
            continue
        if not all(validator(secret, match, text) for validator in rule.validators):
            continue
        if _placeholder_without_vendor_prefix(rule, secret) or _allowlisted(
            rule, match, secret, text, global_allowlists
        ):
            continue
        if rule.priority == PRIORITY_VENDOR and match.end() == end:
            end = _end_of_token(text, end)
        found.append(_Finding(start, end, rule.name, rule.priority))
    return found


def _allowlisted(
    rule: Rule,
    match: re.Match[str],
    secret: str,
    text: str,
    global_allowlists: tuple[Allowlist, ...],
) -> bool:
    """gitleaks' allowlists, each reading at most ``_ALLOWLIST_REACH`` characters: some of their
    regexes (``[a-z0-9-]*?api...``) backtrack quadratically in Python's engine on a long run."""
    match_text, line = _match_and_line(rule, match, text)
    subjects = (secret[:_ALLOWLIST_REACH], match_text[:_ALLOWLIST_REACH], line)
    return any(allowlist.allows(*subjects) for allowlist in (*global_allowlists, *rule.allowlists))


def _secret_span(rule: Rule, match: re.Match[str]) -> tuple[int, int]:
    for group in rule.groups:
        start, end = match.span(group)
        if end > start:
            return start, end
    return match.span()


def _match_and_line(rule: Rule, match: re.Match[str], text: str) -> tuple[str, str]:
    """What gitleaks' ``match`` and ``line`` allowlists see, with a stripped left context
    (``[\\w.-]{0,50}?``) put back. The line is cut to ``_LINE_REACH`` characters either side:
    in minified text it can be the whole file."""
    start = match.start()
    floor = max(0, start - rule.left_context)
    while start > floor and text[start - 1] in _NAME_CHARS:
        start -= 1
    line_start = max(text.rfind("\n", 0, match.start()) + 1, match.start() - _LINE_REACH)
    line_end = text.find("\n", match.end(), match.end() + _LINE_REACH)
    if line_end < 0:
        line_end = min(len(text), match.end() + _LINE_REACH)
    return text[start : match.end()], text[line_start:line_end]


def _placeholder_without_vendor_prefix(rule: Rule, secret: str) -> bool:
    """A secret found only by its surroundings (``password = ...``) must not be a stand-in.

    A secret that carries its rule's keyword (``xoxb-``, ``ghp_``) has a vendor format, and
    gitleaks' entropy limits and allowlists judge it: a random token can contain "FaKe".
    """
    lowered = secret.lower()
    return not any(keyword in lowered for keyword in rule.keywords) and looks_like_placeholder(
        secret
    )


def _end_of_token(text: str, end: int) -> int:
    """Fixed-length vendor regexes without a trailing boundary stop inside a longer token
    (a newer, longer format): redact to the end of the token rather than leave its tail."""
    while end < len(text) and text[end] in _TOKEN_CHARS:
        end += 1
    return end


def _outside_existing_redactions(findings: list[_Finding], text: str) -> list[_Finding]:
    """Drop findings that overlap or touch a ``[REDACTED:...]`` marker: a value glued to one is
    the context of a secret already removed (``password=[REDACTED:...]``), not a new secret."""
    markers = [marker.span() for marker in re.finditer(_REDACTION, text)]
    return [
        finding
        for finding in findings
        if not any(finding.start <= end and start <= finding.end for start, end in markers)
    ]


def _redact(text: str, findings: list[_Finding]) -> ScrubResult:
    """Merge overlapping findings into one redaction named after its most specific rule."""
    findings.sort(key=lambda finding: (finding.start, -finding.end))
    pieces: list[str] = []
    counts: dict[str, int] = {}
    cursor = 0
    index = 0
    while index < len(findings):
        best = findings[index]
        end = best.end
        start = best.start
        index += 1
        while index < len(findings) and findings[index].start < end:
            candidate = findings[index]
            end = max(end, candidate.end)
            if candidate.priority < best.priority:
                best = candidate
            index += 1
        pieces.append(text[cursor:start])
        pieces.append(f"[REDACTED:{best.name}]")
        counts[best.name] = counts.get(best.name, 0) + 1
        cursor = end
    pieces.append(text[cursor:])
    return ScrubResult("".join(pieces), counts)
