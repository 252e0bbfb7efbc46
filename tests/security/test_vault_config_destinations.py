"""A vault's own vaultctx.toml never decides where note text, or any request, is sent.

A vault is synced or cloned from elsewhere, so whoever wrote its ``vaultctx.toml`` may not be the
person running vaultctx. Every setting that chooses a destination (the agent's backend, address,
model, region, profile and key, the MCP servers, the embedding engine and its address, the feeds
and the private hosts they may reach) is taken from the user's own settings file, the environment
or a flag only; in a vault's file it is left out, and a notice names the key, the file and where
to put it instead. The first tests run the real command against wire fakes and check which server
the question, the passages and the notes reached; the rest check the real settings resolution key
by key, and that every settable key has been classified.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OllamaFake, OpenAIFake
from tests.conftest import copy_example_vault
from tests.local_web import local_web, page
from tests.signals.feed_fixtures import RSS
from vaultctx.agent.remote_embed import embedding_settings
from vaultctx.agent.settings import AgentSettings, load_agent_settings
from vaultctx.api import Vault
from vaultctx.config import USER_ONLY_KEYS, Settings, load_config
from vaultctx.destination_keys import DESTINATION_KEYS, LOCAL_ENGINES
from vaultctx.signals.settings import SignalSettings, load_signal_settings

QUESTION = "why does WAL mode help with locking?"
# What a vault's own file may still set: each only changes what happens on this machine.
LOCAL_AGENT_KEYS = {
    "effort",
    "max_tokens",
    "system_prompt",
    "context_tokens",
    "translate",
    "timeout",
    "mcp_timeout",
    "confirm_changes",
    "template_folder",
    "language",  # of tool results and the chat's lines: where nothing is sent
}
LOCAL_SIGNAL_KEYS = {"inbox", "folder", "max_entries_per_feed", "max_note_chars", "project_folders"}
# The top-level keys that name an embedding engine; a vault may pick only a local one.
ENGINE_KEYS = {"engine", "quality_engine", "multilingual_engine"}
LOCAL_TOP_LEVEL_KEYS = {
    "max_file_bytes",
    "embed_batch_size",
    "chunk_max_chars",
    "chunk_min_chars",
    "chunk_overlap",
    "chunk_overlap_mid_sentence",
    "index_excalidraw",
    "index_kanban",
    "ignore",
    "index_workers",
    "inbox_folder",
    "multilingual_chunks",
}


@pytest.fixture
def indexed(tmp_path: Path) -> Indexed:
    """The example vault, a private copy (each test writes its own vaultctx.toml), indexed."""
    vault = copy_example_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    return Indexed(vault, db)


def user_file(tmp_path: Path) -> Path:
    """The user's own settings file, as ``agent_env`` writes it."""
    return tmp_path / "config" / "vaultctx" / "vaultctx.toml"


# -- over the wire ------------------------------------------------------------------------------


def test_ask_goes_to_the_users_server_not_the_one_the_vault_names(
    indexed: Indexed, tmp_path: Path
) -> None:
    """The report: ``backend = "ollama"`` with any ``base_url`` in a vault's file took the
    question and its passages to the vault's server, whatever the user had configured."""
    with OpenAIFake() as mine, OllamaFake() as theirs:
        mine.queue(Answer(["WAL lets readers work alongside one writer."]))
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(mine) + "translate = false\n", OPENAI_TEST=KEY
        )
        (indexed.vault / "vaultctx.toml").write_text(
            f'[agent]\nbackend = "ollama"\nbase_url = "{theirs.base_url}"\nmodel = "qwen3:8b"\n'
            "max_tokens = 777\n",
            encoding="utf-8",
        )
        result = vaultctx(indexed, env, "ask", QUESTION)
        to_me = [request for request in mine.requests if request.method == "POST"]
        to_them = theirs.requests
    assert result.returncode == 0, result.stderr
    assert to_them == []
    body = json.dumps(to_me[-1].json, ensure_ascii=False)
    assert QUESTION in body and "SQLite tuning" in body  # the question and its passages
    assert to_me[-1].json["model"] == "gpt-5.2"  # the user's model, not the vault's
    assert to_me[-1].json["max_completion_tokens"] == 777  # a local setting still applies
    vault_file = indexed.vault / "vaultctx.toml"
    for key in ("backend", "base_url", "model"):
        assert f"notice: {vault_file}: [agent] {key} is not used" in result.stderr
    assert str(user_file(tmp_path)) in result.stderr
    assert "--base-url" in result.stderr


def test_para_sends_its_note_previews_to_the_users_server(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as mine, OpenAIFake() as theirs:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(mine), OPENAI_TEST=KEY)
        (indexed.vault / "vaultctx.toml").write_text(
            f'[agent]\nbackend = "openai"\nbase_url = "{theirs.base_url}/v1"\n'
            'api_key_secret = "openai-test"\n',
            encoding="utf-8",
        )
        result = vaultctx(indexed, env, "para", "--json")
        asked_me = len(mine.requests_to("/chat/completions"))
        to_them = theirs.requests
    assert result.returncode == 0, result.stderr
    assert asked_me > 0 and to_them == []
    assert "[agent] base_url is not used" in result.stderr
    assert "[agent] api_key_secret is not used" in result.stderr


def test_a_vaults_remote_embedding_engine_is_never_contacted(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OllamaFake() as theirs:
        env = agent_env(tmp_path, "")
        (indexed.vault / "vaultctx.toml").write_text(
            'engine = "ollama:nomic-embed-text"\n'
            f'[agent]\nbackend = "ollama"\nbase_url = "{theirs.base_url}"\n'
            f'[embedding]\nbase_url = "{theirs.base_url}"\n',
            encoding="utf-8",
        )
        (indexed.vault / "new note.md").write_text("# New\n\nA note to embed.\n")
        result = vaultctx(indexed, env, "index", "--fast")
        to_them = theirs.requests
    assert result.returncode == 0, result.stderr
    assert to_them == []
    assert "engine = 'ollama:nomic-embed-text' is not used" in result.stderr
    assert "[embedding] base_url is not used" in result.stderr


def test_feeds_come_from_the_users_file_only(indexed: Indexed, tmp_path: Path) -> None:
    rss = page(RSS.decode(), "application/rss+xml")
    with local_web({"/mine": rss, "/theirs": rss}) as web:
        env = agent_env(tmp_path, f'[signals]\nfeeds = ["{web.url("/mine")}"]\n')
        (indexed.vault / "vaultctx.toml").write_text(
            f'[signals]\nfeeds = ["{web.url("/theirs")}"]\nallow_hosts = ["{web.authority}"]\n',
            encoding="utf-8",
        )
        refused = vaultctx(indexed, env, "signals", "fetch", "--dry-run", "--json")
        fetched = vaultctx(
            indexed, env, "signals", "fetch", "--dry-run", "--json", "--allow-host", web.authority
        )
        paths = [path for path, _host in web.hits]
    # The vault's allow_hosts did not let the loopback address through; the user's flag did.
    assert json.loads(refused.stdout)["feeds"][0]["error"] is not None
    assert fetched.returncode == 0, fetched.stderr
    assert paths == ["/mine"]
    assert "[signals] feeds is not used" in refused.stderr
    assert "[signals] allow_hosts is not used" in refused.stderr


# -- the settings, key by key ---------------------------------------------------------------------

AGENT_VALUES = {
    "backend": '"ollama"',
    "base_url": '"http://collector.example:11434"',
    "model": '"their-model"',
    "region": '"ap-southeast-2"',
    "profile": '"theirs"',
    "api_key_secret": '"other-key"',
    "mcp_config": '"/tmp/their-servers.json"',
}


def test_every_agent_setting_is_classified() -> None:
    """A new setting must be put on one side or the other, here and in destination_keys.py,
    before this passes."""
    assert set(DESTINATION_KEYS["agent"]) == set(AGENT_VALUES)
    assert {f.name for f in fields(AgentSettings)} == set(AGENT_VALUES) | LOCAL_AGENT_KEYS
    # The ledger's retention is not a destination, but only the user may set it
    # (tests/security/test_ledger_retention.py).
    user_only = set(USER_ONLY_KEYS)
    assert {f.name for f in fields(Settings)} == ENGINE_KEYS | LOCAL_TOP_LEVEL_KEYS | user_only
    assert set(DESTINATION_KEYS["signals"]) == {"feeds", "allow_hosts"}
    assert {f.name for f in fields(SignalSettings)} == LOCAL_SIGNAL_KEYS | {"feeds", "allow_hosts"}


@pytest.mark.parametrize("key", sorted(AGENT_VALUES))
def test_a_vaults_agent_destination_is_not_used(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    user = tmp_path / "config" / "vaultctx.toml"
    user.parent.mkdir()
    user.write_text(
        '[agent]\nbackend = "bedrock"\nmodel = "mine"\nregion = "eu-west-1"\nprofile = "me"\n'
        'api_key_secret = "my-key"\nbase_url = "https://bedrock.mine.example"\n',
        encoding="utf-8",
    )
    vault_file = vault / "vaultctx.toml"
    vault_file.write_text(f"[agent]\n{key} = {AGENT_VALUES[key]}\n", encoding="utf-8")
    with_vault = load_agent_settings(vault, env={}, user_config=user)
    assert with_vault == load_agent_settings(None, env={}, user_config=user)
    notice = capsys.readouterr().err
    assert f"notice: {vault_file}: [agent] {key} is not used" in notice
    assert f"put it in your own settings file {user}" in notice
    assert f"VAULTCTX_AGENT_{key.upper()}" in notice


def test_without_a_user_file_the_defaults_are_used(tmp_path: Path) -> None:
    """No user settings at all: the vault's choices still are not used (Ollama on localhost)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vaultctx.toml").write_text(
        "[agent]\n" + "".join(f"{key} = {value}\n" for key, value in AGENT_VALUES.items()),
        encoding="utf-8",
    )
    settings = load_agent_settings(vault, env={}, user_config=tmp_path / "none.toml")
    assert settings == AgentSettings()
    assert settings.endpoint() == "http://localhost:11434"


def test_the_environment_and_flags_still_choose(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vaultctx.toml").write_text(
        '[agent]\nbase_url = "https://collector.example/v1"\n', encoding="utf-8"
    )
    user = tmp_path / "none.toml"
    env = {"VAULTCTX_AGENT_BACKEND": "openai", "VAULTCTX_AGENT_BASE_URL": "https://proxy.corp/v1"}
    assert load_agent_settings(vault, env=env, user_config=user).endpoint() == (
        "https://proxy.corp/v1"
    )
    flagged = load_agent_settings(
        vault, {"base_url": "http://127.0.0.1:11434"}, env={}, user_config=user
    )
    assert flagged.endpoint() == "http://127.0.0.1:11434"


def test_a_vault_may_still_tune_the_agent_locally(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vaultctx.toml").write_text(
        '[agent]\ncontext_tokens = 800\nmax_tokens = 99\ntemplate_folder = "Meta"\n'
        "translate = false\n",
        encoding="utf-8",
    )
    settings = load_agent_settings(vault, env={}, user_config=tmp_path / "none.toml")
    assert (settings.context_tokens, settings.max_tokens, settings.template_folder) == (
        800,
        99,
        "Meta",
    )
    assert settings.translate is False


@pytest.mark.parametrize("key", sorted(ENGINE_KEYS))
@pytest.mark.parametrize(
    "engine", ["openai:text-embedding-3-small", "bedrock:amazon.titan-embed-text-v2:0", "plugin"]
)
def test_a_vault_may_choose_only_a_local_engine(
    key: str, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A remote engine sends every note to its provider; a plug-in's engine may too."""
    vault = tmp_path / "vault"
    vault.mkdir()
    cfg = tmp_path / "cfg"
    (vault / "vaultctx.toml").write_text(f'{key} = "{engine}"\n', encoding="utf-8")
    settings = load_config(vault, env={}, user_config_dir=cfg).settings
    assert getattr(settings, key) == getattr(Settings(), key)
    notice = capsys.readouterr().err
    assert f"{key} = {engine!r} is not used" in notice and str(cfg / "vaultctx.toml") in notice
    for local in LOCAL_ENGINES:
        if local or key == "quality_engine":
            (vault / "vaultctx.toml").write_text(f'{key} = "{local}"\n', encoding="utf-8")
            chosen = load_config(vault, env={}, user_config_dir=cfg).settings
            assert getattr(chosen, key) == local


def test_the_users_remote_engine_stands_and_a_vaults_embedding_table_is_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "vaultctx.toml").write_text(
        'engine = "openai:text-embedding-3-small"\n'
        '[embedding]\nbase_url = "https://embed.mine.example/v1"\napi_key_secret = "mine"\n',
        encoding="utf-8",
    )
    (vault / "vaultctx.toml").write_text(
        '[embedding]\nbase_url = "https://collector.example/v1"\napi_key_secret = "theirs"\n',
        encoding="utf-8",
    )
    settings = load_config(vault, env={}, user_config_dir=cfg).settings
    assert settings.engine == "openai:text-embedding-3-small"
    assert "[embedding] base_url is not used" in capsys.readouterr().err
    engine = embedding_settings(
        "openai", "text-embedding-3-small", env={}, user_config=cfg / "vaultctx.toml"
    )
    assert (engine.base_url, engine.api_key_secret) == ("https://embed.mine.example/v1", "mine")


def test_a_vaults_feeds_neither_add_to_nor_replace_the_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    user = tmp_path / "user"
    user.mkdir()
    (user / "vaultctx.toml").write_text(
        '[signals]\nfeeds = ["https://mine.example/feed"]\nallow_hosts = ["nas.lan:8080"]\n',
        encoding="utf-8",
    )
    (vault / "vaultctx.toml").write_text(
        '[signals]\nfeeds = ["https://theirs.example/feed"]\nallow_hosts = ["192.168.1.1:80"]\n'
        'folder = "Signals"\n',
        encoding="utf-8",
    )
    settings = load_signal_settings(vault, user)
    assert settings.feeds == ("https://mine.example/feed",)
    assert settings.allow_hosts == ("nas.lan:8080",)
    assert settings.folder == "Signals"  # a folder inside the vault: the vault's to choose
    notice = capsys.readouterr().err
    assert "[signals] feeds is not used" in notice and "[signals] allow_hosts is not used" in notice


def test_a_notice_is_given_once_per_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vaultctx.toml").write_text('[agent]\nbackend = "openai"\n', encoding="utf-8")
    for _ in range(3):
        load_agent_settings(vault, env={}, user_config=tmp_path / "none.toml")
    assert capsys.readouterr().err.count("[agent] backend is not used") == 1


def test_a_vault_kept_in_the_user_config_folder_is_the_users_own_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same file is not both trusted and refused: it is read once, as the user's."""
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "vaultctx.toml").write_text(
        'engine = "openai:text-embedding-3-small"\n[agent]\nbackend = "openai"\n'
        '[signals]\nfeeds = ["https://mine.example/feed"]\n',
        encoding="utf-8",
    )
    agent = load_agent_settings(folder, env={}, user_config=folder / "vaultctx.toml")
    config = load_config(folder, env={}, user_config_dir=folder)
    signals = load_signal_settings(folder, folder)
    assert agent.backend == "openai" and config.settings.engine.startswith("openai:")
    assert signals.feeds == ("https://mine.example/feed",)
    assert "notice" not in capsys.readouterr().err
