"""Split a note body into retrieval chunks (docs/reference.md#chunking).

A chunk is a whitespace-trimmed slice of the body, so `Chunk.text == body[start:end]` always holds
and a search hit can point back into the file. The steps:

1. Sections: the body is split before every H2 line (`## `); the text before the first H2 is a
   section of its own. H1 lines are content, H3+ stay inside their H2 section; headings inside code
   fences are ignored (see `markdown_blocks`).
2. Short sections (under `min_chars`, e.g. a heading with nothing under it) are glued to the next
   section, or to the previous one when the next would push the pair over `max_chars` or when they
   are last, so no text is lost and no chunk is a bare heading.
3. A span longer than `max_chars` is cut into windows of at most `max_chars` characters. A cut
   goes to the latest paragraph break, else sentence end (". ", "? ", "! ", "。", newline), else
   whitespace: searched in the window's second half (first so that the last window keeps
   `min_chars`), then in the first half (never leaving a window under `min_chars`), else a hard
   cut. The next window starts at the first sentence start (else word start) at most `overlap`
   characters before the cut, so consecutive windows overlap by at most `overlap`, no slack.
   By default the cut's own sentence end counts as that start, so after a sentence longer than
   `overlap` the windows share nothing; `overlap_mid_sentence` starts the window at a word in
   the overlap instead (off by default: it lowered SciFact nDCG@10 by 0.0007, docs/benchmarks.md).
4. A cut never falls strictly inside a code fence unless the fence alone is longer than
   `max_chars`; such a fence is cut at line boundaries (hard cut only on a line with no break in a
   whole window). When this forces a short window, the window is merged into a neighbour if the
   union fits in `max_chars`, so a chunk under `min_chars` remains only where no merge fits.

Speed: about 0.2 ms of CPU per file on the PowerShell docs corpus (`bench/chunk_speed.py`), within
the 0.3 ms budget; the hand-written fence-aware scan is 10-20x faster than markdown-it-py.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from vaultctx.vault.markdown_blocks import Fence, Heading, outline

_NON_SPACE = re.compile(r"\S")
# A cut or window start sits right after the first character of one of these; trimming then
# moves it onto non-space text. Matching with str.find is ~5x faster than an equivalent regex.
_PARAGRAPH_BREAK = re.compile(r"\n(?=[ \t]*\n)")  # the position after it starts a blank line
_SENTENCE_ENDS = ("\n", ". ", "? ", "! ", "。", "？", "！")
_WORD_GAPS = (" ", "\t", "\n")

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Chunk:
    ordinal: int  # 0.. within the note
    section: str  # the H2 heading text in force at `start` ("" before the first H2)
    heading_path: tuple[str, ...]  # H2..H6 headings in force at `start`, outermost first
    text: str  # body[start:end], no leading or trailing whitespace
    start: int
    end: int


def chunk_text(
    body: str,
    *,
    max_chars: int = 2000,
    min_chars: int = 30,
    overlap: int = 200,
    overlap_mid_sentence: bool = False,
) -> list[Chunk]:
    """Chunks of `body` in document order; [] when the body is only whitespace."""
    _check_limits(max_chars, min_chars, overlap)
    structure = outline(body)
    sections = _section_spans(body, structure.headings)
    windower = _Windower(
        body, structure.fences, max_chars, min_chars, overlap, mid_sentence=overlap_mid_sentence
    )
    spans: list[Span] = []
    for start, end in _merge_short_sections(sections, min_chars, max_chars):
        spans.extend(windower.windows(start, end) if end - start > max_chars else [(start, end)])
    return _label(body, _absorb_short_spans(spans, min_chars, max_chars), structure.headings)


def heading_context(
    title: str, tags: Sequence[str], aliases: Sequence[str], heading_path: Sequence[str]
) -> str:
    """Where a chunk sits, as one line: "Title > Setup > Linux | aliases: a, b | tags: x, y/z".

    FTS indexes it at weight 0.3 and the embedder prepends it, so a chunk deep in a note still
    matches queries naming the note or its section.
    """
    trail = " > ".join(_present(title, *heading_path))
    parts = [trail] if trail else []
    if named_aliases := _present(*aliases):
        parts.append("aliases: " + ", ".join(named_aliases))
    if named_tags := _present(*tags):
        parts.append("tags: " + ", ".join(named_tags))
    return " | ".join(parts)


def _present(*names: str) -> list[str]:
    return [stripped for name in names if (stripped := name.strip())]


def _check_limits(max_chars: int, min_chars: int, overlap: int) -> None:
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    if not 0 <= min_chars <= max_chars:
        raise ValueError(f"min_chars must be between 0 and max_chars, got {min_chars}")
    if not 0 <= overlap < max_chars / 2:
        # Each window must advance by more than the overlap, or windows pile up on each other.
        raise ValueError(f"overlap must be >= 0 and below max_chars / 2, got {overlap}")


def _trimmed(body: str, start: int, end: int) -> Span | None:
    text = body[start:end]
    stripped = text.lstrip()
    if not stripped:
        return None
    start += len(text) - len(stripped)
    return start, start + len(stripped.rstrip())


def _section_spans(body: str, headings: Sequence[Heading]) -> list[Span]:
    bounds = [0, *(heading.start for heading in headings if heading.level == 2), len(body)]
    spans = (_trimmed(body, start, end) for start, end in pairwise(bounds))
    return [span for span in spans if span is not None]


def _merge_short_sections(sections: Sequence[Span], min_chars: int, max_chars: int) -> list[Span]:
    merged: list[Span] = []
    pending: Span | None = None  # a run of short sections waiting for a neighbour
    for start, end in sections:
        if pending is not None:
            previous_fits = bool(merged) and pending[1] - merged[-1][0] <= max_chars
            if end - pending[0] > max_chars and previous_fits:
                merged[-1] = (merged[-1][0], pending[1])
            else:
                start = pending[0]
            pending = None
        if end - start < min_chars:
            pending = (start, end)
        else:
            merged.append((start, end))
    if pending is not None:
        if merged:
            merged[-1] = (merged[-1][0], pending[1])
        else:
            merged.append(pending)
    return merged


def _absorb_short_spans(spans: Sequence[Span], min_chars: int, max_chars: int) -> list[Span]:
    """Merge each span under `min_chars` into a neighbour whenever the union fits in `max_chars`."""
    result: list[Span] = []
    for start, end in spans:
        if result:
            previous_start, previous_end = result[-1]
            short = previous_end - previous_start < min_chars or end - start < min_chars
            union_end = max(previous_end, end)
            if short and union_end - previous_start <= max_chars:
                result[-1] = (previous_start, union_end)
                continue
        result.append((start, end))
    return result


def _label(body: str, spans: Sequence[Span], headings: Sequence[Heading]) -> list[Chunk]:
    chunks = []
    trail: list[Heading] = []  # the H2..H6 headings in force, outermost first
    passed = 0
    for ordinal, (start, end) in enumerate(spans):
        while passed < len(headings) and headings[passed].start <= start:
            heading = headings[passed]
            passed += 1
            if heading.level >= 2:
                while trail and trail[-1].level >= heading.level:
                    trail.pop()
                trail.append(heading)
        section = trail[0].text if trail and trail[0].level == 2 else ""
        path = tuple(heading.text for heading in trail)
        chunks.append(Chunk(ordinal, section, path, body[start:end], start, end))
    return chunks


class _Windower:
    """Cuts over-long spans of one body into overlapping windows."""

    def __init__(
        self,
        body: str,
        fences: Sequence[Fence],
        max_chars: int,
        min_chars: int,
        overlap: int,
        *,
        mid_sentence: bool = False,
    ) -> None:
        self._body = body
        self._fences = fences
        self._fence_starts = [fence.start for fence in fences]
        self._max = max_chars
        self._min = min_chars
        self._overlap = overlap
        self._paragraph_breaks: list[int] = []
        self._mid_sentence = mid_sentence  # see the module docstring, step 3

    def windows(self, start: int, end: int) -> list[Span]:
        """Windows covering the trimmed span `body[start:end]` (longer than max_chars)."""
        # Blank lines may hold spaces, which str.find cannot express; they are rare enough to
        # list once per span, while sentence and word breaks are searched per window with find.
        breaks = _PARAGRAPH_BREAK.finditer(self._body, start, end)
        self._paragraph_breaks = [match.end() for match in breaks]
        windows: list[Span] = []
        window_start = frontier = start
        while end - window_start > self._max:
            cut = self._find_cut(window_start, self._first_progress(frontier), end)
            text = self._body[window_start:cut]
            windows.append((window_start, window_start + len(text.rstrip())))
            window_start = self._next_start(window_start, cut)
            frontier = cut
        windows.append((window_start, end))
        return windows

    def _first_progress(self, frontier: int) -> int:
        """The smallest allowed cut after `frontier` whose window gains non-space text.

        Past a small fence that begins right at the frontier, that is the fence's end: the next
        window must reach it, which bounds how far back its overlap may start.
        """
        first = self._first_non_space(frontier)
        index = bisect_left(self._fence_starts, first)
        if index < len(self._fences) and self._fence_starts[index] == first:
            fence = self._fences[index]
            if fence.length <= self._max:
                return fence.end
        return first + 1

    def _find_cut(self, window_start: int, earliest: int, end: int) -> int:
        limit = window_start + self._max
        # Preferred: a cut in the window's second half that leaves at least min_chars for the
        # last window. Then the second half without that margin. The first half only serves
        # when a fence fills the second, and never for a window under min_chars: a hard cut
        # beats a scrap (only a fence start may still force one, below).
        floor = max(earliest, window_start + self._max // 2)
        tail_margin = max(earliest, min(limit, end - self._min - 1))
        shortest = max(earliest, window_start + self._min + 1)
        ranges = ((floor, tail_margin), (max(floor, tail_margin + 1), limit), (shortest, floor - 1))
        for low, high in ranges:
            cut = self._latest_paragraph_break(low, high)
            if cut is None:
                cut = self._latest_after(_SENTENCE_ENDS, low, high)
            if cut is None:
                cut = self._latest_after(_WORD_GAPS, low, high)
            if cut is not None:
                return cut
        fence = self._fence_around(tail_margin)
        if fence is None:
            return tail_margin
        if fence.length <= self._max:
            return fence.start  # provably after `earliest`: the fence did not start at the frontier
        # In a fence too long to keep whole, any line start beats splitting a line.
        line_start = self._latest_after(("\n",), earliest, limit)
        return tail_margin if line_start is None else line_start

    def _next_start(self, window_start: int, cut: int) -> int:
        """The next window's start: the earliest sentence start (else word start) in the
        `overlap` characters before `cut`. With `mid_sentence` the cut itself is no candidate:
        it sits right after the paragraph or sentence end it was made at, so taking it leaves
        no overlap whenever the last sentence is longer than `overlap`."""
        low = max(cut - self._overlap, window_start + 1, self._first_progress(cut) - self._max)
        high = cut - 1 if self._mid_sentence else cut
        start = cut
        if low <= high:
            found = self._earliest_after(_SENTENCE_ENDS, low, high)
            if found is None or (self._mid_sentence and self._first_non_space(found) >= cut):
                found = self._earliest_after(_WORD_GAPS, low, high)
            if found is not None:
                start = found
            elif self._fence_around(low) is None:
                start = low
        return self._first_non_space(start)

    def _latest_paragraph_break(self, low: int, high: int) -> int | None:
        breaks = self._paragraph_breaks
        index = bisect_right(breaks, high) - 1
        while index >= 0 and breaks[index] >= low:
            if self._may_cut_at(breaks[index]):
                return breaks[index]
            index -= 1
        return None

    def _latest_after(self, needles: tuple[str, ...], low: int, high: int) -> int | None:
        """The last allowed position in [low, high] right after the first character of a needle."""
        body = self._body
        while low <= high:
            found = max(body.rfind(needle, low - 1, high - 1 + len(needle)) for needle in needles)
            if found < 0:
                return None
            position = found + 1
            fence = self._fence_around(position)
            if fence is None or self._may_cut_inside(fence, position):
                return position
            high = position - 1 if fence.length > self._max else min(position - 1, fence.start)
        return None

    def _earliest_after(self, needles: tuple[str, ...], low: int, high: int) -> int | None:
        """The first allowed position in [low, high] right after the first character of a needle."""
        body = self._body
        while low <= high:
            hits = [body.find(needle, low - 1, high - 1 + len(needle)) for needle in needles]
            found = min((hit for hit in hits if hit >= 0), default=-1)
            if found < 0:
                return None
            position = found + 1
            fence = self._fence_around(position)
            if fence is None or self._may_cut_inside(fence, position):
                return position
            low = position + 1 if fence.length > self._max else max(position + 1, fence.end)
        return None

    def _may_cut_at(self, position: int) -> bool:
        fence = self._fence_around(position)
        return fence is None or self._may_cut_inside(fence, position)

    def _may_cut_inside(self, fence: Fence, position: int) -> bool:
        """Only a fence too long to keep whole may be cut, and then only at line starts."""
        return fence.length > self._max and self._body[position - 1] == "\n"

    def _fence_around(self, position: int) -> Fence | None:
        """The fence strictly containing `position`, if any."""
        index = bisect_left(self._fence_starts, position) - 1
        if index >= 0 and position < self._fences[index].end:
            return self._fences[index]
        return None

    def _first_non_space(self, position: int) -> int:
        match = _NON_SPACE.search(self._body, position)
        return match.start() if match else len(self._body)
