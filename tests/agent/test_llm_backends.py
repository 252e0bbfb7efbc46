"""LLM backends are plug-ins: one module each, found through one registry.

A fifth backend, defined here and installed through the ``vaultctx.llm_backends`` entry points
the way a plug-in package would be, is seen by everything that treats backends differently; and no
module outside a backend's own and the registry spells a backend's name, so none can compare
against it.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import exceptions as errors
from pydantic_ai.embeddings import TestEmbeddingModel
from pydantic_ai.models import Model
from pydantic_ai.models.test import TestModel
from typer.testing import CliRunner

import vaultctx
from vaultctx.agent.attachments import Attachment, check_backend_support
from vaultctx.agent.backends import build_backend
from vaultctx.agent.effort import allowed_efforts, effort_model_settings
from vaultctx.agent.failures import describe_failure
from vaultctx.agent.llm_backends import registry
from vaultctx.agent.llm_backends.base import (
    IMAGE_TYPES,
    PDF_TYPES,
    AttachedFile,
    ConnectionSettings,
    LLMBackend,
    ModelInfo,
)
from vaultctx.agent.model_lists import list_models
from vaultctx.agent.remote_embed import RemoteEmbedder, remote_engine
from vaultctx.agent.settings import AgentSettings, load_agent_settings
from vaultctx.config import ConfigError
from vaultctx.errors import VaultctxError

SRC = Path(vaultctx.__file__).resolve().parent
# Modules that spell a backend's name as something else: topic words that mark a feed item as
# being about language models (signals triage), not a choice of backend.
NOT_A_BACKEND = {"vaultctx.signals.domains"}


class EmbeddingRecorder(TestEmbeddingModel):
    """pydantic-ai's offline embedding model, noting how many texts each request carried."""

    def __init__(self, sizes: list[int]) -> None:
        super().__init__(dimensions=4)
        self.sizes = sizes

    async def embed(self, inputs: Any, **kwargs: Any) -> Any:
        self.sizes.append(len(inputs))
        return await super().embed(inputs, **kwargs)


class DummyBackend(LLMBackend):
    """A fifth backend, with every part of the contract different from the defaults."""

    name = "dummy"
    default_base_url = "http://dummy.invalid/v9"
    embed_batch_texts = 3
    attachment_types = IMAGE_TYPES | PDF_TYPES
    unreachable_fix = "wake the dummy up"

    def __init__(self) -> None:
        self.embedded: list[int] = []
        self.checked: list[int] = []

    def build_model(self, settings: ConnectionSettings, model_name: str) -> tuple[Model, str]:
        return TestModel(model_name=model_name), self.endpoint(settings) or ""

    def build_embedding_model(self, settings: ConnectionSettings) -> tuple[Any, str]:
        return EmbeddingRecorder(self.embedded), self.endpoint(settings) or ""

    async def list_models(self, settings: ConnectionSettings) -> list[ModelInfo]:
        return [ModelInfo("dummy-chat", "chat"), ModelInfo("dummy-embed", "embedding")]

    def allowed_efforts(self, model: str) -> tuple[str, ...]:
        return ("low", "high")

    def effort_settings(self, model: str, level: str) -> dict[str, Any]:
        return {"dummy_effort": level}

    def check_attachments(self, attachments: Sequence[AttachedFile]) -> None:
        self.checked.append(len(attachments))


DUMMY = DummyBackend()


@pytest.fixture
def dummy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DummyBackend:
    """DUMMY installed as a plug-in: an entry point in the group, loaded by the registry."""
    real = importlib.metadata.entry_points
    point = importlib.metadata.EntryPoint(
        name="dummy", value=f"{__name__}:DUMMY", group=registry.BACKEND_GROUP
    )

    def entry_points(**params: Any) -> Any:
        if params.get("group") == registry.BACKEND_GROUP:
            return importlib.metadata.EntryPoints([point])
        return real(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(registry, "BACKENDS", {})
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    DUMMY.embedded.clear()
    DUMMY.checked.clear()
    return DUMMY


def test_settings_accept_a_plugin_backend_and_use_its_address(dummy: DummyBackend) -> None:
    settings = load_agent_settings(None, {"backend": "Dummy", "model": "m"}, env={})
    assert settings.backend == "dummy"
    assert settings.endpoint() == "http://dummy.invalid/v9"
    assert "dummy" in registry.backend_names()


def test_a_plugin_backend_builds_its_model(dummy: DummyBackend) -> None:
    backend = build_backend(AgentSettings(backend="dummy", model="m"))
    assert (backend.name, backend.model_name, backend.endpoint) == (
        "dummy",
        "m",
        "http://dummy.invalid/v9",
    )
    assert isinstance(backend.model, TestModel)


def test_a_plugin_backend_lists_its_models(dummy: DummyBackend) -> None:
    found = asyncio.run(list_models(AgentSettings(backend="dummy")))
    assert [model.as_dict() for model in found] == [
        {"name": "dummy-chat", "kind": "chat"},
        {"name": "dummy-embed", "kind": "embedding"},
    ]


def test_a_plugin_backend_maps_effort_in_its_own_field(dummy: DummyBackend) -> None:
    assert allowed_efforts("dummy", "m") == ("low", "high")
    # medium is not among its levels: clamped to the nearest, ties to the weaker.
    assert effort_model_settings("dummy", "m", "medium") == {"dummy_effort": "low"}
    assert effort_model_settings("dummy", "m", "max") == {"dummy_effort": "high"}


def _file(name: str, media_type: str) -> Attachment:
    if media_type.startswith("image/"):
        return Attachment(name=name, kind="image", media_type=media_type, size=10, data=b"x")
    return Attachment(name=name, kind="document", media_type=media_type, size=10, data=b"x")


def test_a_plugin_backend_says_which_attachments_it_takes(dummy: DummyBackend) -> None:
    check_backend_support("dummy", [_file("a.pdf", "application/pdf"), _file("b.png", "image/png")])
    assert dummy.checked == [2]
    word = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    with pytest.raises(VaultctxError, match="Word attachments are not supported by dummy"):
        check_backend_support("dummy", [_file("c.docx", word)])
    # And it is offered where a built-in refuses a format it reads.
    with pytest.raises(VaultctxError) as refused:
        check_backend_support("openai", [_file("a.pdf", "application/pdf")])
    assert (
        refused.value.suggestion
        == "use --backend bedrock or dummy or gemini, or attach a text export"
    )


def test_a_plugin_backend_names_its_own_fix_when_unreachable(dummy: DummyBackend) -> None:
    failure = describe_failure(
        errors.ModelConnectionError("m", "refused"),
        backend="dummy",
        model="m",
        endpoint="http://dummy.invalid/v9",
        secret=None,
    )
    assert failure.message == "cannot reach dummy at http://dummy.invalid/v9"
    assert failure.suggestion == "wake the dummy up"


def test_a_plugin_backend_embeds_in_batches_of_its_size(dummy: DummyBackend) -> None:
    engine = remote_engine("dummy", "dummy-embed")
    try:
        vectors = engine.embed([f"text {n}" for n in range(7)])
    finally:
        engine.close()
    assert isinstance(engine, RemoteEmbedder) and engine.name == "dummy:dummy-embed"
    assert vectors.shape == (7, 4)
    assert dummy.embedded == [3, 3, 1]


def test_the_models_command_takes_a_plugin_backend(
    dummy: DummyBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    from vaultctx.cli.secret_cmds import models

    models(vault=None, backend="dummy", base_url=None, api_key_secret=None, as_json=True)
    assert '"dummy-embed"' in capsys.readouterr().out


def test_cli_help_lists_the_registered_backends() -> None:
    from vaultctx.cli.main import app

    shown = CliRunner().invoke(app, ["models", "--help"], terminal_width=200).output
    assert registry.or_list(registry.builtin_names()) in " ".join(shown.split())
    registry.register_backend(DUMMY)
    try:
        assert registry.or_list(registry.builtin_names()).endswith("bedrock or dummy")
    finally:
        del registry.BACKENDS["dummy"]


def test_an_unknown_backend_names_the_known_ones_and_the_fix(dummy: DummyBackend) -> None:
    with pytest.raises(ConfigError) as raised:
        registry.get_backend("mistral", "vaultctx.toml")
    assert raised.value.message == "vaultctx.toml: unknown backend 'mistral'"
    assert raised.value.suggestion.startswith("use one of: openai, ollama, gemini, bedrock, dummy")
    assert registry.BACKEND_GROUP in raised.value.suggestion


def test_a_plugin_that_is_not_a_backend_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    point = importlib.metadata.EntryPoint(
        name="broken", value=f"{__name__}:SRC", group=registry.BACKEND_GROUP
    )
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda **_: importlib.metadata.EntryPoints([point])
    )
    with pytest.raises(registry.UnknownBackendError, match="gives PosixPath, not a backend"):
        registry.get_backend("broken")


def quoted_names(source: str, names: Sequence[str]) -> set[str]:
    """The ``names`` that ``source`` spells as a whole string constant: what code compares a
    backend against (``backend == "openai"``, ``{"openai": ...}``). Docstrings and prose that
    mention a backend are longer strings and do not count."""
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    }


def test_each_backend_is_named_only_in_its_own_module_and_the_registry() -> None:
    names = list(registry.BUILT_IN)
    spelled: dict[str, set[str]] = {name: set() for name in names}
    for file in sorted(SRC.rglob("*.py")):
        module = ".".join(file.relative_to(SRC.parent).with_suffix("").parts)
        if module in NOT_A_BACKEND:
            continue
        for name in quoted_names(file.read_text(encoding="utf-8"), names):
            spelled[name].add(module.removesuffix(".__init__"))
    registry_module = registry.__name__
    assert spelled == {name: {registry.BUILT_IN[name], registry_module} for name in names}


def test_the_name_finder_finds_a_comparison() -> None:
    source = (
        '"""Talks to openai or ollama."""\n'
        'if backend == "openai":\n'
        "    size = {'gemini': 100}\n"
        'help = "openai, ollama or gemini"\n'
    )
    assert quoted_names(source, ["openai", "ollama", "gemini", "bedrock"]) == {"openai", "gemini"}
