"""Markdown from a hostile source (a web page, a model's reply about one) made safe to save.

A note is not inert: Obsidian renders raw HTML, opens links, loads remote images, and popular
plugins run code written in a note (Templater's ``<% %>``, Dataview's ``dataviewjs`` blocks and
``$=`` inline queries). A clipped page must not bring any of that into the vault, nor markers
that would end or start a generated block. So, outside code:

- every ``<`` is written ``&lt;`` (it renders the same), so nothing is tag-like (``<script``,
  ``</div``, ``<!--``, ``<%``), however the pieces around it are rearranged below;
- a link whose target has a scheme other than http, https or mailto keeps only its text
  (``[click](javascript:…)`` → ``click``); a relative link is made absolute against the page's
  URL (in a note it would point into the vault), or keeps only its text without one; images keep
  only their alt text (no remote image loads when the note is opened);
- every ``[`` that does not open a kept link is escaped, so page text never links to or embeds
  the user's own notes (``[[…]]``) nor makes a checkbox; a kept link's target has its ``[`` and
  ``]`` percent-encoded (``http://host/![[Roadmap]]`` would otherwise embed the note ``Roadmap``);
- inline code that Dataview would evaluate (starting ``=`` or ``$=``) gets a zero-width space
  first;

fences whose language a plugin executes become ``text`` fences, wherever they stand (a fence in a
blockquote or list item counts too); control characters are dropped; and marker-like comment
openers are neutralised (vaultctx.brain.markers).

The rules above judge code spans and fences their own way; the indexer has its own (vault.links).
So ``without_vault_links`` has the last word on a whole clipped note: it asks the indexer's link
reader what it would record and escapes exactly that, whatever the rules missed (a code span the
two read differently, or one cut in two where a long article is truncated).
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit, urlunsplit

from vaultctx.brain.markers import ZERO_WIDTH, neutralise
from vaultctx.vault.links import link_offsets

# Code-block languages that plugins run or query with when a note is opened.
EXECUTED_FENCES = frozenset(
    {
        "dataviewjs",
        "dataview",
        "js-engine",
        "templater",
        "button",
        "tasks",
        "query",
        "meta-bind",
        "meta-bind-js",
        "run-js",
        "run-python",
        "run-shell",
        "shell-commands",
    }
)
_SAFE_SCHEMES = ("http", "https", "mailto")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_ANGLE = re.compile(r"\\?<")
_BRACKET = re.compile(r"(?<!\\)\[")
_EXECUTED_FENCE = re.compile(
    r"(`{3,}|~{3,})[ \t]*\{?[ \t]*("
    + "|".join(sorted(EXECUTED_FENCES, key=len, reverse=True))
    + r"|dataview[\w-]*|run-[\w-]+)(?![\w-])",
    re.IGNORECASE,
)
# [text](target ...) or ![alt](target ...); target may be <bracketed>.
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*(<[^>\n]*>|[^)\s]*)[^)\n]*\)")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def safe_markdown(text: str, base_url: str | None = None) -> str:
    """``text`` with everything listed in the module docstring made inert; relative links are
    resolved against ``base_url``."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(2)
            lines.append(line)
        elif fence is not None:
            if opened and _closes(fence, opened.group(2), opened.group(3)):
                fence = None
            lines.append(line)
        else:
            lines.append(_safe_prose(line, base_url))
    joined = _EXECUTED_FENCE.sub(lambda m: f"{m.group(1)}text", "\n".join(lines))
    return without_vault_links(neutralise(joined))


def _closes(fence: str, marker: str, rest: str) -> bool:
    """CommonMark: the same character, at least as long, nothing after it."""
    return marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip()


def _safe_prose(line: str, base_url: str | None) -> str:
    parts: list[str] = []
    position = 0
    for code in _INLINE_CODE.finditer(line):
        parts.append(_safe_outside_code(line[position : code.start()], base_url))
        ticks, inner = code.group(1), code.group(2)
        if inner.lstrip().startswith(("=", "$=")):
            inner = ZERO_WIDTH + inner
        parts.append(f"{ticks}{inner}{ticks}")
        position = code.end()
    parts.append(_safe_outside_code(line[position:], base_url))
    return "".join(parts)


def _safe_outside_code(text: str, base_url: str | None) -> str:
    parts: list[str] = []
    position = 0
    for link in _LINK.finditer(text):
        parts.append(_inert(text[position : link.start()]))
        parts.append(_safe_link(link, base_url=base_url))
        position = link.end()
    parts.append(_inert(text[position:]))
    return "".join(parts)


def _inert(text: str) -> str:
    return _BRACKET.sub(r"\\[", _ANGLE.sub("&lt;", text))


def _safe_link(link: re.Match[str], *, base_url: str | None) -> str:
    image, label, target = link.group(1), _inert(link.group(2)), link.group(3).strip("<>")
    if image or not target:
        return label
    if not _SCHEME.match(target):
        if base_url is None or target.startswith("#"):
            return label
        target = urljoin(base_url, target)
    scheme = _SCHEME.match(target)
    if scheme is None or scheme.group(1).lower() not in _SAFE_SCHEMES:
        return label
    return f"[{label}](<{link_target(target)}>)"


def link_target(url: str) -> str:
    """``url`` as a link target: it cannot end the ``<...>`` it is written in, and holds no
    ``[`` or ``]`` that could make a wiki-link (percent-encoded, the same URL to a server), except
    in the host, where they enclose an IPv6 address."""
    url = url.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E").replace("\n", "")
    if "[" not in url and "]" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # brackets in the host that enclose no IPv6 address
        return _without_brackets(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not (host.startswith("[") and host.count("[") == 1):
        host = _without_brackets(host)
    netloc = _without_brackets(userinfo) + at + host
    rest = [_without_brackets(part) for part in parts[2:]]
    return urlunsplit((parts.scheme, netloc, *rest))


def _without_brackets(text: str) -> str:
    return text.replace("[", "%5B").replace("]", "%5D")


def without_vault_links(text: str) -> str:
    """``text`` with a ``\\`` before each link the indexer would record in it: none is left to
    link to or embed a note of the vault. Escaping one can expose another (``[[[a]]``), so
    again until none is found; each round escapes at least one ``[``, so it ends."""
    for _ in range(text.count("[") + 1):
        starts = link_offsets(text)
        if not starts:
            break
        for start in reversed(starts):
            text = f"{text[:start]}\\{text[start:]}"
    return text
