"""Engines are chosen by name through the registry, which is what ``Vault`` uses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vaultctx.api import Vault
from vaultctx.config import ConfigError
from vaultctx.embed import registry
from vaultctx.embed.base import Embedder
from vaultctx.embed.static import StaticEmbedder


@pytest.fixture(autouse=True)
def _user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _vault(tmp_path: Path, toml: str) -> Vault:
    """Engines are chosen in the user's own settings file: a vault's own file may name only the
    bundled ones (tests/security/test_vault_config_destinations.py)."""
    root = tmp_path / "vault"
    root.mkdir()
    user_file = tmp_path / "config" / "vaultctx" / "vaultctx.toml"
    user_file.parent.mkdir(parents=True)
    user_file.write_text(toml)
    (root / "a.md").write_text("# A\n\nlighthouse keeper\n")
    return Vault(root, db=tmp_path / "index.db")


def test_an_unknown_engine_is_a_config_error_naming_the_known_ones(tmp_path: Path) -> None:
    vault = _vault(tmp_path, 'engine = "word2vec"\n')
    with pytest.raises(ConfigError, match="word2vec") as raised:
        vault.embedder()
    assert "onnx, static" in raised.value.suggestion


def test_pass_two_can_be_switched_off(tmp_path: Path) -> None:
    vault = _vault(tmp_path, 'quality_engine = ""\n')
    assert vault.quality_embedder() is None
    report = vault.index()
    assert report.added == 1 and report.quality_embedded == 0


def test_a_registered_engine_is_used_by_vault_without_changing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Embedder] = []

    def factory(model_dir: Path | None) -> Embedder:
        engine = StaticEmbedder(model_dir)
        built.append(engine)
        return engine

    monkeypatch.setitem(registry.ENGINES, "mine", factory)
    vault = _vault(tmp_path, 'engine = "mine"\nquality_engine = ""\n')
    vault.index()
    assert len(built) == 1 and vault.embedder() is built[0]
    hits = vault.search("lighthouse", mode="vector").results
    assert [h.file_path for h in hits] == ["a.md"]
    assert np.isfinite(hits[0].score)
