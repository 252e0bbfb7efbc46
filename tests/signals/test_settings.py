"""``[signals]`` in vaultctx.toml: defaults, each key checked, the file at fault named."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.config import ConfigError
from vaultctx.signals.settings import SignalSettings, load_signal_settings


def settings_of(tmp_path: Path, toml: str) -> SignalSettings:
    """``toml`` as the user's own file: feeds may be set there only (a vault's file may not
    choose what vaultctx fetches; tests/security/test_vault_config_destinations.py)."""
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)
    user = tmp_path / "user"
    user.mkdir(exist_ok=True)
    (user / "vaultctx.toml").write_text(toml, encoding="utf-8")
    return load_signal_settings(vault, user)


def test_defaults(tmp_path: Path) -> None:
    assert settings_of(tmp_path, "") == SignalSettings()
    assert SignalSettings().folder == "05-signals"
    assert SignalSettings().max_entries_per_feed == 20


def test_every_key(tmp_path: Path) -> None:
    settings = settings_of(
        tmp_path,
        '[signals]\ninbox = "In/box"\nfolder = "Signals"\n'
        'feeds = ["https://a.example/feed", "https://a.example/feed", "http://b.example/rss"]\n'
        'max_entries_per_feed = 5\nmax_note_chars = 1000\nproject_folders = ["Work"]\n',
    )
    assert settings == SignalSettings(
        inbox="In/box",
        folder="Signals",
        feeds=("https://a.example/feed", "http://b.example/rss"),
        max_entries_per_feed=5,
        max_note_chars=1000,
        project_folders=("Work",),
    )


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ("[signals]\ncolour = 1\n", "unknown setting [signals] colour"),
        ('[signals]\nfolder = "../out"\n', "must name a folder inside the vault"),
        ('[signals]\ninbox = "/abs"\n', "must name a folder inside the vault"),
        ("[signals]\nmax_entries_per_feed = 0\n", "from 1 to 200"),
        ("[signals]\nmax_entries_per_feed = true\n", "from 1 to 200"),
        ("[signals]\nmax_note_chars = 10\n", "from 500 to 200000"),
        ('[signals]\nfeeds = "https://a.example"\n', "must be a list of strings"),
        ('[signals]\nfeeds = ["ftp://a.example"]\n', "is not an http(s) address"),
        ('[signals]\nproject_folders = ["~/x"]\n', "must name a folder inside the vault"),
        ("signals = 3\n", "'signals' must be a table"),
    ],
)
def test_bad_values_name_the_file(tmp_path: Path, toml: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_of(tmp_path, toml)
    assert problem in caught.value.message
    assert "vaultctx.toml" in caught.value.message
