"""Context blocks: declared in vaultctx.toml, cached with a TTL, invalidated by their sources."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vaultctx.api import Vault
from vaultctx.cli.main import app
from vaultctx.config import ConfigError
from vaultctx.context_blocks import (
    BlockResult,
    BlockSpec,
    UnknownBlockError,
    cache_path,
    get_block,
    load_block_specs,
)
from vaultctx.errors import VaultctxError

FILLER_TOPICS = [
    "astronomy",
    "baking",
    "cycling",
    "chess",
    "climbing",
    "origami",
    "pottery",
    "sailing",
    "birding",
    "knitting",
    "fencing",
    "juggling",
]  # more notes than a block's 8 results, so some notes never contribute
BLOCKS = """
[blocks.deploys]
query = "deploy rollback runbook"
max_tokens = 400
ttl_hours = 2

[blocks.gardening]
query = "tomato seedlings"
"""


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "runbook.md").write_text(
        "# Runbook\n\n## Rollback\nTo roll back a deploy, run the rollback job, then check the "
        "dashboards for five minutes before paging anyone.\n"
    )
    (folder / "garden.md").write_text(
        "# Garden\n\n## Seedlings\nTomato seedlings need light fourteen hours a day.\n"
    )
    for topic in FILLER_TOPICS:
        (folder / f"{topic}.md").write_text(f"# {topic.title()}\n\nNotes about {topic} go here.\n")
    (folder / "vaultctx.toml").write_text(BLOCKS)
    handle = Vault(folder, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


def files(vault: Vault) -> list[Path]:
    """Only the vault's own vaultctx.toml: the user's real config dir stays out of tests."""
    return [vault.path / "vaultctx.toml"]


def test_specs_are_read_with_defaults(vault: Vault) -> None:
    assert load_block_specs(files(vault)) == {
        "deploys": BlockSpec("deploys", "deploy rollback runbook", 400, 2.0),
        "gardening": BlockSpec("gardening", "tomato seedlings", 1500, 24.0),
    }


def test_the_vault_file_overrides_the_user_file(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[blocks.a]\nquery = "user"\n[blocks.b]\nquery = "only user"\n')
    local = tmp_path / "vault.toml"
    local.write_text('[blocks.a]\nquery = "vault"\n')
    specs = load_block_specs([user, local])
    assert specs["a"].query == "vault" and specs["b"].query == "only user"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[blocks.x]\nmax_tokens = 100\n", "needs a query"),
        ('[blocks.x]\nquery = "q"\nmax_tokens = 10\n', "at least 50"),
        ('[blocks.x]\nquery = "q"\nmax_tokens = "many"\n', "whole number"),
        ('[blocks.x]\nquery = "q"\nttl_hours = 0\n', "above 0"),
        ('[blocks.x]\nquery = "q"\nttl = 3\n', "unknown key 'ttl'"),
        ('blocks = "x"\n', "must be a table"),
        ("[blocks\n", "invalid TOML"),
    ],
)
def test_malformed_blocks_are_errors(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "vaultctx.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError, match=message):
        load_block_specs([path])


def block(vault: Vault, name: str, **options: Any) -> BlockResult:
    return get_block(vault.config, vault.context, name, **options)


def contributors(vault: Vault, name: str) -> dict[str, list[int]]:
    files: dict[str, list[int]] = json.loads(cache_path(vault.db_path).read_text())[name]["files"]
    return files


def test_built_then_served_from_the_cache(vault: Vault) -> None:
    first = block(vault, "deploys", files=files(vault), now=1000.0)
    assert not first.cached
    assert first.sources[0].startswith("runbook.md") and "rollback job" in first.markdown
    assert first.expires_at == 1000.0 + 2 * 3600
    second = block(vault, "deploys", files=files(vault), now=2000.0)
    assert second.cached and second.markdown == first.markdown and second.built_at == 1000.0
    runbook = (vault.path / "runbook.md").stat()
    assert contributors(vault, "deploys")["runbook.md"] == [runbook.st_mtime_ns, runbook.st_size]
    assert len(contributors(vault, "deploys")) == len({s.split("#")[0] for s in first.sources})


def test_expired_blocks_are_rebuilt(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    later = block(vault, "deploys", files=files(vault), now=1000.0 + 2 * 3600)
    assert not later.cached and later.built_at == 1000.0 + 2 * 3600


def test_an_edited_source_invalidates_the_block(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    note = vault.path / "runbook.md"
    note.write_text(note.read_text() + "Also: freeze the queue first.\n")
    vault.index(fast=True)
    vault.close()
    rebuilt = block(vault, "deploys", files=files(vault), now=1001.0)
    assert not rebuilt.cached and "freeze the queue" in rebuilt.markdown


def test_a_touched_source_invalidates_the_block(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    stat = (vault.path / "runbook.md").stat()
    os.utime(vault.path / "runbook.md", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert not block(vault, "deploys", files=files(vault), now=1001.0).cached


def test_a_deleted_source_invalidates_the_block(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    (vault.path / "runbook.md").unlink()
    vault.index(fast=True)
    vault.close()
    rebuilt = block(vault, "deploys", files=files(vault), now=1001.0)
    assert not rebuilt.cached and not any(s.startswith("runbook.md") for s in rebuilt.sources)


def test_an_edit_elsewhere_keeps_the_cache(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    used = contributors(vault, "deploys")
    unused = next(f"{t}.md" for t in FILLER_TOPICS if f"{t}.md" not in used)
    (vault.path / unused).write_text("# Rewritten\n\nSomething else entirely.\n")
    assert block(vault, "deploys", files=files(vault), now=1001.0).cached


def test_a_changed_declaration_rebuilds(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    toml = vault.path / "vaultctx.toml"
    toml.write_text(BLOCKS.replace("max_tokens = 400", "max_tokens = 300"))
    assert not block(vault, "deploys", files=files(vault), now=1001.0).cached


def test_refresh_forces_a_rebuild(vault: Vault) -> None:
    block(vault, "deploys", files=files(vault), now=1000.0)
    assert not block(vault, "deploys", refresh=True, files=files(vault), now=1001.0).cached


def test_a_damaged_cache_is_rebuilt(vault: Vault) -> None:
    cache_path(vault.db_path).write_text("{not json")
    assert not block(vault, "deploys", files=files(vault)).cached
    assert block(vault, "deploys", files=files(vault)).cached


def test_unknown_block_lists_the_defined_ones(vault: Vault) -> None:
    with pytest.raises(UnknownBlockError, match=r"'nope' \(defined: deploys, gardening\)"):
        block(vault, "nope", files=files(vault))


def test_cli_context_block(vault: Vault) -> None:
    args = ["context", "--vault", str(vault.path), "--db", str(vault.db_path)]
    first = CliRunner().invoke(app, [*args, "--block", "gardening", "--format", "json"])
    assert first.exit_code == 0, first.output
    answer = json.loads(first.stdout)
    assert answer["name"] == "gardening" and answer["sources"][0].startswith("garden.md")
    second = CliRunner().invoke(app, [*args, "--block", "gardening", "--format", "json"])
    assert json.loads(second.stdout)["cached"] is True
    markdown = CliRunner().invoke(app, [*args, "--block", "gardening"])
    assert "Tomato seedlings need light" in markdown.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--block", "nope"], "no context block named 'nope'"),
        (["topic", "--block", "gardening"], "exactly one of them"),
        ([], "exactly one of them"),
    ],
)
def test_cli_errors(vault: Vault, extra: list[str], message: str) -> None:
    args = ["context", "--vault", str(vault.path), "--db", str(vault.db_path), *extra]
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, VaultctxError)
    assert message in result.exception.one_line()
