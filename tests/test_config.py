from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.config import ConfigError, default_db_path, load_config


def test_env_names_from_the_seed_work(tmp_path: Path) -> None:
    vault = tmp_path / "notes"
    vault.mkdir()
    db = tmp_path / "x.db"
    config = load_config(
        env={"VAULT_PATH": str(vault), "DB_PATH": str(db)}, user_config_dir=tmp_path / "cfg"
    )
    assert config.vault == vault.resolve()
    assert config.db == db.resolve()


def test_flags_beat_environment(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    config = load_config(a, env={"VAULT_PATH": str(b)}, user_config_dir=tmp_path / "cfg")
    assert config.vault == a.resolve()


def test_default_db_is_outside_the_vault_and_per_vault(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert default_db_path(a) != default_db_path(b)
    assert a.resolve() not in default_db_path(a).parents


@pytest.mark.parametrize("problem", ["missing", "file", "empty"])
def test_bad_vault_path_names_the_fix(tmp_path: Path, problem: str) -> None:
    target: Path | str = tmp_path / "nope"
    if problem == "file":
        target = tmp_path / "f.md"
        Path(target).write_text("x")
    if problem == "empty":
        target = ""
    with pytest.raises(ConfigError) as raised:
        load_config(target, env={}, user_config_dir=tmp_path / "cfg")
    assert "--vault" in raised.value.suggestion


def test_vault_toml_overrides_user_toml(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "vaultctx.toml").write_text("chunk_overlap = 100\nmax_file_bytes = 10\n")
    (vault / "vaultctx.toml").write_text('max_file_bytes = 20\nignore = ["drafts/"]\n')
    settings = load_config(vault, env={}, user_config_dir=cfg).settings
    assert (settings.chunk_overlap, settings.max_file_bytes, settings.ignore) == (
        100,
        20,
        ("drafts/",),
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("max_file_bytes = 'big'", "must be int"),
        ("nonsense = 1", "unknown setting 'nonsense'"),
        ("max_file_bytes = [", "invalid TOML"),
        ("ignore = [1]", "list of strings"),
        ("inbox_folder = 3", "must be str"),
        ("inbox_folder = '/home/me/inbox'", "inbox_folder.*inside the vault"),
        ("inbox_folder = 'C:/inbox'", "inbox_folder.*inside the vault"),
        ("inbox_folder = '../outside'", "inbox_folder.*inside the vault"),
        ("inbox_folder = 'notes/../../outside'", "inbox_folder.*inside the vault"),
        ("inbox_folder = ''", "inbox_folder.*inside the vault"),
        ("inbox_folder = '.'", "inbox_folder.*inside the vault"),
    ],
)
def test_bad_settings_are_named(tmp_path: Path, content: str, message: str) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "vaultctx.toml").write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_config(vault, env={}, user_config_dir=tmp_path / "cfg")


def test_inbox_folder_is_a_vault_relative_folder(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    assert (
        load_config(vault, env={}, user_config_dir=tmp_path / "cfg").settings.inbox_folder is None
    )
    (vault / "vaultctx.toml").write_text("inbox_folder = 'areas\\inbox/'\n")
    settings = load_config(vault, env={}, user_config_dir=tmp_path / "cfg").settings
    assert settings.inbox_folder == "areas/inbox"
