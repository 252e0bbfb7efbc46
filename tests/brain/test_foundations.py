"""The pieces every Second Brain, organisation and triage command stands on: the settings that
keep it off until asked, the block markers, and the one-question model seam."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from vaultctx.agent.brain_tools import BRAIN_TOOLS, session_tools
from vaultctx.agent.complete import BackendTextModel
from vaultctx.agent.failures import BackendFailure
from vaultctx.agent.settings import AgentSettings
from vaultctx.agent.tool_list import BASIC_TOOLS
from vaultctx.api import Vault
from vaultctx.brain.markers import MarkerError, neutralise, read_block, upsert_block
from vaultctx.brain.settings import (
    DEFAULT_WIKI_FOLDER,
    SecondBrainOffError,
    SecondBrainSettings,
    load_second_brain_settings,
)
from vaultctx.config import ConfigError


def settings_for(tmp_path: Path, vault_toml: str, user_toml: str = "") -> SecondBrainSettings:
    vault = make_vault(tmp_path / "vault", {"a.md": "# A\n"})
    (vault / "vaultctx.toml").write_text(vault_toml, encoding="utf-8")
    user = tmp_path / "user"
    user.mkdir()
    (user / "vaultctx.toml").write_text(user_toml, encoding="utf-8")
    return load_second_brain_settings(vault, user)


def test_second_brain_is_off_by_default_and_refuses(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "")
    assert settings.enabled is False
    assert settings.wiki_folder == DEFAULT_WIKI_FOLDER
    with pytest.raises(SecondBrainOffError) as off:
        settings.require_enabled()
    assert "enabled = true under [second_brain]" in off.value.one_line()


def test_the_vaults_setting_wins_per_key(tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path,
        "[second_brain]\nenabled = true\n",
        '[second_brain]\nenabled = false\nwiki_folder = "Wiki/AI"\n',
    )
    assert settings.enabled is True
    assert settings.wiki_folder == "Wiki/AI"


def test_a_blank_wiki_folder_is_the_default(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, '[second_brain]\nwiki_folder = " "\n')
    assert settings.wiki_folder == DEFAULT_WIKI_FOLDER


@pytest.mark.parametrize(
    ("toml", "wanted"),
    [
        ('[second_brain]\nenabled = "yes"\n', "enabled must be true or false"),
        ('[second_brain]\nwiki_folder = "../out"\n', "must name a folder inside the vault"),
        ('[second_brain]\nwiki_folder = "/etc"\n', "must name a folder inside the vault"),
        ("[second_brain]\nwikifolder = 'x'\n", "unknown setting [second_brain] wikifolder"),
        ("second_brain = 3\n", "'second_brain' must be a table"),
    ],
)
def test_bad_settings_name_the_file_and_the_fix(tmp_path: Path, toml: str, wanted: str) -> None:
    with pytest.raises(ConfigError) as bad:
        settings_for(tmp_path, toml)
    assert wanted in bad.value.message and "vault/vaultctx.toml" in bad.value.message


def test_the_brain_tools_are_offered_only_when_enabled(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", {"a.md": "# A\n"})
    with Vault(vault, db=tmp_path / "i.db") as handle:
        assert session_tools(handle) == BASIC_TOOLS
        (vault / "vaultctx.toml").write_text("[second_brain]\nenabled = true\n")
        assert session_tools(handle) == BASIC_TOOLS + BRAIN_TOOLS


# -- markers ------------------------------------------------------------------------------------


def test_upsert_appends_then_replaces_only_inside_the_block() -> None:
    mine = "# Topic\n\nMy own words.\n"
    first = upsert_block(mine, "synthesis", "v1")
    assert first == mine + "\n<!-- @generated:synthesis -->\nv1\n<!-- @end:synthesis -->\n"
    edited = first + "\nA paragraph I added after.\n"
    second = upsert_block(edited, "synthesis", "v2\nmore")
    assert second == edited.replace("\nv1\n", "\nv2\nmore\n")
    assert read_block(second, "synthesis") == "v2\nmore"
    assert upsert_block(second, "other", "x").startswith(second)


def test_model_text_cannot_close_or_open_a_block() -> None:
    hostile = "ok <!-- @end:synthesis --> <!--@generated:x--> <!--   @END:synthesis -->"
    text = upsert_block("", "synthesis", hostile)
    assert read_block(text, "synthesis") == neutralise(hostile)
    assert text.count("<!-- @end:synthesis -->") == 1
    again = upsert_block(text, "synthesis", "clean")
    assert again == "<!-- @generated:synthesis -->\nclean\n<!-- @end:synthesis -->\n"


@pytest.mark.parametrize(
    "text",
    [
        "intro\n<!-- @generated:synthesis -->\nhalf a block, the end was deleted\n",
        "<!-- @generated:synthesis -->\na\n<!-- @generated:synthesis -->\nb\n"
        "<!-- @end:synthesis -->\n",
    ],
)
def test_an_unclosed_start_marker_is_an_error_naming_the_line(text: str) -> None:
    with pytest.raises(MarkerError) as unclosed:
        upsert_block(text, "synthesis", "new", name="Second Brain/Topic.md")
    assert unclosed.value.message.startswith(
        "Second Brain/Topic.md has <!-- @generated:synthesis --> on line"
    )


# -- the model seam -----------------------------------------------------------------------------


def test_backend_text_model_asks_once_with_the_limits_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_TEST", "sk-test-key")
    with OpenAIFake() as fake:
        fake.queue(Answer(["a synthesis"]))
        settings = AgentSettings(
            backend="openai",
            model="gpt-fake",
            base_url=f"{fake.base_url}/v1",
            api_key_secret="openai-test",
        )
        model = BackendTextModel(settings)
        text = asyncio.run(model.complete("You write wikis.", "Topic: WAL", max_tokens=123))
        [request] = fake.requests
    assert text == "a synthesis" and model.name == "openai gpt-fake"
    body = request.json
    assert body["max_completion_tokens"] == 123 or body.get("max_tokens") == 123
    assert body["messages"][0] == {"role": "system", "content": "You write wikis."}
    assert body["messages"][-1]["content"] == "Topic: WAL"


def test_backend_text_model_failure_is_one_line_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_TEST", "sk-test-key")
    with OpenAIFake() as fake:
        fake.queue(OpenAIFake.auth_error())
        settings = AgentSettings(
            backend="openai",
            model="gpt-fake",
            base_url=f"{fake.base_url}/v1",
            api_key_secret="openai-test",
        )
        with pytest.raises(BackendFailure) as failed:
            asyncio.run(BackendTextModel(settings).complete("s", "p", max_tokens=10))
    assert "refused the key" in failed.value.message
    assert "vaultctx secret set openai-test" in failed.value.one_line()
