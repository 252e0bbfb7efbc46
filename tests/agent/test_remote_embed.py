"""Remote embedding engines against the fake backends: what each provider is sent, the model
hash, the settings they read, the registry (test_remote_embed_index.py runs ``vaultctx index``)."""

from __future__ import annotations

import asyncio
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.agent.fakes import BedrockFake, Embeddings, GeminiFake, OllamaFake, OpenAIFake
from tests.agent.fakes.base import fake_vector
from tests.agent.fakes.openai_fake import openai_error
from tests.conftest import make_vault
from vaultctx.agent import secrets
from vaultctx.agent.failures import BackendFailure
from vaultctx.agent.remote_embed import (
    MAX_INPUT_CHARS,
    RemoteEmbedder,
    batches,
    embedding_settings,
)
from vaultctx.agent.settings import AgentSettings
from vaultctx.config import ConfigError, load_config
from vaultctx.embed import base, registry
from vaultctx.embed.registry import UnknownEngineError, create_embedder

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-embed-Zq8ftY3kLm0PwX7vB2nR5sT9"
SMALL = "text-embedding-3-small"


@pytest.fixture(autouse=True)
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No keyring: the key named ``embed-key`` is read from ``EMBED_KEY``."""
    monkeypatch.setattr(secrets, "_keyring_backend", lambda: None)
    monkeypatch.setenv("EMBED_KEY", KEY)
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)


@pytest.fixture
def engines() -> Iterator[list[RemoteEmbedder]]:
    """Engines made by a test, closed after it (each runs an event loop in a thread)."""
    made: list[RemoteEmbedder] = []
    yield made
    for engine in made:
        engine.close()


def engine_for(made: list[RemoteEmbedder], **settings: object) -> RemoteEmbedder:
    engine = RemoteEmbedder(AgentSettings(**settings))  # type: ignore[arg-type]
    made.append(engine)
    return engine


def assert_unit_rows(vectors: np.ndarray, rows: int) -> None:
    assert vectors.dtype == np.float32 and vectors.shape == (rows, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------- each provider


def test_openai_sends_the_batch_with_the_key_and_cuts_each_text(
    engines: list[RemoteEmbedder],
) -> None:
    with OpenAIFake(require_key=KEY) as fake:
        engine = engine_for(
            engines,
            backend="openai",
            model=SMALL,
            base_url=fake.base_url + "/v1",
            api_key_secret="embed-key",
        )
        texts = ["lighthouse", "x" * (MAX_INPUT_CHARS + 1), "y" * MAX_INPUT_CHARS]

        vectors = engine.embed(texts)

        assert_unit_rows(vectors, 3)
        request = fake.last("/embeddings")
        assert request.path == "/v1/embeddings"
        assert request.header("authorization") == f"Bearer {KEY}"
        assert request.json["model"] == SMALL
        assert [len(text) for text in request.json["input"]] == [10, 20_000, 20_000]
        assert request.json["input"][1] == "x" * 20_000
        assert len(fake.requests) == 1  # one batch, and the width came with it: no probe
        assert engine.dimension == 8 and len(fake.requests) == 1


def test_ollama_embeds_through_its_openai_compatible_api(engines: list[RemoteEmbedder]) -> None:
    with OllamaFake() as fake:
        engine = engine_for(
            engines, backend="ollama", model="nomic-embed-text", base_url=fake.base_url
        )

        vectors = engine.embed(["alpha", "beta"])

        assert_unit_rows(vectors, 2)
        request = fake.last("/embeddings")
        assert request.path == "/v1/embeddings"
        assert (request.json["model"], request.json["input"]) == (
            "nomic-embed-text",
            ["alpha", "beta"],
        )
        # Ollama wants no key; the placeholder keeps OPENAI_API_KEY from being sent there.
        assert request.header("authorization") == "Bearer ollama"
        expected = np.asarray(fake_vector("alpha", 8), dtype=np.float32)
        assert np.allclose(vectors[0], expected / np.linalg.norm(expected), atol=1e-5)


def test_gemini_batches_at_most_100_texts_per_request(engines: list[RemoteEmbedder]) -> None:
    with GeminiFake() as fake:
        engine = engine_for(
            engines,
            backend="gemini",
            model="gemini-embedding-001",
            base_url=fake.base_url,
            api_key_secret="embed-key",
        )
        texts = [f"note {i}" for i in range(150)]

        vectors = engine.embed(texts)

        assert_unit_rows(vectors, 150)
        sent = fake.requests_to(":batchEmbedContents")
        assert [len(r.json["requests"]) for r in sent] == [100, 50]
        assert sent[0].path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
        assert sent[0].header("x-goog-api-key") == KEY
        first = sent[0].json["requests"][0]
        assert first["content"]["parts"][0]["text"] == "note 0"
        assert first["taskType"] == "RETRIEVAL_DOCUMENT"
        assert len(fake.requests) == 2  # google-genai's own retries are off


def test_bedrock_titan_takes_one_text_per_request_with_the_api_key(
    engines: list[RemoteEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    with BedrockFake(tls=True) as fake:
        assert fake.ca_file is not None
        monkeypatch.setenv("AWS_CA_BUNDLE", fake.ca_file)
        engine = engine_for(
            engines,
            backend="bedrock",
            model="amazon.titan-embed-text-v2:0",
            base_url=fake.base_url,
            api_key_secret="embed-key",
        )

        vectors = engine.embed(["one", "two", "z" * (MAX_INPUT_CHARS + 1)])

        assert_unit_rows(vectors, 3)
        sent = fake.requests_to("/invoke")
        assert {r.path for r in sent} == {"/model/amazon.titan-embed-text-v2:0/invoke"}
        assert sorted(len(r.json["inputText"]) for r in sent) == [3, 3, 20_000]
        assert {r.header("authorization") for r in sent} == {f"Bearer {KEY}"}
        assert engine.name == "bedrock:amazon.titan-embed-text-v2:0"


# --------------------------------------------------------------------------- the model hash


def test_the_model_hash_is_the_name_and_width_and_changes_with_either(
    engines: list[RemoteEmbedder],
) -> None:
    with OpenAIFake() as openai, OllamaFake() as ollama:
        small, large, local = (
            engine_for(
                engines,
                backend=backend,
                model=model,
                base_url=url,
                api_key_secret="embed-key",
            )
            for backend, model, url in (
                ("openai", SMALL, openai.base_url + "/v1"),
                ("openai", "text-embedding-3-large", openai.base_url + "/v1"),
                ("ollama", SMALL, ollama.base_url),
            )
        )

        hashes = {small.model_hash, large.model_hash, local.model_hash}

        assert len(hashes) == 3
        assert small.model_hash == base.model_hash("openai:text-embedding-3-small", 8)
        assert [r.json["input"] for r in openai.requests] == [["vaultctx"], ["vaultctx"]]
        # The width is learnt once, by a probe, and kept.
        assert small.model_hash == base.model_hash("openai:text-embedding-3-small", 8)
        assert len(openai.requests) == 2


def test_a_model_answering_another_width_is_refused(engines: list[RemoteEmbedder]) -> None:
    with OpenAIFake() as fake:
        engine = engine_for(
            engines,
            backend="openai",
            model=SMALL,
            base_url=fake.base_url + "/v1",
            api_key_secret="embed-key",
        )
        assert engine.dimension == 8
        fake.queue_embed(Embeddings([[1.0, 0.0, 0.0]]))

        with pytest.raises(BackendFailure, match="vectors of 3 and 8 dimensions"):
            engine.embed(["a"])


# --------------------------------------------------------------------------- calling contexts


def test_embed_works_from_inside_a_running_event_loop(engines: list[RemoteEmbedder]) -> None:
    with OpenAIFake() as fake:
        engine = engine_for(
            engines,
            backend="openai",
            model=SMALL,
            base_url=fake.base_url + "/v1",
            api_key_secret="embed-key",
        )

        async def agent_turn() -> np.ndarray:
            await asyncio.sleep(0)
            return engine.embed(["query from the agent"])

        vectors = asyncio.run(agent_turn())

        assert_unit_rows(vectors, 1)
        assert fake.last("/embeddings").json["input"] == ["query from the agent"]


def test_a_pickled_engine_keeps_its_width_but_not_its_client(
    engines: list[RemoteEmbedder],
) -> None:
    with OpenAIFake() as fake:
        engine = engine_for(
            engines,
            backend="openai",
            model=SMALL,
            base_url=fake.base_url + "/v1",
            api_key_secret="embed-key",
        )
        engine.embed(["a"])
        data = pickle.dumps(engine)
        assert KEY.encode() not in data

        copy = pickle.loads(data)
        engines.append(copy)

        assert copy.model_hash == engine.model_hash
        assert_unit_rows(copy.embed(["b"]), 1)
        assert len(fake.requests) == 2


def test_batches_respect_both_limits() -> None:
    texts = ["a" * 10] * 5 + ["b" * 50, "c"]
    assert [len(b) for b in batches(texts, 2, 1000)] == [2, 2, 2, 1]
    assert [len(b) for b in batches(texts, 100, 30)] == [3, 2, 1, 1]


# --------------------------------------------------------------------------- failures


def test_a_refused_key_is_one_line_naming_the_secret_to_fix(
    engines: list[RemoteEmbedder],
) -> None:
    with OpenAIFake(require_key="another") as fake:
        engine = engine_for(
            engines,
            backend="openai",
            model=SMALL,
            base_url=fake.base_url + "/v1",
            api_key_secret="embed-key",
        )

        with pytest.raises(BackendFailure) as raised:
            engine.embed(["a"])

        line = raised.value.one_line()
        assert "\n" not in line and KEY not in line
        assert line.startswith(f"embedding engine openai:{SMALL}: openai at {fake.base_url}/v1")
        assert "refused the key (HTTP 401)" in line
        assert "vaultctx secret set embed-key" in raised.value.suggestion


def test_a_text_too_long_in_tokens_says_to_lower_the_chunk_size(
    engines: list[RemoteEmbedder],
) -> None:
    with OpenAIFake() as fake:
        engine = engine_for(
            engines,
            backend="openai",
            model=SMALL,
            base_url=fake.base_url + "/v1",
            api_key_secret="embed-key",
        )
        fake.queue_embed(
            openai_error(
                400,
                "This model's maximum context length is 8192 tokens, however you requested "
                "9133 tokens. Please reduce your prompt.",
                type="invalid_request_error",
                code="context_length_exceeded",
            )
        )
        with pytest.raises(BackendFailure, match="refused a text as too long") as raised:
            engine.embed(["漢" * 9000])
        assert "chunk_max_chars" in raised.value.suggestion


def test_no_key_name_says_where_to_set_one(engines: list[RemoteEmbedder]) -> None:
    engine = engine_for(engines, backend="gemini", model="gemini-embedding-001")
    with pytest.raises(BackendFailure, match="needs an API key") as raised:
        engine.embed(["a"])
    assert "[embedding]" in raised.value.suggestion


def test_an_unreachable_ollama_says_to_start_it(engines: list[RemoteEmbedder]) -> None:
    with OllamaFake() as fake:
        url = fake.base_url
    engine = engine_for(engines, backend="ollama", model="nomic-embed-text", base_url=url)
    with pytest.raises(BackendFailure, match=f"cannot reach ollama at {url}") as raised:
        engine.embed(["a"])
    assert "ollama serve" in raised.value.suggestion


# --------------------------------------------------------------------------- settings


def user_config(root: Path, text: str) -> Path:
    folder = root / "config" / "vaultctx"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vaultctx.toml").write_text(text, encoding="utf-8")
    return folder / "vaultctx.toml"


def test_the_agents_connection_is_reused_only_for_the_same_provider(tmp_path: Path) -> None:
    path = user_config(
        tmp_path,
        '[agent]\nbackend = "openai"\nbase_url = "https://proxy.example/v1"\n'
        'api_key_secret = "work"\ntimeout = 30\n',
    )
    same = embedding_settings("openai", SMALL, env={}, user_config=path)
    other = embedding_settings("ollama", "nomic-embed-text", env={}, user_config=path)

    assert (same.base_url, same.api_key_secret, same.timeout) == (
        "https://proxy.example/v1",
        "work",
        30.0,
    )
    assert (other.backend, other.base_url, other.api_key_secret) == ("ollama", None, None)
    assert other.endpoint() == "http://localhost:11434" and other.timeout == 30.0


def test_the_embedding_table_overrides_the_agents(tmp_path: Path) -> None:
    path = user_config(
        tmp_path,
        '[agent]\nbackend = "openai"\napi_key_secret = "chat"\n\n'
        '[embedding]\napi_key_secret = "embed"\nbase_url = "http://10.0.0.5:8080/v1/"\n',
    )
    settings = embedding_settings("openai", SMALL, env={}, user_config=path)
    assert (settings.api_key_secret, settings.base_url) == ("embed", "http://10.0.0.5:8080/v1")


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('[embedding]\nmodel = "x"\n', "unknown [embedding] setting 'model'"),
        ('[embedding]\nbase_url = "file:///etc"\n', "not an http:// or https:// URL"),
        ("[embedding]\ntimeout = 0\n", "between 1 and 3600"),
        ("embedding = 3\n", "must be a table"),
    ],
)
def test_a_bad_embedding_table_is_a_config_error(tmp_path: Path, table: str, problem: str) -> None:
    path = user_config(tmp_path, table)
    with pytest.raises(ConfigError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        embedding_settings("openai", SMALL, env={}, user_config=path)


def test_a_vaults_own_file_may_not_choose_a_remote_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(tmp_path / "vault", {"a.md": "# A\n\ntext\n"})
    (vault / "vaultctx.toml").write_text(f'quality_engine = "openai:{SMALL}"\n')
    settings = load_config(vault, env={}, user_config_dir=tmp_path / "cfg").settings
    assert settings.quality_engine == "onnx"  # the default: the vault's choice is not used
    notice = capsys.readouterr().err
    assert "a remote embedding engine" in notice
    assert str(tmp_path / "cfg" / "vaultctx.toml") in notice

    user_config(tmp_path, f'quality_engine = "openai:{SMALL}"\n')
    (vault / "vaultctx.toml").write_text('quality_engine = "onnx"\n')  # local overrides: fine
    cfg = tmp_path / "config" / "vaultctx"
    assert load_config(vault, env={}, user_config_dir=cfg).settings.quality_engine == "onnx"
    (vault / "vaultctx.toml").unlink()
    assert (
        load_config(vault, env={}, user_config_dir=cfg).settings.quality_engine == f"openai:{SMALL}"
    )


# --------------------------------------------------------------------------- the registry


def test_the_registry_finds_the_four_providers_by_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.metadata import entry_points

    names = {point.name for point in entry_points(group=registry.ENGINE_GROUP)}
    assert {"openai", "ollama", "gemini", "bedrock"} <= names, (
        "entry points missing: reinstall with `pip install --no-deps -e .`"
    )
    user_config(tmp_path, '[embedding]\napi_key_secret = "embed-key"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))

    engine = create_embedder("bedrock:amazon.titan-embed-text-v2:0")

    assert isinstance(engine, RemoteEmbedder)
    assert (engine.provider, engine.model) == ("bedrock", "amazon.titan-embed-text-v2:0")
    assert engine.settings.api_key_secret == "embed-key"


def test_an_unknown_provider_names_the_installed_ones() -> None:
    with pytest.raises(UnknownEngineError, match="no remote embedding engine 'cohere'") as raised:
        create_embedder("cohere:embed-v4")
    assert "bedrock, gemini, ollama, openai" in raised.value.suggestion
    with pytest.raises(UnknownEngineError, match="names no model"):
        create_embedder("openai:")


def test_a_missing_client_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(UnknownEngineError, match="needs a package that is not installed") as raised:
        create_embedder(f"openai:{SMALL}")
    assert raised.value.suggestion == "run: pip install 'vaultctx[agent]'"
