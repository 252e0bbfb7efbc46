"""What the plugin attaches, read on the server (``ui/plugin_attachments.py``) from a real vault:
a note through the vault (scrubbed, as ``--note``), an image of the vault by its confined path,
and a file from disk under its cleaned base name only."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.ui.plugin_attachments import plugin_attachments

NOTE = "30-resources/databases/SQLite tuning.md"
SECRET = "sk-proj-Zq8ftY3kLm0PwX7vB2nR5sT9uH4jD6gA1cE"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    root = copy_example_vault(tmp_path / "vault")
    (root / "img").mkdir()
    (root / "img" / "diagram.png").write_bytes(PNG)
    (root / "Keys.md").write_text(f"OPENAI_API_KEY={SECRET}\n")
    with Vault(root, db=tmp_path / "index.db") as handle:
        yield handle


def test_vault_files_are_read_through_the_vault(vault: Vault) -> None:
    note, image, keys = plugin_attachments(
        vault, {"vault_files": [NOTE, "img/diagram.png", "Keys.md"]}
    )
    assert note.name == NOTE and note.text and "WAL" in note.text
    assert image.kind == "image" and image.data == PNG
    assert keys.text is not None and SECRET not in keys.text


def test_a_file_from_disk_keeps_only_its_base_name(vault: Vault, tmp_path: Path) -> None:
    data = base64.b64encode(b"dropped text").decode()
    [dropped] = plugin_attachments(vault, {"files": [{"name": "../../../evil.md", "data": data}]})
    assert dropped.name == "evil.md" and dropped.text == "dropped text"
    assert not (tmp_path.parent / "evil.md").exists()
