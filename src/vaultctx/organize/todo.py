"""The daily to-do note (docs/organize.md#daily-to-do): today's note made from a template, the
unfinished items of the latest earlier note carried into it, old notes archived.

Planning is pure (``plan_todo`` takes texts and returns a ``TodoPlan``); ``run_todo`` reads the
vault, plans, and applies the plan through the ``Vault`` change methods, so every write is
confined to the vault, atomic, re-indexed and in the change ledger. Carrying copies: the earlier
note is never written (an archived one is moved, byte for byte).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import platformdirs

from vaultctx.api import Vault
from vaultctx.config import (
    APP_NAME,
    CONFIG_FILE_NAME,
    Config,
    ConfigError,
    read_toml,
    vault_relative_folder,
)
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext

NOTE_SUFFIX = " To-Do.md"
FALLBACK_TEMPLATE = "# 📋 {{date}}\n\n## To-Do\n\n- [ ] \n\n## Notes\n\n"
CARRY_OVER_HEADING = "## 🔄 Carry Over"
MEMO_HEADING = "## Notes"

# Headings are recognised by what they contain, case-insensitively (emoji and numbering aside).
TODO_WORDS = ("할 일", "할일", "to-do", "todo", "tasks")
CARRY_WORDS = ("이전 미완료", "미완료 업무", "carry over", "carry-over", "unfinished")
MEMO_WORDS = ("메모", "노트", "memo", "notes")

_DATED_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})(?: To-Do)?\.md")
_HEADING = re.compile(r"(#{1,6})[ \t]+(.*?)[ \t#]*")
# A checkbox item exactly as Markdown writes one: marker, one space, one state character.
_ITEM = re.compile(r"[-*+] \[(.)\](?:[ \t]+(.*))?")
# What looks like a checkbox but is not one (``-[ ]``, ``- [  ]``, ``-\t[ ]``, ``- [ ]text``).
_CHECKBOX_LIKE = re.compile(r"[-*+][ \t]*\[[^\]]{0,3}\]")
_PLACEHOLDER = re.compile(r"[-*+] \[ \][ \t]*")
_LIST_ITEM = re.compile(r"[-*+][ \t]+\S")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_SLASH_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])(?:[ \t]*\([^)\n]{1,3}\))?")
_KOREAN_DATE = re.compile(r"(\d{1,2})월[ \t]*(\d{1,2})일")


@dataclass(frozen=True)
class TodoSettings:
    """The ``[todo]`` table of vaultctx.toml; folders and the template are vault-relative."""

    folder: str = "ToDo"
    archive_folder: str = "ToDo/Archive"
    archive_days: int = 7
    template: str = "Templates/Daily To-Do.md"
    archive_clean_days: int = 90  # `vaultctx todo --clean-archive`: older ones go to .trash/


@dataclass(frozen=True)
class TodoPlan:
    """What a run does. ``content`` is None when today's note exists already (it is kept)."""

    today: date
    path: str
    content: str | None
    source: str | None = None  # the earlier note carried from
    carried: int = 0  # top-level items (their sub-items travel with them)
    memos: int = 0
    unrecognised: list[int] = field(default_factory=list)  # source lines, 1-based
    archive: list[tuple[str, str]] = field(default_factory=list)  # (from, to)
    skipped: list[str] = field(default_factory=list)  # not archived: the name is taken there


@dataclass(frozen=True)
class TodoRun:
    plan: TodoPlan
    dry_run: bool
    records: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "path": plan.path,
            "created": plan.content is not None,
            "carried": plan.carried,
            "memos": plan.memos,
            "source": plan.source,
            "unrecognised_lines": plan.unrecognised,
            "archived": [destination for _, destination in plan.archive],
            "skipped": plan.skipped,
            "records": self.records,
            "dry_run": self.dry_run,
            "notices": self.notices,
        }


# -- settings ----------------------------------------------------------------------------------


def load_todo_settings(config: Config, user_config_dir: Path | None = None) -> TodoSettings:
    """``[todo]`` from the user's vaultctx.toml, then the vault's (the vault's wins, per key)."""
    folder = user_config_dir or Path(platformdirs.user_config_dir(APP_NAME))
    values: dict[str, Any] = {}
    for path in (folder / CONFIG_FILE_NAME, config.vault / CONFIG_FILE_NAME):
        if not path.is_file():
            continue
        table = read_toml(path).get("todo", {})
        if not isinstance(table, Mapping):
            raise ConfigError(
                f"{path}: 'todo' must be a table", 'write it as [todo] folder = "ToDo"'
            )
        for key, value in table.items():
            values[key] = _setting(path, key, value)
    return TodoSettings(**values)


def _setting(path: Path, key: str, value: object) -> object:
    default = getattr(TodoSettings(), key, None)
    if default is None:
        known = ", ".join(TodoSettings.__dataclass_fields__)
        raise ConfigError(f"{path}: unknown setting [todo] {key}", f"use one of {known}")
    if key in ("archive_days", "archive_clean_days"):
        if type(value) is not int or value < 1:
            raise ConfigError(
                f"{path}: [todo] {key} must be a whole number of days, 1 or more, got {value!r}",
                f"write {key} = {default}, the default",
            )
        return value
    if isinstance(value, str) and not value.strip():
        return default  # a blank folder means the default, as in Obsidian's settings
    return vault_relative_folder(f"[todo] {key}", value, path)


# -- reading notes -----------------------------------------------------------------------------


def note_date(name: str) -> date | None:
    """The day a to-do note is for, from its file name (``2026-12-01 To-Do.md`` or the older
    ``2026-12-01.md``); None for any other name."""
    match = _DATED_NAME.fullmatch(name)
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


def _lines(text: str) -> list[str]:
    """The lines of a note, CRLF or LF, without their endings (``splitlines`` would also split
    on form feeds and Unicode separators, which are text here)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _is_prose(lines: Sequence[str]) -> list[bool]:
    """Which lines are Markdown structure, not front matter or fenced code."""
    prose = [True] * len(lines)
    start = 0
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() in ("---", "..."):
                prose[: index + 1] = [False] * (index + 1)
                start = index + 1
                break
    fence: str | None = None
    for index in range(start, len(lines)):
        stripped = lines[index].lstrip()
        marker = stripped[:3]
        if fence is None and marker in ("```", "~~~"):
            fence = marker
            prose[index] = False
        elif fence is not None:
            prose[index] = False
            if stripped.startswith(fence):
                fence = None
    return prose


def _heading(line: str) -> tuple[int, str] | None:
    match = _HEADING.fullmatch(line)
    return (len(match.group(1)), match.group(2)) if match else None


def _matches(title: str, words: Sequence[str]) -> bool:
    folded = title.casefold()
    return any(word in folded for word in words)


def _same_name(title: str) -> str:
    return " ".join(title.split()).casefold()


# -- carry-over --------------------------------------------------------------------------------


@dataclass
class _CarryOver:
    blocks: list[tuple[str | None, list[str]]]  # (### subsection or None, item + sub-items)
    memos: list[str]
    unrecognised: list[int]


def _carry_over(text: str, today: date) -> _CarryOver:
    lines = _lines(text)
    prose = _is_prose(lines)
    # The sections each line is in: its ## heading and its ### heading.
    h2: list[str | None] = []
    h3: list[str | None] = []
    current2: str | None = None
    current3: str | None = None
    for index, line in enumerate(lines):
        heading = _heading(line) if prose[index] else None
        if heading is not None:
            level, title = heading
            if level <= 2:
                current2, current3 = (title if level == 2 else None), None
            elif level == 3:
                current3 = title
        h2.append(current2)
        h3.append(current3)
    todo_section = next((t for t in h2 if t is not None and _matches(t, TODO_WORDS)), None)
    subsections = {
        h3[index]
        for index, line in enumerate(lines)
        if prose[index] and h2[index] == todo_section and (_heading(line) or (0, ""))[0] == 3
    }
    by_subsection = todo_section is not None and len(subsections) >= 2

    blocks: list[tuple[str | None, list[str]]] = []
    unrecognised: list[int] = []
    carried_lines: set[int] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        item = _ITEM.fullmatch(line) if prose[index] else None
        if item is None:
            if prose[index] and _CHECKBOX_LIKE.match(line):
                unrecognised.append(index + 1)
            index += 1
            continue
        if item.group(1) != " " or not (item.group(2) or "").strip():
            index += 1  # done, cancelled or an empty placeholder
            continue
        block = [line]
        carried_lines.add(index)
        index += 1
        while index < len(lines) and lines[index][:1] in (" ", "\t") and lines[index].strip():
            block.append(lines[index])
            carried_lines.add(index)
            index += 1
        target = h3[index - 1] if by_subsection and h2[index - 1] == todo_section else None
        blocks.append((target, block))

    memos = [
        line
        for index, line in enumerate(lines)
        if prose[index]
        and index not in carried_lines
        and h2[index] is not None
        and _matches(h2[index] or "", MEMO_WORDS)
        and _LIST_ITEM.match(line)
        and _is_current_memo(line, today)
    ]
    return _CarryOver(blocks, memos, unrecognised)


def _is_current_memo(line: str, today: date) -> bool:
    """A memo dated today or later (YYYY-MM-DD, M/D with an optional weekday, or N월 N일; a date
    without a year is in today's year) with some text after the date."""
    found: list[tuple[int, int, date]] = []
    for pattern in (_ISO_DATE, _SLASH_DATE, _KOREAN_DATE):
        for match in pattern.finditer(line):
            numbers = [int(group) for group in match.groups() if group and group.isdigit()]
            year, month, day = numbers if len(numbers) == 3 else [today.year, *numbers]
            try:
                found.append((match.start(), match.end(), date(year, month, day)))
            except ValueError:
                continue
    if not found:
        return False
    _, end, when = min(found)
    return when >= today and bool(line[end:].strip(" \t-:,.)"))


# -- writing the new note ----------------------------------------------------------------------


def _find_heading(lines: list[str], level: int, accept: Any) -> int | None:
    prose = _is_prose(lines)
    for index, line in enumerate(lines):
        heading = _heading(line) if prose[index] else None
        if heading is not None and heading[0] == level and accept(heading[1]):
            return index
    return None


def _insert(lines: list[str], heading: int, block: list[str]) -> None:
    """``block`` into the section under ``lines[heading]``: in place of its first empty ``- [ ]``,
    else after its last line, before the next heading."""
    prose = _is_prose(lines)
    end = next(
        (i for i in range(heading + 1, len(lines)) if prose[i] and _heading(lines[i])),
        len(lines),
    )
    for index in range(heading + 1, end):
        if prose[index] and _PLACEHOLDER.fullmatch(lines[index]):
            lines[index : index + 1] = block
            return
    body = lines[heading + 1 : end]
    while body and not body[-1].strip():
        body.pop()
    lines[heading + 1 : end] = [*(body or [""]), *block, ""]


def _append_section(lines: list[str], title: str, block: list[str]) -> None:
    while lines and not lines[-1].strip():
        lines.pop()
    lines.extend(["", title, "", *block, ""])


def render_note(template: str, today: date, carry: _CarryOver | None) -> str:
    """Today's note: ``template`` with ``{{date}}`` and ``{{prevDate}}`` (yesterday) filled in,
    and the carried items and memos placed (see the module docs)."""
    text = template.replace("{{date}}", today.isoformat())
    text = text.replace("{{prevDate}}", (today - timedelta(days=1)).isoformat())
    lines = _lines(text)
    if carry is None or not (carry.blocks or carry.memos):
        return "\n".join(lines) + "\n"
    leftover: list[str] = []
    for subsection, block in carry.blocks:
        wanted = _same_name(subsection) if subsection is not None else None
        found = None
        if wanted is not None:
            found = _find_heading(lines, 3, lambda title, w=wanted: _same_name(title) == w)
        if found is None:
            leftover.extend(block)
        else:
            _insert(lines, found, block)
    if leftover:
        found = _find_heading(lines, 2, lambda title: _matches(title, CARRY_WORDS))
        if found is None:
            _append_section(lines, CARRY_OVER_HEADING, leftover)
        else:
            _insert(lines, found, leftover)
    if carry.memos:
        found = _find_heading(lines, 2, lambda title: _matches(title, MEMO_WORDS))
        if found is None:
            _append_section(lines, MEMO_HEADING, carry.memos)
        else:
            _insert(lines, found, carry.memos)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n"


# -- the plan ----------------------------------------------------------------------------------


def plan_todo(
    today: date,
    notes: Mapping[str, str],
    *,
    settings: TodoSettings | None = None,
    template: str | None = None,
    archived: Collection[str] = (),
) -> TodoPlan:
    """What to do today. ``notes``: the to-do notes of the folder (vault-relative path -> text;
    other files are ignored); ``template``: the template's text (None: the built-in one);
    ``archived``: the names already in the archive folder."""
    settings = settings or TodoSettings()
    dated = sorted(
        (day, path)
        for path, day in ((path, note_date(path.rsplit("/", 1)[-1])) for path in notes)
        if day is not None
    )
    path = f"{settings.folder}/{today.isoformat()}{NOTE_SUFFIX}"
    exists = path in notes or any(day == today for day, _ in dated)
    plan_archive, skipped = _archive(dated, today, settings, archived)
    if exists:
        return TodoPlan(today, path, None, archive=plan_archive, skipped=skipped)
    earlier = [(day, note) for day, note in dated if day < today]
    # Of two notes for one day, the current naming wins (it sorts after the older one).
    source = earlier[-1][1] if earlier else None
    carry = _carry_over(notes[source], today) if source is not None else None
    content = render_note(template if template is not None else FALLBACK_TEMPLATE, today, carry)
    return TodoPlan(
        today,
        path,
        content,
        source=source,
        carried=len(carry.blocks) if carry else 0,
        memos=len(carry.memos) if carry else 0,
        unrecognised=carry.unrecognised if carry else [],
        archive=plan_archive,
        skipped=skipped,
    )


def _archive(
    dated: list[tuple[date, str]], today: date, settings: TodoSettings, archived: Collection[str]
) -> tuple[list[tuple[str, str]], list[str]]:
    """Notes dated strictly before today minus ``archive_days`` go to the archive folder; a name
    already taken there is skipped (and reported), never overwritten."""
    cutoff = today - timedelta(days=settings.archive_days)
    moves: list[tuple[str, str]] = []
    skipped: list[str] = []
    taken = set(archived)
    for day, path in dated:
        if day >= cutoff:
            continue
        name = path.rsplit("/", 1)[-1]
        if name in taken:
            skipped.append(path)
            continue
        taken.add(name)
        moves.append((path, f"{settings.archive_folder}/{name}"))
    return moves, skipped


# -- running it --------------------------------------------------------------------------------


def _folder(root: Path, relative: str, setting: str) -> Path:
    folder = root / relative
    for part in [*reversed(folder.relative_to(root).parents[:-1]), folder.relative_to(root)]:
        if (root / part).exists() and not (root / part).is_dir():
            raise VaultctxError(
                f"{part.as_posix()} is a file, not a folder, so the to-do notes cannot go in "
                f"{relative}",
                f"rename or move the file {part.as_posix()}, or set [todo] {setting} in "
                f"{CONFIG_FILE_NAME} to another folder",
            )
    return folder


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def run_todo(vault: Vault, today: date, *, dry_run: bool = False) -> TodoRun:
    """Make today's to-do note (if there is none), then archive old ones, as one ledger record:
    one ``vaultctx undo`` removes today's note and brings every archived note back."""
    settings = load_todo_settings(vault.config)
    root = vault.path
    folder = _folder(root, settings.folder, "folder")
    archive = _folder(root, settings.archive_folder, "archive_folder")
    notes = {
        f"{settings.folder}/{entry.name}": _read(entry)
        for entry in (sorted(folder.iterdir()) if folder.is_dir() else [])
        if entry.is_file() and note_date(entry.name) is not None
    }
    archived = {entry.name for entry in archive.iterdir()} if archive.is_dir() else set()
    template_file = root / settings.template
    template = _read(template_file) if template_file.is_file() else None
    plan = plan_todo(today, notes, settings=settings, template=template, archived=archived)
    if dry_run or (not plan.archive and plan.content is None):
        return TodoRun(plan, dry_run=dry_run)
    parts = [f"archive {len(plan.archive)} note(s)"] if plan.archive else []
    parts += [f"create {plan.path}"] if plan.content is not None else []
    label = f"todo {today.isoformat()}: {', '.join(parts)}"
    with vault.change_batch(ChangeContext(label, source="cli"), "todo") as batch:
        for source, destination in plan.archive:
            batch.move(source, destination)
        if plan.content is not None:
            batch.create(plan.path, plan.content)
    change = batch.change
    records = [change.record_id] if change is not None and change.record_id else []
    notices = list(dict.fromkeys(change.notices)) if change is not None else []
    return TodoRun(plan, dry_run=False, records=records, notices=notices)
