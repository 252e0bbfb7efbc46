"""Adding tags to a note's front matter by the smallest edit that does it.

Only the ``tags`` entry changes (a line appended to its list, or the one line of a ``[a, b]``
list rewritten); every other byte of the note stays. A front matter that does not parse is left
alone (an error: the caller skips the tags), and every result is parsed again and compared with
what it should hold before it is written, so a surprise in the user's YAML can never turn into a
damaged note.
"""

from __future__ import annotations

import re

import yaml

from vaultctx.vault.note import split_front_matter
from vaultctx.vault.writes import NoteChangeError

MAX_TAG_CHARS = 60
_NOT_TAG = re.compile(r"[^\w/-]+")
_HYPHENS = re.compile(r"-{2,}")
_TAGS_LINE = re.compile(r"^tags[ \t]*:[ \t]*(.*?)[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)-[ \t]")


def normalise_tag(raw: object) -> str:
    """``"#Machine Learning"`` → ``machine-learning``: lower case, hyphens for spaces, only
    letters, digits, ``_``, ``-`` and ``/``; "" for nothing usable (all digits is not a tag)."""
    if not isinstance(raw, str):
        return ""
    tag = "-".join(raw.strip().lstrip("#").lower().split())
    tag = _HYPHENS.sub("-", _NOT_TAG.sub("-", tag)).strip("-/")[:MAX_TAG_CHARS].strip("-/")
    return "" if not tag or tag.replace("/", "").isdigit() else tag


def existing_tags(text: str) -> list[str]:
    front, _, problems = split_front_matter(text)
    if problems:
        return []
    raw = front.get("tags")
    if isinstance(raw, str):
        raw = re.split(r"[,\s]+", raw)
    items = raw if isinstance(raw, list) else []
    return [normalise_tag(item) for item in items if normalise_tag(item)]


def merge_tags(text: str, tags: list[str], *, name: str = "the note") -> str:
    """``text`` with ``tags`` added to its front matter (those it has, compared after
    normalising, are not added twice); ``text`` itself when there is nothing to add."""
    front, offset, problems = split_front_matter(text)
    if problems:
        raise NoteChangeError(
            f"{name}: {problems[0]}; its tags were not changed", "fix its front matter"
        )
    have = set(existing_tags(text))
    new = [t for t in dict.fromkeys(normalise_tag(t) for t in tags) if t and t not in have]
    if not new:
        return text
    newline = "\r\n" if "\r\n" in text[: max(offset, 200)] else "\n"
    if offset == 0:
        block = "".join(f"  - {_scalar(t)}{newline}" for t in new)
        result = f"---{newline}tags:{newline}{block}---{newline}{text}"
    else:
        result = _edited(text, front.get("tags"), new, newline)
    _check(result, text, new, name)
    return result


def _edited(text: str, current: object, new: list[str], newline: str) -> str:
    lines = text.splitlines(keepends=True)
    close = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    found = next((i for i in range(1, close) if _TAGS_LINE.match(lines[i])), None)
    if found is None:  # no tags entry: one more at the end of the front matter
        block = [f"tags:{newline}", *(f"  - {_scalar(t)}{newline}" for t in new)]
        if not lines[close - 1].endswith("\n"):
            block.insert(0, newline)
        return "".join(lines[:close] + block + lines[close:])
    line = lines[found]
    ending = line[len(line.rstrip("\r\n")) :]
    match = _TAGS_LINE.match(line.rstrip("\r\n"))
    assert match is not None
    value = match.group(1)
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].rstrip()
        joined = ", ".join(_scalar(t) for t in new)
        lines[found] = f"tags: [{inner}, {joined}]" if inner.strip() else f"tags: [{joined}]"
        lines[found] += ending
        return "".join(lines)
    if value == "" or value.startswith("#"):  # a block list follows (or nothing yet)
        last, indent = found, "  "
        while last + 1 < close and _ITEM.match(lines[last + 1]):
            last += 1
            indent = _ITEM.match(lines[last]).group(1)  # type: ignore[union-attr]
        block = [f"{indent}- {_scalar(t)}{newline}" for t in new]
        if not lines[last].endswith("\n"):
            block.insert(0, newline)
        return "".join(lines[: last + 1] + block + lines[last + 1 :])
    # One value, or several separated by commas or spaces: the same line as a list.
    old = [str(v) for v in current] if isinstance(current, list) else re.split(r"[,\s]+", value)
    items = [v.strip().strip("\"'") for v in old if v.strip().strip("\"'")]
    lines[found] = "tags: [" + ", ".join([*map(_scalar, items), *map(_scalar, new)]) + "]" + ending
    return "".join(lines)


def _scalar(tag: str) -> str:
    """The tag as YAML reads it back as the same string (``true``, ``null``, ``1e3`` quoted)."""
    try:
        plain = yaml.safe_load(tag) == tag and ":" not in tag and not tag.startswith("#")
    except yaml.YAMLError:
        plain = False
    return tag if plain else '"' + tag.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check(result: str, original: str, new: list[str], name: str) -> None:
    before, _, _ = split_front_matter(original)
    after, _, problems = split_front_matter(result)
    others_kept = {k: v for k, v in after.items() if k != "tags"} == {
        k: v for k, v in before.items() if k != "tags"
    }
    if problems or not others_kept or not set(new) <= set(existing_tags(result)):
        raise NoteChangeError(
            f"{name}: its front matter is laid out in a way the tags could not be added to "
            "safely; its tags were not changed",
            "add the tags by hand",
        )


__all__ = ["existing_tags", "merge_tags", "normalise_tag"]
