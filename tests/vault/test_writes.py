"""The file operations every change is made of (``vault/writes.py``), one at a time: what each
leaves on disk (bytes, mode, no staged copy behind), what it refuses, and the exact words of each
refusal. The ledger's tests reach them only through whole changes."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vaultctx.vault.paths import PATH_SUGGESTION
from vaultctx.vault.private_paths import CONTROL_REASON, FIX, IGNORED_REASON
from vaultctx.vault.scanner import load_ignore_rules
from vaultctx.vault.writes import (
    ContentChangedError,
    NoteChangeError,
    check_no_links,
    confine_write_path,
    create_file,
    digest,
    exists,
    file_mode,
    make_folders,
    read_file,
    remove_file,
    rename,
    replace_file,
    sync_folder,
    vault_root,
)

LOOK_IT_UP = "check the path with a search or a folder listing; paths are vault-relative"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Plan.md").write_bytes(b"# Plan\n")
    return vault_root(vault)


def names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def confine(root: Path, raw: str, *, folder: bool = False, ignore: str = "") -> Any:
    (root / ".indexignore").write_text(ignore)
    return confine_write_path(root, raw, load_ignore_rules(root)[0], folder=folder)


def refusal(root: Path, raw: str, **options: Any) -> NoteChangeError:
    with pytest.raises(NoteChangeError) as refused:
        confine(root, raw, **options)
    return refused.value


def failing(real: Callable[..., Any], code: int, inside: Path) -> Callable[..., Any]:
    def call(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(str(inside) + os.sep):
            raise OSError(code, os.strerror(code), str(path))
        return real(path, *args, **kwargs)

    return call


# -- confinement -------------------------------------------------------------------------------


def test_a_write_path_is_normalised_and_placed_under_the_real_root(
    root: Path, tmp_path: Path
) -> None:
    (tmp_path / "alias").symlink_to(root)
    assert vault_root(tmp_path / "alias") == root
    target = confine(root, "./notes//New.md")
    assert (target.relative, target.absolute) == ("notes/New.md", root / "notes" / "New.md")
    folder = confine(root, "notes/Sub", folder=True)
    assert (folder.relative, folder.absolute) == ("notes/Sub", root / "notes" / "Sub")


@pytest.mark.parametrize(
    ("raw", "first"),
    [
        (".obsidian/app.md", ".obsidian"),
        (".Obsidian/app.md", ".Obsidian"),
        (".TRASH/a.md", ".TRASH"),
    ],
)
def test_the_protected_folders_are_refused_in_any_case(root: Path, raw: str, first: str) -> None:
    refused = refusal(root, raw)
    assert refused.message == (
        f"path refused: {first}/ holds Obsidian's, git's or the trash's own files ({raw}); "
        "nothing was changed"
    )
    assert refused.suggestion == PATH_SUGGESTION


def test_a_git_folder_anywhere_on_the_path_is_refused(root: Path) -> None:
    refused = refusal(root, "notes/.git/config.md")
    assert refused.message == (
        "path refused: notes/ holds Obsidian's, git's or the trash's own files "
        "(notes/.git/config.md); nothing was changed"
    )


def test_control_files_and_ignored_paths_are_refused_with_the_fix(root: Path) -> None:
    control = refusal(root, "notes/.hidden.md")
    assert (
        control.message == f"path refused: notes/.hidden.md {CONTROL_REASON}; nothing was changed"
    )
    assert control.suggestion == FIX
    ignored = refusal(root, "private/Diary.md", ignore="private/\n")
    assert ignored.message == (
        f'path refused: private/Diary.md {IGNORED_REASON} (the pattern "private/" on line 1 of '
        ".indexignore), so tools never read, change, move or delete it; nothing was changed"
    )
    assert ignored.suggestion == FIX


def test_a_folder_only_rule_refuses_the_folder_but_not_a_note_of_that_name(root: Path) -> None:
    assert confine(root, "Topic.md", ignore="Topic.md/\n").relative == "Topic.md"
    refused = refusal(root, "Topic.md", folder=True, ignore="Topic.md/\n")
    assert refused.message == (
        f'path refused: Topic.md {IGNORED_REASON} (the pattern "Topic.md/" on line 1 of '
        ".indexignore), so tools never read, change, move or delete it; nothing was changed"
    )


def test_only_note_types_are_written_unless_a_folder_is_allowed(root: Path) -> None:
    refused = refusal(root, "notes/script.sh")
    assert refused.message == (
        "path refused: notes/script.sh is not a note type vaultctx writes (.md, .txt, .csv, …); "
        "nothing was changed"
    )
    assert refused.suggestion == PATH_SUGGESTION
    assert confine(root, "notes/archive", folder=True).relative == "notes/archive"


def test_an_obsidian_base_is_written_in_any_case_of_its_suffix(root: Path) -> None:
    """Obsidian's ``.base`` files are not indexed but a change may write them, spelled as the
    user spelled them (``Board.BASE`` from a case-insensitive file system)."""
    for raw in ("boards/Reading.base", "boards/Reading.BASE", "boards/Reading.Base"):
        assert confine(root, raw).relative == raw
    assert refusal(root, "boards/Reading.bases").message.startswith(
        "path refused: boards/Reading.bases is not a note type vaultctx writes"
    )


def test_an_unsafe_spelling_keeps_the_confinements_words(root: Path) -> None:
    refused = refusal(root, "../outside.md")
    assert refused.message.startswith("path refused:") and "outside.md" in refused.message
    assert refused.suggestion == PATH_SUGGESTION


def test_a_link_on_the_way_is_refused_by_name(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "notes" / "linked").symlink_to(outside, target_is_directory=True)
    refused = refusal(root, "notes/linked/deeper/New.md")
    assert refused.message == (
        "path refused: notes/linked is a symbolic link, and changes are never written through a "
        "link; nothing was changed"
    )
    assert refused.suggestion == "change the note at the place the link leads to, by its own path"
    assert names(outside) == []


def test_a_file_on_the_way_is_refused(root: Path) -> None:
    with pytest.raises(NoteChangeError) as refused:
        check_no_links(root, root / "notes" / "Plan.md" / "x.md", "shown/x.md")
    assert refused.value.message == (
        "path refused: a part of shown/x.md is a file, not a folder; nothing was changed"
    )
    assert refused.value.suggestion == PATH_SUGGESTION
    check_no_links(root, root / "new" / "deeper" / "x.md", "new/deeper/x.md")  # not there: fine


# -- reading -----------------------------------------------------------------------------------


def test_read_file_reads_regular_files_only(root: Path, tmp_path: Path) -> None:
    assert read_file(root / "notes" / "Plan.md", "notes/Plan.md") == b"# Plan\n"
    (tmp_path / "secret.md").write_text("secret")
    (root / "notes" / "link.md").symlink_to(tmp_path / "secret.md")
    os.mkfifo(root / "notes" / "pipe.md")
    for name in ("missing.md", "link.md", "pipe.md", "."):
        with pytest.raises(NoteChangeError) as missing:
            read_file(root / "notes" / name, f"shown/{name}")
        assert missing.value.message == f"File not found: shown/{name}"
        assert missing.value.suggestion == LOOK_IT_UP
    with pytest.raises(NoteChangeError, match=r"^File not found: x$"):
        read_file(root / "notes" / "Plan.md" / "below.md", "x")


def test_an_unreadable_file_says_why(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "open", failing(os.open, errno.EACCES, root))
    with pytest.raises(NoteChangeError) as refused:
        read_file(root / "notes" / "Plan.md", "notes/Plan.md")
    assert refused.value.message == (
        "cannot read notes/Plan.md (Permission denied); nothing was changed"
    )
    assert refused.value.suggestion == "check the file's permissions"


# -- folders -----------------------------------------------------------------------------------


def test_make_folders_makes_each_missing_level(root: Path) -> None:
    make_folders(root, root / "a" / "b" / "c")
    assert (root / "a" / "b" / "c").is_dir()
    umask = os.umask(0o022)
    os.umask(umask)
    for folder in ("a", "a/b", "a/b/c"):  # as a user's own mkdir makes them
        assert (root / folder).stat().st_mode & 0o7777 == 0o777 & ~umask
    make_folders(root, root / "a" / "b")  # there already: nothing to do
    make_folders(root, root)
    assert names(root / "a") == ["b"]


def test_make_folders_stops_at_a_file_or_a_link(root: Path, tmp_path: Path) -> None:
    with pytest.raises(NoteChangeError) as refused:
        make_folders(root, root / "notes" / "Plan.md" / "sub")
    assert refused.value.message == (
        "notes/Plan.md is not a folder (a file or a link is there); nothing was changed"
    )
    assert refused.value.suggestion == "choose another path"
    (root / "away").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(NoteChangeError, match=r"^away is not a folder"):
        make_folders(root, root / "away" / "sub")
    assert not (tmp_path / "sub").exists()


def test_make_folders_says_when_the_file_system_refuses(root: Path) -> None:
    long = "x" * 300
    with pytest.raises(NoteChangeError) as refused:
        make_folders(root, root / "notes" / long / "sub")
    assert refused.value.message == (
        f"cannot create the folder notes/{long} (File name too long); nothing was changed"
    )
    assert refused.value.suggestion == "make the vault folder writable"


# -- creating ----------------------------------------------------------------------------------


def test_create_file_writes_the_bytes_with_the_mode_and_leaves_no_staged_copy(root: Path) -> None:
    path = root / "notes" / "New.md"
    create_file(path, b"new\r\nbytes\x00", 0o640, "notes/New.md")
    assert path.read_bytes() == b"new\r\nbytes\x00"
    assert file_mode(path) == 0o640
    assert names(root / "notes") == ["New.md", "Plan.md"]


def test_create_file_never_replaces_anything(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.md"
    target.write_text("target")
    (root / "notes" / "planted.md").symlink_to(target)
    for name in ("Plan.md", "planted.md"):
        with pytest.raises(NoteChangeError) as refused:
            create_file(root / "notes" / name, b"x", 0o644, f"shown/{name}")
        assert refused.value.message == f"File already exists: shown/{name}"
        assert refused.value.suggestion == (
            "choose another path, or change the existing note instead"
        )
    assert (root / "notes" / "Plan.md").read_bytes() == b"# Plan\n"
    assert target.read_text() == "target"
    assert names(root / "notes") == ["Plan.md", "planted.md"]


def test_create_file_without_hard_links(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "link", failing(os.link, errno.EPERM, root))
    path = root / "notes" / "New.md"
    create_file(path, b"new", 0o600, "notes/New.md")
    assert path.read_bytes() == b"new" and file_mode(path) == 0o600
    with pytest.raises(NoteChangeError, match=r"^File already exists: notes/Plan\.md$"):
        create_file(root / "notes" / "Plan.md", b"x", 0o644, "notes/Plan.md")
    assert (root / "notes" / "Plan.md").read_bytes() == b"# Plan\n"
    assert names(root / "notes") == ["New.md", "Plan.md"]


def test_a_create_failing_after_it_took_the_name_leaves_no_staged_copy(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "link", failing(os.link, errno.ENOSPC, root))
    monkeypatch.setattr(os, "replace", failing(os.replace, errno.ENOSPC, root))
    with pytest.raises(OSError):
        create_file(root / "notes" / "New.md", b"new", 0o644, "notes/New.md")
    assert names(root / "notes") == ["New.md", "Plan.md"]  # taken, empty: the caller records it
    assert (root / "notes" / "New.md").read_bytes() == b""


# -- replacing and removing --------------------------------------------------------------------


def test_replace_file_only_over_the_expected_bytes(root: Path) -> None:
    path = root / "notes" / "Plan.md"
    replace_file(path, b"# New\n", expected=b"# Plan\n", mode=0o600, shown="notes/Plan.md")
    assert path.read_bytes() == b"# New\n" and file_mode(path) == 0o600
    with pytest.raises(ContentChangedError) as refused:
        replace_file(path, b"other", expected=b"# Plan\n", mode=0o644, shown="shown.md")
    assert (
        refused.value.message == "shown.md changed while it was being edited; nothing was changed"
    )
    assert refused.value.suggestion == "read it again and retry"
    assert path.read_bytes() == b"# New\n" and file_mode(path) == 0o600
    assert names(root / "notes") == ["Plan.md"]


def test_replace_file_refuses_a_link_at_the_name(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.md"
    target.write_bytes(b"# Plan\n")
    path = root / "notes" / "Plan.md"
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(NoteChangeError, match=r"^File not found: notes/Plan\.md$"):
        replace_file(path, b"x", expected=b"# Plan\n", mode=0o644, shown="notes/Plan.md")
    assert target.read_bytes() == b"# Plan\n" and path.is_symlink()
    assert names(root / "notes") == ["Plan.md"]


def test_remove_file_only_the_expected_bytes(root: Path) -> None:
    path = root / "notes" / "Plan.md"
    with pytest.raises(ContentChangedError) as refused:
        remove_file(path, expected=b"other", shown="shown.md")
    assert refused.value.message == "shown.md changed meanwhile, so it was not removed"
    assert refused.value.suggestion == "look at it and decide yourself"
    assert path.read_bytes() == b"# Plan\n"
    remove_file(path, expected=b"# Plan\n", shown="notes/Plan.md")
    assert names(root / "notes") == []
    with pytest.raises(NoteChangeError) as gone:
        remove_file(path, expected=b"# Plan\n", shown="shown.md")
    assert gone.value.message == "File not found: shown.md"


# -- renaming ----------------------------------------------------------------------------------


def test_rename_moves_a_file_and_a_folder(root: Path) -> None:
    rename(root / "notes" / "Plan.md", root / "notes" / "Moved.md", "notes/Moved.md")
    assert names(root / "notes") == ["Moved.md"]
    assert (root / "notes" / "Moved.md").read_bytes() == b"# Plan\n"
    rename(root / "notes", root / "archive", "archive")
    assert names(root) == ["archive"] and names(root / "archive") == ["Moved.md"]


def test_rename_moves_a_link_itself(root: Path, tmp_path: Path) -> None:
    (tmp_path / "target.md").write_text("target")
    (root / "link.md").symlink_to(tmp_path / "target.md")
    rename(root / "link.md", root / "notes" / "link.md", "notes/link.md")
    assert os.readlink(root / "notes" / "link.md") == str(tmp_path / "target.md")
    assert not exists(root / "link.md") and (tmp_path / "target.md").read_text() == "target"


def test_rename_never_onto_anything(root: Path) -> None:
    (root / "Other.md").write_bytes(b"other")
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    assert exists(root / "dangling.md")
    for name in ("Other.md", "dangling.md"):
        with pytest.raises(NoteChangeError) as refused:
            rename(root / "notes" / "Plan.md", root / name, f"shown/{name}")
        assert refused.value.message == f"A file already exists at the destination: shown/{name}"
        assert refused.value.suggestion == (
            "choose another destination, or move or delete what is there first"
        )
    assert (root / "Other.md").read_bytes() == b"other"
    assert (root / "notes" / "Plan.md").read_bytes() == b"# Plan\n"


def test_rename_without_hard_links(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "link", failing(os.link, errno.EPERM, root))
    rename(root / "notes" / "Plan.md", root / "Plan.md", "Plan.md")
    assert (root / "Plan.md").read_bytes() == b"# Plan\n" and names(root / "notes") == []


# -- small helpers -----------------------------------------------------------------------------


def test_digest_and_sync_folder(root: Path) -> None:
    assert digest(b"abc") == hashlib.sha256(b"abc").hexdigest()
    sync_folder(root / "notes")
    sync_folder(root / "missing")  # best effort: never an error


def test_a_destination_appearing_after_the_check_is_never_overwritten(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check and the move are two steps: a file saved at the destination in between (here:
    the check is made blind to it) is kept, because a file is linked into place, never renamed
    over what is there."""
    (root / "Taken.md").write_bytes(b"saved meanwhile")
    monkeypatch.setattr(os.path, "lexists", lambda path: False)
    with pytest.raises(NoteChangeError) as refused:
        rename(root / "notes" / "Plan.md", root / "Taken.md", "Taken.md")
    assert refused.value.message == "A file already exists at the destination: Taken.md"
    assert (root / "Taken.md").read_bytes() == b"saved meanwhile"
    assert (root / "notes" / "Plan.md").read_bytes() == b"# Plan\n"


def test_a_failed_cleanup_does_not_hide_why_a_replacement_stopped(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "unlink", failing(os.unlink, errno.EACCES, root))
    path = root / "notes" / "Plan.md"
    with pytest.raises(ContentChangedError):
        replace_file(path, b"x", expected=b"other", mode=0o644, shown="notes/Plan.md")
    assert path.read_bytes() == b"# Plan\n"


def test_a_file_on_the_way_is_refused_by_the_confinement_too(root: Path) -> None:
    refused = refusal(root, "notes/Plan.md/x.md")
    assert refused.message == (
        "path refused: a part of notes/Plan.md/x.md is a file, not a folder; nothing was changed"
    )


def test_a_staged_copy_that_cannot_be_finished_is_removed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "chmod", failing(os.chmod, errno.EPERM, root))
    with pytest.raises(PermissionError):
        create_file(root / "notes" / "New.md", b"new", 0o644, "notes/New.md")
    assert names(root / "notes") == ["Plan.md"]
    monkeypatch.setattr(os, "unlink", failing(os.unlink, errno.EACCES, root))
    with pytest.raises(PermissionError, match="Operation not permitted"):  # chmod's, not unlink's
        create_file(root / "notes" / "New.md", b"new", 0o644, "notes/New.md")


def test_a_failed_cleanup_does_not_hide_that_the_name_was_taken(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "unlink", failing(os.unlink, errno.EACCES, root))
    with pytest.raises(NoteChangeError, match=r"^File already exists: notes/Plan\.md$"):
        create_file(root / "notes" / "Plan.md", b"x", 0o644, "notes/Plan.md")
    assert (root / "notes" / "Plan.md").read_bytes() == b"# Plan\n"
