"""Keys come from the keyring, else the environment; never from a setting, never printed."""

from __future__ import annotations

import pytest

from vaultctx.agent import secrets
from vaultctx.agent.secrets import SecretError, env_names, get_secret, require_secret


def test_environment_names_for_a_dashed_secret() -> None:
    assert env_names("openai-work") == ("openai-work", "OPENAI_WORK")
    assert env_names("OPENAI_KEY") == ("OPENAI_KEY",)


def test_without_a_keyring_the_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_keyring_backend", lambda: None)
    assert get_secret("openai-work", env={"OPENAI_WORK": "sk-env"}) == "sk-env"
    assert get_secret("openai-work", env={}) is None


@pytest.mark.parametrize("name", ["", "../x", "a b", "-lead", "x" * 65, "key\n"])
def test_unusable_names_are_refused(name: str) -> None:
    with pytest.raises(SecretError, match="not a usable secret name"):
        get_secret(name, env={})


def test_a_missing_key_says_how_to_store_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_keyring_backend", lambda: None)
    monkeypatch.delenv("GEMINI_PERSONAL", raising=False)
    monkeypatch.delenv("gemini-personal", raising=False)
    with pytest.raises(SecretError) as caught:
        require_secret("gemini-personal", "gemini")
    assert "vaultctx secret set gemini-personal" in caught.value.suggestion
    assert "GEMINI_PERSONAL" in caught.value.suggestion
    with pytest.raises(SecretError, match="no api_key_secret is set"):
        require_secret(None, "openai")


def test_storing_without_a_keyring_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_keyring_backend", lambda: None)
    with pytest.raises(SecretError) as caught:
        secrets.set_secret("openai-work", "sk-123")
    assert "OPENAI_WORK" in caught.value.suggestion
    assert "sk-123" not in caught.value.one_line()
