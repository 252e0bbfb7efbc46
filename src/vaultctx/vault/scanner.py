"""Find the files of a vault that vaultctx indexes (docs/reference.md#reading-the-vault).

The walk is the first thing every index run does, so it is built for speed: ``os.scandir`` (file
types come from the directory listing, no extra system call), ignored folders are pruned rather
than filtered afterwards (a vault can hold a 100k-file ``node_modules``), and only the files that
survive the ignore rules are ``stat``-ed.

Ignore rules follow git exactly because users copy patterns from their ``.gitignore``. ``pathspec``
decides for files; for folders it is asked the question git asks (is this folder itself excluded?),
which its file-oriented API answers only when directory-only patterns lose their trailing slash.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from vaultctx.vault.errors import UnreadableFileError, VaultNotFoundError

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

INDEXED_SUFFIXES = frozenset({".md", ".txt", ".csv", ".json", ".html", ".htm"})
IGNORE_FILE_NAME = ".indexignore"
# Where else an ignore rule comes from (``IgnoreRule.source``): ``ignore`` in vaultctx.toml, and
# vaultctx's own defaults.
IGNORE_SETTING = "vaultctx.toml"
DEFAULT_SOURCE = "default"
_INDEXED_ENDINGS = tuple(INDEXED_SUFFIXES)

# Applied before the user's .indexignore, so a `!pattern` line there can bring them back.
DEFAULT_IGNORES = (".obsidian/", ".trash/", "node_modules/", "*.excalidraw.md")

# What pathspec makes of DEFAULT_IGNORES, as ``_active`` lists it for files and for folders: a vault
# with no .indexignore and no ``ignore`` setting then imports pathspec (~11 ms of a no-op index
# run) only if a path matches one of them. A test keeps these equal to pathspec's own.
_DEFAULT_FILE_PATTERNS: tuple[tuple[str, str], ...] = (
    (".obsidian/", r"^(?:.+/)?\.obsidian(?:/)"),
    (".trash/", r"^(?:.+/)?\.trash(?:/)"),
    ("node_modules/", r"^(?:.+/)?node_modules(?:/)"),
    ("*.excalidraw.md", r"^(?:.+/)?[^/]*\.excalidraw\.md(?:(?:/)|$)"),
)
_DEFAULT_FOLDER_PATTERNS: tuple[tuple[str, str], ...] = (
    (".obsidian", r"^(?:.+/)?\.obsidian(?:(?:/)|$)"),
    (".trash", r"^(?:.+/)?\.trash(?:(?:/)|$)"),
    ("node_modules", r"^(?:.+/)?node_modules(?:(?:/)|$)"),
    ("*.excalidraw.md", r"^(?:.+/)?[^/]*\.excalidraw\.md(?:(?:/)|$)"),
)

# Never indexed, whatever .indexignore says: git's object store and vaultctx's own files.
_GIT_DIR_NAME = ".git"
_OWN_FILES_PREFIX = ".vaultctx"
OWN_FILES_REASON = "is inside git's or vaultctx's own files"

_SCANDIR_TAKES_FD = os.scandir in os.supports_fd
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)  # absent on Windows, where links need privileges
_BINARY_SNIFF_BYTES = 8192
_INDEX_AGAIN = "run `vaultctx index` again"
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_ANY_PARENT_PREFIX = "^(?:.+/)?"  # how pathspec starts the regex of a pattern without a slash


class VaultFile(NamedTuple):
    """A file to index; ``path`` is the stable identity used by the index and in every result.

    A named tuple and a plain string location because a scan makes one per file: a frozen
    dataclass costs twice as much to build and 14k ``Path`` objects a third of the whole scan,
    while an incremental index run reads (and needs ``abs_path`` for) only the few changed files.
    """

    path: str
    fs_path: str
    mtime_ns: int
    size: int

    @property
    def abs_path(self) -> Path:
        return Path(self.fs_path)


@dataclass(frozen=True)
class Skipped:
    """A file or folder that looked indexable but was left out; ``reason`` is shown to users."""

    path: str
    reason: str


@dataclass
class ScanResult:
    """Both lists sorted by path."""

    files: list[VaultFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True)
class IgnoreRule:
    """One ignore pattern and where it was written, so a refusal names the rule the user can
    change: ``source`` is ``.indexignore`` (with its ``line``), ``IGNORE_SETTING`` or
    ``DEFAULT_SOURCE``; "" when the rules were built without their origins."""

    pattern: str
    source: str = ""
    line: int | None = None

    def __str__(self) -> str:
        shown = _quoted(self.pattern)
        if self.source == IGNORE_FILE_NAME:
            return f"the pattern {shown} on line {self.line} of {IGNORE_FILE_NAME}"
        if self.source == IGNORE_SETTING:
            return f"the pattern {shown} in the ignore setting of vaultctx.toml"
        if self.source == DEFAULT_SOURCE:
            return f"the default pattern {shown}"
        return f"the ignore pattern {shown}"

    @property
    def fix(self) -> str:
        """How the user lifts it (completing a sentence)."""
        shown = _quoted(self.pattern)
        if self.source == IGNORE_FILE_NAME:
            return f"remove line {self.line} ({shown}) from {IGNORE_FILE_NAME}"
        if self.source == IGNORE_SETTING:
            return f"remove {shown} from the ignore setting in vaultctx.toml"
        if self.source == DEFAULT_SOURCE:
            return f"add the line {_quoted('!' + self.pattern)} to {IGNORE_FILE_NAME}"
        return f"remove {shown} from the vault's ignore rules"


def _quoted(pattern: str) -> str:
    """A pattern from the vault, quoted with its control characters escaped and its length
    capped: it is shown in terminals and sent to models."""
    return json.dumps(pattern if len(pattern) <= 120 else pattern[:120] + "…", ensure_ascii=False)


class IgnoreRules:
    """The default exclusions plus ``.indexignore``, with git's semantics.

    Asking ``pathspec`` costs ~6 µs a path, most of a 14k-file scan's budget, and almost no path
    matches any pattern. So every question first goes to one regex combining all the patterns:
    when none of them matches, the answer is "not excluded" without asking ``pathspec``. For files
    the test is split: patterns without a slash (git matches them against the name) run on the
    short name, the rest on the path. A pattern matching a parent folder makes that folder's files
    skip the shortcut (``folder_is_touched``).
    """

    def __init__(self, lines: Sequence[str], origins: Sequence[IgnoreRule] = ()) -> None:
        self._lines = list(lines)
        # Each line's source (``load_ignore_rules``); rules built from bare lines have none.
        self._origins = list(origins)
        self._file_spec: GitIgnoreSpec | None = None
        self._folder_spec: GitIgnoreSpec | None = None
        # The defaults hold no negation (``!``): a path one of them matches is excluded, so they
        # are answered from their regexes alone, and pathspec is not imported (~11 ms).
        self._only_defaults = tuple(self._lines) == DEFAULT_IGNORES
        if self._only_defaults:
            file_patterns, folder_patterns = _DEFAULT_FILE_PATTERNS, _DEFAULT_FOLDER_PATTERNS
        else:
            file_patterns, folder_patterns = _active(self._files), _active(self._folders)
        self._any_file_pattern = _any_of([regex for _, regex in file_patterns])
        self._any_folder_pattern = _any_of([regex for _, regex in folder_patterns])
        # Tested against a bare name, the "any parent folders" prefix can only match "";
        # dropping it saves the regex engine a backtracking scan of every name.
        self._name_prefilter = _any_of(
            [
                regex.replace(_ANY_PARENT_PREFIX, "^", 1)
                for line, regex in file_patterns
                if _matches_names_only(line)
            ]
        )
        self._path_prefilter = _any_of(
            [regex for line, regex in file_patterns if not _matches_names_only(line)]
        )

    @property
    def _files(self) -> GitIgnoreSpec:
        if self._file_spec is None:
            from pathspec import GitIgnoreSpec

            self._file_spec = GitIgnoreSpec.from_lines(self._lines)
        return self._file_spec

    @property
    def _folders(self) -> GitIgnoreSpec:
        if self._folder_spec is None:
            from pathspec import GitIgnoreSpec

            lines = [_without_dir_slash(line) for line in self._lines]
            self._folder_spec = GitIgnoreSpec.from_lines(lines)
        return self._folder_spec

    def excludes_folder(self, rel_path: str) -> bool:
        return (
            self._any_folder_pattern is not None
            and self._any_folder_pattern.search(rel_path) is not None
            and (self._only_defaults or bool(self._folders.match_file(rel_path)))
        )

    def folder_is_touched(self, rel_path: str) -> bool:
        """True when some pattern matches this folder, so its files cannot use the name test."""
        return (
            self._any_file_pattern is not None
            and self._any_file_pattern.search(rel_path + "/") is not None
        )

    def excludes_file(self, rel_path: str, name: str, folder_is_touched: bool) -> bool:
        if not (
            folder_is_touched
            # `search`, as pathspec does: a few of its regexes are not anchored (`*/` is "/").
            or (self._name_prefilter is not None and self._name_prefilter.search(name))
            or (self._path_prefilter is not None and self._path_prefilter.search(rel_path))
        ):
            return False
        if self._only_defaults:
            return self._any_file_pattern is not None and bool(
                self._any_file_pattern.search(rel_path)
            )
        return bool(self._files.match_file(rel_path))

    def excluding_rule(self, relative: str, *, folder: bool | None = None) -> IgnoreRule | None:
        """The rule that excludes ``relative`` (a folder above it first), for messages; None
        when none does. ``folder`` as in ``private_paths.is_ignored``: None asks both ways.
        Only refusals ask, so pathspec answers (git's last matching pattern decides)."""
        parts = relative.split("/")
        asks = [(self._folders, "/".join(parts[:depth]), True) for depth in range(1, len(parts))]
        if folder is not False:
            asks.append((self._folders, relative, True))
        if folder is not True:
            asks.append((self._files, relative, False))
        for spec, path, as_folder in asks:
            found = spec.check_file(path)
            if found.include and found.index is not None:
                return self._origin(str(spec.patterns[found.index].pattern), as_folder=as_folder)
        return None

    def _origin(self, pattern: str, *, as_folder: bool) -> IgnoreRule:
        """The last line spelled ``pattern`` (the folder spec drops a trailing slash): git's
        last match decides, so of two equal lines the later one is the rule."""
        for index in range(len(self._lines) - 1, -1, -1):
            line = self._lines[index]
            if (_without_dir_slash(line) if as_folder else line) == pattern:
                if index < len(self._origins):
                    return self._origins[index]
                return IgnoreRule(line)
        return IgnoreRule(pattern)


def _active(spec: GitIgnoreSpec) -> tuple[tuple[str, str], ...]:
    """(line, regex) of each pattern that matches something (not a comment or a blank line)."""
    return tuple(
        (str(pattern.pattern), _NAMED_GROUP.sub("(?:", pattern.regex.pattern))
        for pattern in spec.patterns
        if pattern.include is not None and pattern.regex is not None
    )


def _without_dir_slash(line: str) -> str:
    """`build/` matches only folders; asked about a path known to be a folder, `build` is equal."""
    stripped = line.rstrip()
    if stripped.endswith("\\"):  # an escaped trailing space is part of the pattern
        return line
    return stripped[:-1] if stripped.endswith("/") and stripped != "/" else stripped


def _matches_names_only(line: str) -> bool:
    """Git matches a pattern with no inner slash against the name alone, at any depth."""
    body = line.strip().removeprefix("!").rstrip("/")
    return "/" not in body and "**" not in body


def _any_of(regexes: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{regex})" for regex in regexes)) if regexes else None


def load_ignore_rules(
    root: Path, extra_ignores: Sequence[str] = ()
) -> tuple[IgnoreRules, list[Skipped]]:
    """Defaults, then ``.indexignore``, then ``extra_ignores`` (later lines win, as in git).

    An invalid line is reported and dropped rather than failing the whole scan.
    """
    lines: list[str] = list(DEFAULT_IGNORES)
    origins = [IgnoreRule(line, DEFAULT_SOURCE) for line in DEFAULT_IGNORES]
    problems: list[Skipped] = []
    ignore_file = root / IGNORE_FILE_NAME
    try:
        user_lines = ignore_file.read_text(encoding="utf-8-sig").splitlines()
    except FileNotFoundError:
        user_lines = []
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Skipped(IGNORE_FILE_NAME, f"cannot be read ({exc}); using the defaults"))
        user_lines = []
    for number, line in _valid_lines(user_lines, IGNORE_FILE_NAME, problems):
        lines.append(line)
        origins.append(IgnoreRule(line, IGNORE_FILE_NAME, number))
    for _, line in _valid_lines(extra_ignores, "extra_ignores in vaultctx.toml", problems):
        lines.append(line)
        origins.append(IgnoreRule(line, IGNORE_SETTING))
    return IgnoreRules(lines, origins), problems


def _valid_lines(
    lines: Iterable[str], source: str, problems: list[Skipped]
) -> list[tuple[int, str]]:
    """(line number, line) of each line pathspec accepts."""
    lines = list(lines)
    if not lines:
        return []
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    valid = []
    for number, line in enumerate(lines, start=1):
        try:
            GitIgnoreSpecPattern(line)
        except ValueError as exc:
            problems.append(Skipped(source, f"line {number} ignored: {exc}"))
            continue
        valid.append((number, line))
    return valid


def is_indexed_name(name: str) -> bool:
    return name.lower().endswith(_INDEXED_ENDINGS)


def is_served_path(relative: str, rules: IgnoreRules) -> bool:
    """Whether the vault-relative file ``relative`` is one vaultctx indexes and serves. The one
    rule for the scanner's links, the readers and capture."""
    return unserved_reason(relative, rules) is None


def unserved_reason(relative: str, rules: IgnoreRules) -> str | None:
    """Why vaultctx does not index and serve the vault-relative file ``relative`` (completing
    "the path …"), or None when it does."""
    withheld = withheld_reason(relative, rules)
    if withheld is not None:
        return withheld
    if not is_indexed_name(relative.rsplit("/", 1)[-1]):
        return "is not a note type vaultctx serves (.md, .txt, .csv, …)"
    return None


def withheld_reason(relative: str, rules: IgnoreRules, *, is_folder: bool = False) -> str | None:
    """Why ``relative`` is never served whatever its type (completing "the path …"): it lies in
    git's or vaultctx's own files, or the ignore rules exclude it (naming the rule); else None."""
    if is_own_path(relative):
        return OWN_FILES_REASON
    if is_excluded(relative, rules, is_folder=is_folder):
        return excluded_reason(relative, rules, is_folder=is_folder)
    return None


def excluded_reason(relative: str, rules: IgnoreRules, *, is_folder: bool = False) -> str:
    """Why ``rules`` leave ``relative`` out (completing "the path …"), naming the rule."""
    rule = rules.excluding_rule(relative, folder=is_folder)
    return f"is excluded from the index by {rule_named(rule)}"


def rule_named(rule: IgnoreRule | None) -> str:
    """``rule`` as a refusal names it; the ignore rules at large when none was found."""
    return str(rule) if rule else "the ignore rules"


def rule_fix(rule: IgnoreRule | None) -> str:
    """How the user lifts ``rule`` (completing a sentence); the rules at large when none was
    found."""
    return rule.fix if rule else "remove it from the ignore rules"


def is_own_path(relative: str) -> bool:
    """Whether ``relative`` lies in git's or vaultctx's own files, which are never served."""
    return any(
        part == _GIT_DIR_NAME or part.startswith(_OWN_FILES_PREFIX) for part in relative.split("/")
    )


def is_excluded(relative: str, rules: IgnoreRules, *, is_folder: bool = False) -> bool:
    """Whether the ignore rules (or their defaults) leave ``relative`` out: a folder above it,
    or the file or folder itself."""
    parts = relative.split("/")
    folders = ["/".join(parts[:depth]) for depth in range(1, len(parts) + is_folder)]
    if any(rules.excludes_folder(folder) for folder in folders):
        return True
    if is_folder:
        return False
    touched = any(rules.folder_is_touched(folder) for folder in folders)
    return rules.excludes_file(relative, parts[-1], touched)


def scan_vault(
    root: Path, *, max_file_bytes: int = 5_000_000, extra_ignores: Sequence[str] = ()
) -> ScanResult:
    """List the vault's indexable files, sorted by path, and what was left out and why.

    Never raises for a single file or folder (it vanished, it cannot be opened, it is too big):
    those become ``Skipped`` entries. Raises ``VaultNotFoundError`` only when ``root`` itself is not
    a folder.
    """
    root = Path(root)
    if not root.exists():
        raise VaultNotFoundError(
            f"vault folder not found: {root}",
            "pass the folder of your notes with --vault (or set VAULT_PATH)",
        )
    if not root.is_dir():
        raise VaultNotFoundError(
            f"{root} is a file, not a folder", "pass the folder of your notes with --vault"
        )
    rules, problems = load_ignore_rules(root, extra_ignores)
    walker = _Walker(root, rules, max_file_bytes)
    walker.run()
    walker.files.sort(key=itemgetter(0))  # by path (unique); half the cost of comparing tuples
    skipped = sorted(problems + walker.skipped, key=lambda s: s.path)
    return ScanResult(files=walker.files, skipped=skipped)


def _new_file(fields: tuple[str, str, int, int]) -> VaultFile:
    """A VaultFile without the named tuple's Python-level ``__new__`` (a third of its cost)."""
    return tuple.__new__(VaultFile, fields)  # type: ignore[type-var]


@dataclass(frozen=True)
class _Folder:
    abs_path: str
    rel_prefix: str  # "" for the root, else "a/b/"
    real_path: str  # resolved, for detecting a folder reached twice through symlinks


@dataclass(frozen=True)
class _Link:
    abs_path: str
    rel_path: str
    target: str


class _Walker:
    """One scan's state. Symlinks are followed only after the real tree is walked, so a file is
    always reported under its real path, and a link to something already seen is a duplicate."""

    def __init__(self, root: Path, rules: IgnoreRules, max_file_bytes: int) -> None:
        self.root_real = os.path.realpath(root)
        self.root = str(root)
        self.rules = rules
        self.max_file_bytes = max_file_bytes
        self.files: list[VaultFile] = []
        self.skipped: list[Skipped] = []
        self._seen_folders: set[str] = set()
        self._folder_links: list[_Link] = []
        self._file_links: list[_Link] = []

    def run(self) -> None:
        self._walk(_Folder(self.root, "", self.root_real))
        # A folder link is never followed: its in-vault target was either walked already (under
        # its own path, which the ignore rules judged) or pruned by those rules.
        for link in sorted(self._folder_links, key=lambda link: link.rel_path):
            target = self._describe(link.target)
            if link.target in self._seen_folders:
                self._skip(
                    link.rel_path + "/",
                    f"symlink to {target}/, which is already scanned; not followed twice",
                )
            else:
                self._skip(link.rel_path + "/", f"symlink to {target}/, which is not indexed")
        # A linked file is a duplicate when its target is indexed under its own path.
        indexed_paths = {f.path for f in self.files} if self._file_links else set()
        for link in sorted(self._file_links, key=lambda link: link.rel_path):
            target = self._describe(link.target)
            if target in indexed_paths:
                self._skip(link.rel_path, f"symlink to {target}, which is already indexed")
            elif not self._indexable_target(target):
                self._skip(link.rel_path, f"symlink to {target}, which is not indexed")
            else:
                self._add_file(link.rel_path, link.target, None)

    def _indexable_target(self, real_rel: str) -> bool:
        """Whether the file at the vault-relative ``real_rel`` (a link's resolved target) would be
        indexed under its own path: the ignore rules and defaults judge what a link points at, so
        a link cannot bring ``.obsidian/`` or an ignored folder into the index."""
        return is_served_path(real_rel, self.rules)

    def _walk(self, top: _Folder) -> None:
        pending = [top]
        while pending:
            folder = pending.pop()
            self._seen_folders.add(folder.real_path)
            pending.extend(self._scan_folder(folder))

    def _scan_folder(self, folder: _Folder) -> list[_Folder]:
        """Handle one folder's files; return its subfolders still to walk."""
        rules = self.rules
        prefix = folder.rel_prefix
        base = folder.abs_path + os.sep
        touched = bool(prefix) and rules.folder_is_touched(prefix[:-1])
        subfolders = []
        try:
            with _list_folder(folder.abs_path) as entries:
                # Regular files first: they are nearly every entry, and this is the hot loop.
                for entry in entries:
                    name = entry.name
                    if name.startswith(_OWN_FILES_PREFIX):
                        continue
                    if entry.is_file(follow_symlinks=False):
                        rel_path = prefix + name
                        if name.lower().endswith(_INDEXED_ENDINGS) and not rules.excludes_file(
                            rel_path, name, touched
                        ):
                            self._add_file(rel_path, base + name, entry)
                    elif entry.is_dir(follow_symlinks=False):
                        rel_path = prefix + name
                        if name != _GIT_DIR_NAME and not rules.excludes_folder(rel_path):
                            real = folder.real_path + os.sep + name
                            subfolders.append(_Folder(base + name, rel_path + "/", real))
                    elif entry.is_symlink():
                        self._note_link(base + name, prefix + name, touched)
        except FileNotFoundError:
            self._skip(prefix or "./", "vanished during the scan")
        except OSError as exc:
            self._skip(prefix or "./", f"cannot open the folder: {exc.strerror}")
        return subfolders

    def _note_link(self, abs_path: str, rel_path: str, folder_is_touched: bool) -> None:
        """Decide what a symlink is; in-vault targets are followed later, by ``run``."""
        target = os.path.realpath(abs_path)
        is_folder = os.path.isdir(target)
        if is_folder:
            if self.rules.excludes_folder(rel_path):
                return
        elif not is_indexed_name(os.path.basename(rel_path)) or self.rules.excludes_file(
            rel_path, os.path.basename(rel_path), folder_is_touched
        ):
            return
        if not os.path.exists(target):
            self._skip(
                rel_path, f"broken symlink to {_link_text(abs_path)}; fix or delete the link"
            )
        elif not _is_within(target, self.root_real):
            self._skip(
                rel_path,
                f"symlink to {target}, outside the vault; not followed (move the "
                "files into the vault to index them)",
            )
        elif is_folder:
            self._folder_links.append(_Link(abs_path, rel_path, target))
        else:
            self._file_links.append(_Link(abs_path, rel_path, target))

    def _add_file(self, rel_path: str, fs_path: str, entry: os.DirEntry[str] | None) -> None:
        """``entry`` (when listed, not linked) stats relative to its open folder: faster."""
        try:
            stat = entry.stat() if entry is not None else os.stat(fs_path)
        except FileNotFoundError:
            self._skip(rel_path, "vanished during the scan")
            return
        except OSError as exc:
            self._skip(rel_path, f"cannot read its file information: {exc.strerror}")
            return
        if stat.st_size > self.max_file_bytes:
            self._skip(
                rel_path,
                f"{stat.st_size:,} bytes is over the {self.max_file_bytes:,}-byte "
                "limit; raise max_file_bytes in vaultctx.toml to index it",
            )
            return
        self.files.append(_new_file((rel_path, fs_path, stat.st_mtime_ns, stat.st_size)))

    def _skip(self, rel_path: str, reason: str) -> None:
        self.skipped.append(Skipped(rel_path, reason))

    def _describe(self, real_path: str) -> str:
        return os.path.relpath(real_path, self.root_real).replace(os.sep, "/")


@contextmanager
def _list_folder(path: str) -> Iterator[Iterator[os.DirEntry[str]]]:
    """``scandir`` through an open folder descriptor where the OS allows it: each entry's ``stat``
    then resolves one name instead of the whole path, a fifth faster on a deep vault."""
    if not _SCANDIR_TAKES_FD:
        with os.scandir(path) as entries:
            yield entries
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with os.scandir(fd) as entries:
            yield entries
    finally:
        os.close(fd)


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _link_text(link: str) -> str:
    try:
        return os.readlink(link)
    except OSError:
        return "a missing target"


def _read_bytes_no_follow(fs_path: str) -> bytes:
    """The scan resolved links already (``fs_path`` of a linked file is its target), so a symlink
    found here was swapped in since, possibly pointing out of the vault: it is not followed."""
    fd = os.open(fs_path, os.O_RDONLY | _NO_FOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def read_vault_file(vault_file: VaultFile) -> str:
    """The file's text: UTF-8, BOM removed, CRLF turned into LF.

    Raises ``UnreadableFileError`` (never a bare ``OSError``) so the indexer can report the file and
    carry on.
    """
    path = vault_file.path
    try:
        data = _read_bytes_no_follow(vault_file.fs_path)
    except FileNotFoundError:
        raise UnreadableFileError(path, "vanished since the scan", _INDEX_AGAIN) from None
    except PermissionError:
        raise UnreadableFileError(
            path, "permission denied", "check the file's permissions"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            reason = "became a symbolic link since the scan"
            raise UnreadableFileError(path, reason, _INDEX_AGAIN) from None
        raise UnreadableFileError(
            path, f"cannot be read: {exc.strerror}", "check the file, then index again"
        ) from None
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        raise UnreadableFileError(
            path, "binary file (NUL byte in the first 8 KB)", "add it to .indexignore"
        )
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(
            path, f"not valid UTF-8 (byte offset {exc.start + bom})", "re-save the file as UTF-8"
        ) from None
    return text.replace("\r\n", "\n")
