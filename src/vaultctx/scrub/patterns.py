"""The detection rules: gitleaks' vendored rule set, translated to Python ``re``, plus our own.

gitleaks (MIT, see ``LICENSE-gitleaks``) maintains ~220 vendor rules as data; we load them from
``gitleaks_rules.json`` rather than hand-copying regexes so an update is a data refresh. Go's RE2
syntax differs from Python's in a few places (mid-pattern ``(?i)``, ``\\z``, POSIX classes); those
are translated, and the rare rule Python still rejects is skipped and counted, never half-applied.

Our own generic rules cover what gitleaks leaves to path-based or context-heavy rules: JWTs,
``Bearer`` tokens, PEM blocks cut in half by chunking, passwords in URLs and ``key = value``
assignments. They carry plausibility checks so documentation placeholders survive. A few vendor
formats follow detect-secrets (Yelp, Apache-2.0) where gitleaks' default config is narrower or
silent: GitLab's documented token lengths (which also bound gitleaks' GitLab rules), Artifactory
API keys and encrypted passwords, Square OAuth secrets, SoftLayer keys in SOAP URLs.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

GITLEAKS_RULES_PATH = Path(__file__).with_name("gitleaks_rules.json")


@functools.cache
def _regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Compile on first use: module constants hold pattern text, so importing compiles nothing."""
    return re.compile(pattern, flags)


# Where findings overlap, the one with the lowest priority number names the redaction: a vendor
# rule says more than a structural one, and "password-assignment" more than "generic-api-key".
PRIORITY_VENDOR = 0
PRIORITY_STRUCTURAL = 1
PRIORITY_ASSIGNMENT = 2
PRIORITY_GENERIC = 3

Validator = Callable[[str, "re.Match[str]", str], bool]
"""Extra plausibility check: (secret, match, whole text) -> keep the finding?"""


class Allowlist(NamedTuple):
    """A gitleaks allowlist: a finding is dropped if a regex matches its target or a stopword hits.

    ``target`` is what the regexes look at: the secret, the whole match, or the match's line.
    """

    target: str
    regexes: tuple[re.Pattern[str], ...]
    stopwords: frozenset[str]
    stopword_lengths: tuple[int, ...]

    def allows(self, secret: str, match_text: str, line: str) -> bool:
        subject = {"match": match_text, "line": line}.get(self.target, secret)
        if any(regex.search(subject) for regex in self.regexes):
            return True
        return bool(self.stopwords) and _contains_any(secret.lower(), self)


def _contains_any(text: str, allowlist: Allowlist) -> bool:
    """Substring test against a large stopword set without a 1,400-way alternation.

    Every slice of each stopword length is looked up in a set: O(len * distinct lengths).
    """
    words = allowlist.stopwords
    for length in allowlist.stopword_lengths:
        for start in range(len(text) - length + 1):
            if text[start : start + length] in words:
                return True
    return False


def _make_allowlist(target: str, regexes: Iterable[str], stopwords: Iterable[str]) -> Allowlist:
    words = frozenset(word.lower() for word in stopwords)
    return Allowlist(
        target=target,
        regexes=tuple(compile_go_regex(regex) for regex in regexes),
        stopwords=words,
        stopword_lengths=tuple(sorted({len(word) for word in words})),
    )


class Rule(NamedTuple):
    """One detector. ``keywords`` (lowercase) gate it: it only runs if one occurs in the text.

    ``groups`` are the capture groups that may hold the secret; the first non-empty one is
    redacted, and with none the whole match is. ``left_context`` > 0 means the rule's leading
    ``[\\w.-]{0,N}?`` was stripped for speed and is rebuilt for allowlists that read the match.
    ``reach_back`` moves the start of the secret before the match (None: no secret there).
    """

    name: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    priority: int = PRIORITY_VENDOR
    entropy: float = 0.0
    groups: tuple[int | str, ...] = ()
    allowlists: tuple[Allowlist, ...] = ()
    left_context: int = 0
    validators: tuple[Validator, ...] = ()
    reach_back: Callable[[str, int], int | None] | None = None


# --- Go RE2 -> Python re -------------------------------------------------------------------

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "xdigit": "0-9A-Fa-f",
    "upper": "A-Z",
    "lower": "a-z",
    "word": "0-9A-Za-z_",
    "space": r"\t\n\v\f\r ",
    "blank": r"\t ",
    "punct": r"!-/:-@\[-`{-~",
}
_INLINE_FLAGS = r"\(\?([imsU]+)\)"


def _class_end(pattern: str, start: int) -> int:
    """Index just past the character class opening at ``start`` (a leading ']' is literal)."""
    index = start + 1
    if index < len(pattern) and pattern[index] == "^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if pattern.startswith("[:", index):
            close = pattern.find(":]", index + 2)
            if close != -1:
                index = close + 2
                continue
        if char == "]":
            return index + 1
        index += 1
    return len(pattern)


_LONGEST_LINE = 1000


def _rewrite_atoms(pattern: str) -> str:
    """POSIX ``[:alnum:]`` inside classes, the end-of-text anchor ``\\z``, and ``.*``/``.+``
    bounded to ``_LONGEST_LINE`` characters: RE2 runs in linear time, but Python's engine
    retries an unbounded ``.*`` from every keyword on a long line (``curl`` rules)."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escape = pattern[index : index + 2]
            out.append("\\Z" if escape == "\\z" else escape)
            index += 2
        elif char == "[":
            end = _class_end(pattern, index)
            body = pattern[index:end]
            for name, members in _POSIX_CLASSES.items():
                body = body.replace(f"[:{name}:]", members)
            out.append(body)
            index = end
        elif char == "." and pattern[index + 1 : index + 2] in ("*", "+"):
            low = 0 if pattern[index + 1] == "*" else 1
            out.append(f".{{{low},{_LONGEST_LINE}}}")
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _structure(pattern: str) -> Iterable[tuple[int, str]]:
    """Positions of '(', ')' and '|' that are syntax (not escaped, not inside a class)."""
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _class_end(pattern, index)
            continue
        if char in "()|":
            yield index, char
        index += 1


def _scope_inline_flags(pattern: str) -> str:
    """Turn RE2's mid-pattern ``(?i)`` into scoped ``(?i:...)`` groups, which Python accepts.

    In RE2 the flag holds until the enclosing group closes, across any later ``|`` branches, so
    each remaining branch of that group gets its own scoped group.
    """
    while True:
        flag_match = next(
            (
                found
                for position, char in _structure(pattern)
                if char == "(" and position > 0
                for found in [_regex(_INLINE_FLAGS).match(pattern, position)]
                if found
            ),
            None,
        )
        if flag_match is None:
            return pattern
        flags, body_start = flag_match.group(1), flag_match.end()
        depth, branches, cut, end = 0, [], body_start, len(pattern)
        for position, char in _structure(pattern):
            if position < body_start:
                continue
            if char == "(":
                depth += 1
            elif char == ")" and depth == 0:
                end = position
                break
            elif char == ")":
                depth -= 1
            elif char == "|" and depth == 0:
                branches.append(pattern[cut:position])
                cut = position + 1
        branches.append(pattern[cut:end])
        scoped = "|".join(f"(?{flags}:{branch})" for branch in branches)
        pattern = pattern[: flag_match.start()] + scoped + pattern[end:]


def translate_go_regex(pattern: str) -> str:
    """Rewrite the RE2 constructs gitleaks uses that Python's ``re`` spells or runs differently."""
    return _scope_inline_flags(_rewrite_atoms(pattern))


def compile_go_regex(pattern: str) -> re.Pattern[str]:
    """Compile with RE2's ASCII meaning of ``\\w``/``\\s``/``\\b``; warnings count as failures.

    Raises ``re.error`` (also for Python's "possible nested set" FutureWarning, whose meaning
    differs from RE2's) so callers can skip the rule instead of running a different regex.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return re.compile(translate_go_regex(pattern), re.ASCII)
        except (FutureWarning, DeprecationWarning) as warning:
            raise re.error(str(warning)) from warning


# --- literal heads: where can a match start? ---------------------------------------------

_HeadSet = frozenset[str]
_ZERO_WIDTH_ESCAPES = frozenset("bBAZ")
_MAX_HEADS = 64


def literal_heads(pattern: str) -> _HeadSet | None:
    """Every lowercase literal text a match of ``pattern`` must start with, or None if unknown.

    Expands what keyword-led regexes are built from (literals, ``[Aa]``-style classes, small
    groups and alternations, optional parts, lookarounds and ``\\b``); anything else ends the
    known prefix. The scrubber uses it to prove that a rule can only match where one of its
    keywords starts, so the regex runs at those few offsets instead of at every character.
    """
    try:
        heads, _ = _alternation_heads(pattern, 0, len(pattern))
    except _Unknown:
        return None
    return heads if heads and "" not in heads else None


class _Unknown(Exception):
    """The prefixes cannot be listed: too many of them, or the pattern is malformed."""


_OPAQUE: tuple[_HeadSet, bool] = (frozenset({""}), False)
"""An atom matching something other than a short literal: the known prefix ends before it."""


def _branches(pattern: str, start: int, end: int) -> list[tuple[int, int]]:
    cuts = [start]
    depth = 0
    for position, char in _structure(pattern[start:end]):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            cuts.append(start + position + 1)
    bounds = [*cuts[1:], end + 1]
    return [(begin, stop - 1) for begin, stop in zip(cuts, bounds, strict=True)]


def _alternation_heads(pattern: str, start: int, end: int) -> tuple[_HeadSet, bool]:
    """(heads, complete): complete means the heads are whole expansions, not just prefixes."""
    heads: set[str] = set()
    complete = True
    for begin, stop in _branches(pattern, start, end):
        branch_heads, branch_complete = _sequence_heads(pattern, begin, stop)
        heads |= branch_heads
        complete = complete and branch_complete
    return frozenset(heads), complete


def _sequence_heads(pattern: str, index: int, end: int) -> tuple[_HeadSet, bool]:
    prefixes: _HeadSet = frozenset({""})
    while index < end:
        item, index = _item(pattern, index, end)
        if item is None:
            continue  # zero-width: \b, lookaround, inline flags
        variants, item_complete = item
        low, high, index = _quantifier(pattern, index, end)
        if low == 0:
            if high != 1 or not item_complete:
                return prefixes, False
            variants = variants | {""}
        elif high != 1:
            return _join(prefixes, variants), False
        prefixes = _join(prefixes, variants)
        if not item_complete:
            return prefixes, False
    return prefixes, True


def _join(prefixes: _HeadSet, variants: _HeadSet) -> _HeadSet:
    joined = frozenset(prefix + variant for prefix in prefixes for variant in variants)
    if len(joined) > _MAX_HEADS:
        raise _Unknown
    return joined


def _item(pattern: str, index: int, end: int) -> tuple[tuple[_HeadSet, bool] | None, int]:
    """One atom at ``index``: (its variants and completeness, or None if zero-width), next."""
    char = pattern[index]
    if char == "\\":
        escape = pattern[index + 1]
        if escape in _ZERO_WIDTH_ESCAPES:
            return None, index + 2
        if escape == "x":
            return (frozenset({chr(int(pattern[index + 2 : index + 4], 16)).lower()}), True), (
                index + 4
            )
        if escape.isalnum():
            return _OPAQUE, index + 2  # \w, \d, \s and friends
        return (frozenset({escape}), True), index + 2
    if char == "[":
        close = _class_end(pattern, index)
        return _class_members(pattern[index + 1 : close - 1]), close
    if char == "(":
        return _group(pattern, index)
    if char == ".":
        return _OPAQUE, index + 1
    if char in "^$":
        return None, index + 1
    return (frozenset({char.lower()}), True), index + 1


def _class_members(body: str) -> tuple[_HeadSet, bool]:
    """A short class of literal characters (``[Aa]``, ``[_.-]``); anything else is opaque."""
    members = body.replace("\\", "")
    if (
        not body
        or body.startswith("^")
        or re.search(r"\\[A-Za-z0-9]", body)  # \w, \d, \x60 ...
        or "-" in members.strip("-")  # a range
        or len(members) > 8
    ):
        return _OPAQUE
    return frozenset(member.lower() for member in members), True


_GROUP_HEADER = r"\((?:\?(?:(?P<flags>[aiLmsux]+)\)|(?P<lookaround><?[=!])|P<\w+>|[aiLmsux-]*:))?"


def _group(pattern: str, index: int) -> tuple[tuple[_HeadSet, bool] | None, int]:
    """A group's alternatives; lookarounds and inline flags are zero-width."""
    depth = 0
    for position, char in _structure(pattern[index:]):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            close = index + position
            break
    else:
        raise _Unknown
    header = _regex(_GROUP_HEADER).match(pattern, index)
    assert header is not None  # the pattern requires only the "("
    if header.end() == index + 1 and pattern.startswith("(?", index):
        raise _Unknown  # a construct not listed above, such as a backreference
    if header.group("flags"):
        return None, header.end()
    if header.group("lookaround"):
        return None, close + 1
    return _alternation_heads(pattern, header.end(), close), close + 1


def _quantifier(pattern: str, index: int, end: int) -> tuple[int, int, int]:
    """(min, max, next index) of the quantifier at ``index``; max -1 means unbounded."""
    if index >= end:
        return 1, 1, index
    char = pattern[index]
    bounds = {"?": (0, 1), "*": (0, -1), "+": (1, -1)}.get(char)
    if bounds is not None:
        index += 1
    else:
        counted = re.match(r"\{(\d*)(,?)(\d*)\}", pattern[index:end])
        if not counted:
            return 1, 1, index
        low = int(counted.group(1) or 0)
        high = low if not counted.group(2) else int(counted.group(3) or -1)
        bounds = (low, high)
        index += counted.end()
    if index < end and pattern[index] in "?+":
        index += 1  # lazy or possessive: same set of possible heads
    return bounds[0], bounds[1], index


# --- gitleaks rule loading -----------------------------------------------------------------

_LAZY_LEFT_CONTEXT = r"^(\(\?i\))?\[\\w\.-\]\{0,(\d+)\}\?"


def _strip_left_context(pattern: str) -> tuple[str, int]:
    """Drop a leading lazy ``[\\w.-]{0,50}?``: it only widens the reported match, but makes
    Python's backtracking engine retry up to 50 start offsets at every position of the text."""
    found = _regex(_LAZY_LEFT_CONTEXT).match(pattern)
    if not found:
        return pattern, 0
    return (found.group(1) or "") + pattern[found.end() :], int(found.group(2))


def _gitleaks_allowlists(raw_rule: dict[str, Any]) -> tuple[Allowlist, ...]:
    allowlists = []
    for raw in raw_rule.get("allowlists", []):
        if raw.get("condition") == "AND" and raw.get("paths"):
            continue  # needs a file path to hold, and we scrub text without one
        if not raw.get("regexes") and not raw.get("stopwords"):
            continue  # path- or commit-only: nothing to check on text
        allowlists.append(
            _make_allowlist(
                raw.get("regexTarget", "secret"),
                raw.get("regexes", []),
                raw.get("stopwords", []),
            )
        )
    return tuple(allowlists)


def _secret_groups(regex: re.Pattern[str], secret_group: int) -> tuple[int, ...]:
    """gitleaks' ``secretGroup``, else every unnamed group in order (first non-empty wins).

    Named groups are skipped: gitleaks' ``jwt-base64`` names its alternatives, and redacting
    just the alternative that matched would leave the rest of the token readable.
    """
    if secret_group:
        return (secret_group,)
    named = set(regex.groupindex.values())
    return tuple(index for index in range(1, regex.groups + 1) if index not in named)


def load_gitleaks_rules(
    path: Path = GITLEAKS_RULES_PATH,
) -> tuple[list[Rule], Allowlist, dict[str, str]]:
    """Compile every gitleaks rule Python can run; return (rules, global allowlist, skipped).

    Rules restricted to a file path (``*.tf``, ``nuget.config``, k8s YAML) still run: a note
    often quotes such a file in a code fence, and there is no path to test against here.
    """
    config = json.loads(path.read_text(encoding="utf-8"))
    global_raw = config.get("allowlist", {})
    global_allowlist = _make_allowlist(
        "secret", global_raw.get("regexes", []), global_raw.get("stopwords", [])
    )
    rules: list[Rule] = []
    skipped: dict[str, str] = {}
    for raw in config["rules"]:
        name = raw["id"]
        if "regex" not in raw:
            skipped[name] = "matches file paths only"
            continue
        pattern, left_context = _strip_left_context(raw["regex"])
        try:
            regex = compile_go_regex(pattern)
            allowlists = _gitleaks_allowlists(raw)
        except re.error as error:
            skipped[name] = f"Python re rejects it: {error}"
            continue
        rules.append(
            Rule(
                name=name,
                regex=regex,
                keywords=tuple(keyword.lower() for keyword in raw.get("keywords", [])),
                priority=PRIORITY_GENERIC if name.startswith("generic") else PRIORITY_VENDOR,
                entropy=float(raw.get("entropy", 0.0)),
                groups=_secret_groups(regex, int(raw.get("secretGroup", 0))),
                allowlists=allowlists,
                left_context=left_context,
                validators=_VENDOR_VALIDATORS.get(name, ()),
            )
        )
    return rules, global_allowlist, skipped


# --- plausibility checks -------------------------------------------------------------------


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s own character distribution (gitleaks' measure)."""
    if not text:
        return 0.0
    length = len(text)
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    return -sum(count / length * math.log2(count / length) for count in counts.values())


_PLACEHOLDER_WORDS = (
    r"change[_-]?(?:me|it)|example|placeholder|redacted|dummy|sample|fake|your[_-]|[_-]here\b"
    r"|^(?:my|some|the|a|an|new|old|test)?[_-]?(?:pass(?:word|wd)?|secret|token|key"
    r"|api[_-]?key|value|string|none|null|nil|undefined|empty|required|optional|true|false"
    r"|todo|tbd|fixme|default|hidden|masked|secure|private|unset)s?$"
    r"|x{4,}|\*{3,}|\.{3}|…|#{4,}"
)
_TEMPLATE_SYNTAX = (
    r"""^[$%@&*]|^\{|\{\{|\}\}|\$\{|\$\(|<[^<>]*>|^\[|%[sdr]\b|%\([a-z_]+\)s"""
    r"""|^(?:!vault|ENC\[|vault:|(?:env|ENV)[.:])"""
)
_DOTTED_IDENTIFIER = r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?$"
_CALL_OR_INDEX = r"^[A-Za-z_][\w.]*[(\[]"  # get_token(), os.environ[...]
_LETTERS_ONLY = r"^[A-Za-z_.\-]+$"
_WORD_IN_PUNCTUATION = r"^[^\w\s]*[A-Za-z_]+[^\w\s]*$"  # ^PASS^, FUZZ}}, %PWD%
_HAS_LETTER = r"[A-Za-z]"
_PATH_OR_URL = r"^(?:[A-Za-z]:\\|\.{0,2}/|~/|[a-z][a-z0-9+.-]*://)"


_LEET = str.maketrans("@4031$57", "aaoeisst")
_TRAILING_DIGITS_AND_MARKS = r"[\d!?.#*]+$"


def looks_like_placeholder(value: str) -> bool:
    """True for values that stand in for a secret: template syntax (``${VAR}``, ``{{ x }}``,
    ``<your-token>``, ``%s``), encrypted references (``ENC[...]``, ``!vault``) and the words
    people type instead of one (``changeme``, ``xxxx``, ``EXAMPLE``, ``your_token_here``),
    also in the spellings documentation uses for them (``P@ssw0rd``, ``Passw0rd!``, ``s3cr3t``).
    """
    if _regex(_TEMPLATE_SYNTAX).search(value) or _regex(_PLACEHOLDER_WORDS, re.I).search(value):
        return True
    spelled_out = _regex(_TRAILING_DIGITS_AND_MARKS).sub("", value).lower().translate(_LEET)
    return spelled_out != value.lower() and bool(
        _regex(_PLACEHOLDER_WORDS, re.I).search(spelled_out)
    )


def looks_like_code_or_path(value: str) -> bool:
    """True for an assignment's right-hand side that is code (``settings.KEY``, ``get()``,
    ``os.environ[...]``), a filesystem path or a URL: the secret lives elsewhere."""
    return bool(
        _regex(_DOTTED_IDENTIFIER).match(value)
        or _regex(_CALL_OR_INDEX).match(value)
        or _regex(_PATH_OR_URL).match(value)
    )


def _decodes_to_json_object(segment: str) -> bool:
    padded = segment + "=" * (-len(segment) % 4)
    try:
        decoded = base64.urlsafe_b64decode(padded)
        return isinstance(json.loads(decoded), dict)
    except (binascii.Error, ValueError):
        return False


def _is_jwt(secret: str, match: re.Match[str], text: str) -> bool:
    """A JWT's first segment is base64url JSON; a look-alike with a broken header is not one."""
    return _decodes_to_json_object(secret.split(".", 1)[0])


def _gitlab_length(secret: str, match: re.Match[str], text: str) -> bool:
    """gitleaks' GitLab rules fix one length per prefix but no end, so they also fire on the head
    of a longer run (``glimt-`` and 29 characters). GitLab issues each prefix at a documented
    length or range (``_GITLAB_TOKEN``, detect-secrets' shapes): a longer run is not its token."""
    return _regex(_GITLAB_TOKEN).match(text, match.start()) is not None


_VENDOR_VALIDATORS: dict[str, tuple[Validator, ...]] = {
    "jwt": (_is_jwt,),
    **{
        f"gitlab-{name}": (_gitlab_length,)
        for name in (
            *("pat", "deploy-token", "feed-token", "scim-token", "runner-authentication-token"),
            *("rrt", "cicd-job-token", "incoming-mail-token", "ptt", "oauth-app-secret"),
            "kubernetes-agent-token",
        )
    },
}


# --- our generic rules ---------------------------------------------------------------------

_ASSIGNMENT_TAIL = (
    r"(?P<suffix>[A-Za-z0-9_.\-]{0,40})"  # rest of the key name
    r"[\"']?"  # closing quote of a JSON / YAML key
    r"(?P<op>[ \t]*(?:=>|::?=|=|:)[ \t]*|[ \t]+)"  # operator; a bare space only after --flags
    r"(?:\"(?P<dq>[^\"\s]+)\"|'(?P<sq>[^'\s]+)'"
    r"|(?P<bare>(?:[^\s\"'`,;&]|[,;&](?![\w.-]+=))+))"  # ";user=" ends a connection-string value
)
_IDENTIFIER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_CAMEL_PARTS = r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+"

# Key parts that turn "password"/"token"/"key" into metadata about a secret, not the secret.
_METADATA_PARTS = frozenset(
    {
        *("file", "path", "dir", "url", "uri", "endpoint", "id", "ids", "name", "names"),
        *("type", "types", "length", "len", "size", "min", "max", "policy", "field", "label"),
        *("prompt", "hint", "reset", "env", "var", "variable", "regex", "pattern", "required"),
        *("expiry", "expires", "expiration", "expired", "changed", "count", "mode", "enabled"),
        *("disabled", "placeholder", "format", "header", "param", "parameter", "rotation"),
        *("ref", "reference", "version", "provider", "prefix", "suffix", "limit", "timeout"),
        *("ttl", "usage", "used", "manager", "store", "storage", "source", "selector"),
        *("attribute", "attr", "input", "column", "table", "alias", "algorithm", "algo"),
        *("kind", "class", "vault", "age", "history", "complexity", "thru", "through"),
    }
)
# Key names where "key" means an index, a keyboard key or a public value.
_NON_SECRET_KEY_PARTS = frozenset(
    {
        *("public", "pub", "primary", "foreign", "sort", "partition", "hash", "cache", "hot"),
        *("short", "registry", "row", "range", "idempotency", "routing", "translation"),
        *("i18n", "lookup", "map", "dict", "object", "search", "index", "group", "unique"),
        *("natural", "composite", "candidate", "surrogate", "sequence", "schema", "bucket"),
        *("shortcut", "hotkey"),
    }
)


class AssignmentSpec(NamedTuple):
    """One ``<key> <op> <value>`` rule.

    ``words`` is the regex for the secret word in the key; its ``long`` group marks spellings
    specific enough to sit inside a longer name (``dbpassword``). Other words must start a name
    component (``bypass`` and ``monkey`` are not keys) unless ``glue`` (a regex for what may
    precede them, as in ``apikey``) matches. ``min_length``/``min_entropy`` say how random the
    value must look: less for a password, whose key already says what it is.
    """

    name: str
    words: str
    keywords: tuple[str, ...]
    min_length: int
    min_entropy: float
    glue: str = r"(?!)"
    excluded_parts: frozenset[str] = frozenset()


_ASSIGNMENTS = (
    AssignmentSpec(
        "password-assignment",
        r"(?P<long>passwords?|passwd|passphrase)|pass|pwd|pw",
        ("pass", "pwd", "pw"),
        min_length=6,
        min_entropy=1.5,
    ),
    AssignmentSpec(
        "secret-assignment",
        r"(?P<long>secrets?)",
        ("secret",),
        min_length=12,
        min_entropy=3.0,
    ),
    AssignmentSpec(
        "token-assignment",
        r"tokens?",
        ("token",),
        min_length=12,
        min_entropy=3.0,
        glue=r"(?:auth|access|api|bot|refresh|session|bearer|id)",
        excluded_parts=frozenset({"public", "csrf", "xsrf"}),
    ),
    AssignmentSpec(
        "api-key-assignment",
        r"keys?",
        ("key",),
        min_length=16,
        min_entropy=3.0,
        glue=r"(?:api|access|secret|private|auth|account|master|client|signing|encryption"
        r"|license|subscription|app|service)",
        excluded_parts=_NON_SECRET_KEY_PARTS,
    ),
)


def _parts(name: str) -> list[str]:
    return [part.lower() for part in _regex(_CAMEL_PARTS).findall(name)]


def _starts_component(text: str, index: int) -> bool:
    """Is ``index`` the start of a name component (snake, kebab, dotted or camelCase)?"""
    if index == 0 or not text[index - 1].isalpha():
        return True
    return text[index - 1].islower() and text[index].isupper()


def _ends_component(text: str, index: int) -> bool:
    if index >= len(text) or not text[index].isalpha():
        return True
    return text[index].isupper() and text[index - 1].islower()


def _key_start(text: str, index: int) -> int:
    """Start of the name around ``index`` (at most 64 characters back: names are short)."""
    floor = max(0, index - 64)
    while index > floor and text[index - 1] in _IDENTIFIER_CHARS:
        index -= 1
    return index


def _assignment_validator(spec: AssignmentSpec) -> Validator:
    """Accept a match only if its key names a secret and its value could be one."""
    glued = re.compile(rf"{spec.glue}[_.-]?$", re.IGNORECASE)

    def check(secret: str, match: re.Match[str], text: str) -> bool:
        word_start, word_end = match.span("word")
        key_start = _key_start(text, word_start)
        if not (
            match.groupdict().get("long")
            or _starts_component(text, word_start)
            or glued.search(text, key_start, word_start)
        ):
            return False
        if not _ends_component(text, word_end):
            return False  # passwordless, secretary, tokenizer
        key = text[key_start : match.end("suffix")]
        if spec.excluded_parts & set(_parts(key)) or _METADATA_PARTS & set(_parts(match["suffix"])):
            return False
        if not match.group("op").strip() and (not key.startswith("-") or secret.startswith("-")):
            return False  # "token value" is prose, "--token value" a command line
        return _plausible_value(secret, key, spec)

    return check


def _plausible_value(value: str, key: str, spec: AssignmentSpec) -> bool:
    if len(value) < spec.min_length or value.lower() == key.lower().strip("-_"):
        return False
    if _regex(_LETTERS_ONLY).match(value) or _regex(_WORD_IN_PUNCTUATION).match(value):
        return False  # identifiers and template markers
    if not _regex(_HAS_LETTER).search(value) or "\\" in value:
        return False  # numbers, durations, product-key masks; Windows paths
    if looks_like_placeholder(value) or looks_like_code_or_path(value):
        return False
    return shannon_entropy(value) >= spec.min_entropy


def _assignment_rule(spec: AssignmentSpec, shared_allowlists: tuple[Allowlist, ...]) -> Rule:
    return Rule(
        name=spec.name,
        regex=re.compile(rf"(?P<word>{spec.words}){_ASSIGNMENT_TAIL}", re.IGNORECASE),
        keywords=spec.keywords,
        priority=PRIORITY_ASSIGNMENT,
        groups=("dq", "sq", "bare"),
        allowlists=shared_allowlists,
        left_context=50,
        validators=(_assignment_validator(spec),),
    )


def _random_looking(min_entropy: float) -> Validator:
    def check(secret: str, match: re.Match[str], text: str) -> bool:
        return (
            not looks_like_placeholder(secret)
            and not _regex(_LETTERS_ONLY).match(secret)
            and shannon_entropy(secret) >= min_entropy
        )

    return check


def _url_password_plausible(secret: str, match: re.Match[str], text: str) -> bool:
    """A port (``host:8080@``) or a stand-in word is not a password."""
    return not (secret.isdigit() and len(secret) <= 5) and not looks_like_placeholder(secret)


_PEM_BEGIN = r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
_PEM_NEWLINE = r"(?:[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t]*)"  # real, or escaped inside a JSON string
_PEM_HEADER = r"(?:Proc-Type|DEK-Info|Comment):[^\r\n\\]*"
# Chunking can cut a key anywhere, so a BEGIN without its END is redacted too (and an END
# without its BEGIN, see _pem_tail_start). Lines are matched greedily, never by a lazy scan for
# END, which would cost a pass over the rest of the text for every BEGIN. The first body line
# must look like key material, so "BEGIN ... anything ... END" in prose stays.
_PEM_PRIVATE_KEY = (
    rf"{_PEM_BEGIN}(?:{_PEM_NEWLINE}+(?:{_PEM_HEADER}|[A-Za-z0-9+/=]{{16,}}))"
    rf"(?:{_PEM_NEWLINE}+(?:{_PEM_HEADER}|[A-Za-z0-9+/=]+))*(?:{_PEM_NEWLINE}+{_PEM_END})?"
)
_PEM_TAIL_LINE = r"[ \t]*[A-Za-z0-9+/=]+[ \t]*\r?"


def _pem_tail_start(text: str, end_marker: int) -> int | None:
    """Where the key lines above an END marker start, for a key whose BEGIN was cut off; None
    if there are none. Walking back from the marker keeps this linear in the text size."""
    start = end_marker
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    longest = 0
    while start > 0 and text[start - 1] == "\n":
        line_start = text.rfind("\n", 0, start - 1) + 1
        line = text[line_start : start - 1]
        if not _regex(_PEM_TAIL_LINE).fullmatch(line):
            break
        longest = max(longest, len(line.strip()))
        start = line_start
    return start if longest >= 16 else None


class _Structural(NamedTuple):
    """One of vaultctx's own rules, found by the secret's shape: ``keywords`` gate it,
    ``validators`` judge what it finds, ``reach_back`` as in ``Rule``."""

    name: str
    pattern: str
    keywords: tuple[str, ...]
    validators: tuple[Validator, ...] = ()
    entropy: float = 0.0
    reach_back: Callable[[str, int], int | None] | None = None


def _structural_rule(spec: _Structural) -> Rule:
    regex = re.compile(spec.pattern)
    return Rule(
        name=spec.name,
        regex=regex,
        keywords=spec.keywords,
        priority=PRIORITY_STRUCTURAL,
        entropy=spec.entropy,
        groups=_secret_groups(regex, 0),
        validators=spec.validators,
        reach_back=spec.reach_back,
    )


_TOKEN_END = r"(?![A-Za-z0-9_-])"
# GitLab's token formats as GitLab documents them and detect-secrets checks them: most are
# Devise.friendly_token (20 characters by default, longer by setting) or SecureRandom.hex,
# so 20-50 characters, exact lengths for the hex-derived ones. gitleaks' rules fix one length
# per prefix (and hex only for trigger tokens), so they miss longer or base64url tokens.
_GITLAB_TOKEN = (
    r"((?:glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_-]{20,50}"
    r"|GR1348941[A-Za-z0-9_-]{20,50}"
    r"|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_-]{20,50}"
    r"|glimt-[A-Za-z0-9_-]{25}|glptt-[A-Za-z0-9_-]{40}"
    r"|glagent-[A-Za-z0-9_-]{50,1024}|gloas-[A-Za-z0-9_-]{64})" + _TOKEN_END
)
_GITLAB_PREFIXES = (
    *("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "gr1348941", "glcbt-", "glimt-"),
    *("glptt-", "glagent-", "gloas-"),
)

# JFrog Artifactory credentials in detect-secrets' shapes (ArtifactoryDetector): API keys start
# with AKC (gitleaks only knows AKCp and exactly 69 more characters), encrypted passwords with AP
# and a hex digit (``AKC[a-zA-Z0-9]{10,}``, ``AP[\dABCDEF][a-zA-Z0-9]{8,}``). Both shapes are
# short and plain, so the whole run must stand alone: not inside a word or a base64 blob (an
# inline image), where such a run turns up by chance. The hex digit is spelt out so the rule
# runs only where "ap0"…"apf" occurs, not at every "ap" of "app" or "map".
_ARTIFACTORY_CREDENTIAL = (
    r"(?<![A-Za-z0-9_+/-])"
    r"(AKC[A-Za-z0-9]{10,}|AP(?:0|1|2|3|4|5|6|7|8|9|A|B|C|D|E|F)[A-Za-z0-9]{8,})"
    r"(?![A-Za-z0-9_+/-])"
)
_ARTIFACTORY_KEYWORDS = ("akc", *(f"ap{digit}" for digit in "0123456789abcdef"))


# The structural rules, in the order they are tried.
_STRUCTURAL = (
    _Structural("private-key", _PEM_PRIVATE_KEY, ("private key",)),
    _Structural("private-key", _PEM_END, ("-----end",), reach_back=_pem_tail_start),
    _Structural(
        "jwt",
        r"(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]{8,})?)",
        ("eyj",),
        (_is_jwt,),
    ),
    _Structural(
        "bearer-token",
        r"\b[Bb]earer[ \t]+([A-Za-z0-9\-._~+/]{12,}=*)(?![A-Za-z0-9\-._~+/])",
        ("bearer",),
        (_random_looking(min_entropy=3.0),),
    ),
    _Structural(
        "authorization-header",
        r"(?i)\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:(?:basic|token|api-?key|key|digest|sso-key)[ \t]+)?"
        r"([A-Za-z0-9\-._~+/]{8,}=*)(?![A-Za-z0-9\-._~+/])",
        ("authorization",),
        (_random_looking(min_entropy=2.5),),
    ),
    _Structural(
        "url-credentials",
        r"://[^\s:@/?#'\"`<>\[\]{}]{0,128}:([^\s@/?#'\"`<>\[\]{}]{1,256})@(?=[A-Za-z0-9\[])",
        ("://",),
        (_url_password_plausible,),
    ),
    _Structural(
        "telegram-bot-api-token",
        r"(?<![\w:])(\d{8,10}:AA[A-Za-z0-9_-]{33})(?![\w-])",
        (":aa",),
    ),
    _Structural(
        "mailchimp-api-key",
        r"(?<=(?<![0-9A-Za-z])([0-9a-f]{32}))-us\d{1,2}(?![\w-])",
        ("-us",),
    ),
    _Structural(
        "openai-api-key",
        r"\b(sk-(?:proj-)?[A-Za-z0-9_-]{20,74}T3BlbkFJ[A-Za-z0-9_-]{20,74})(?![\w-])",
        ("t3blbkfj",),
    ),
    # Bot tokens are base64(user id) . timestamp . HMAC; ids start with 1-9, so M, N or O.
    # No keyword pins them down, so this rule runs on every text; the leading class keeps
    # that cheap (the engine skips to the next M, N or O).
    _Structural(
        "discord-bot-token",
        r"[MNO](?<![A-Za-z0-9_-][MNO])[A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\."
        r"[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])",
        (),
    ),
    _Structural("gitlab-token", _GITLAB_TOKEN, _GITLAB_PREFIXES, entropy=3.0),
    # A letters-only run is an identifier (APDUResponse), a repeated character a filler
    # (AKCxxxxxxxxxx), as gitleaks' entropy limits treat ghp_xxxx…
    _Structural(
        "artifactory-credential",
        _ARTIFACTORY_CREDENTIAL,
        _ARTIFACTORY_KEYWORDS,
        (_random_looking(min_entropy=3.0),),
    ),
    # Square's OAuth application secret: gitleaks has the rule but its default config
    # no longer ships it.
    _Structural(
        "square-secret",
        rf"\b(sq0csp-[A-Za-z0-9_-]{{43}}){_TOKEN_END}",
        ("sq0csp-",),
        entropy=2.0,
    ),
    # IBM SoftLayer's SOAP endpoint takes the API key as a path segment.
    _Structural(
        "softlayer-api-key",
        rf"(?i)api\.softlayer\.com/soap/v3(?:\.1)?/([a-z0-9]{{64}}){_TOKEN_END}",
        ("api.softlayer.com/soap/",),
        entropy=2.0,
    ),
    _Structural(
        "pypi-upload-token",
        r"\b(pypi-AgENdGVzdC5weXBpLm9yZw[\w-]{50,1000})",
        ("pypi-agendgvzdc5wexbplm9yzw",),
    ),
)


def generic_rules(shared_allowlists: tuple[Allowlist, ...] = ()) -> list[Rule]:
    """vaultctx's own rules, for secrets gitleaks only finds with a file path or a vendor name.

    ``shared_allowlists`` (gitleaks' generic-api-key allowlists: stopwords and known non-secret
    key names) also guard the assignment rules, which look for the same shape.
    """
    return [
        *(_assignment_rule(spec, shared_allowlists) for spec in _ASSIGNMENTS),
        *(_structural_rule(spec) for spec in _STRUCTURAL),
    ]
