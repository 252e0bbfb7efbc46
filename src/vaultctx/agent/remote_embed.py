"""Remote embedding engines: the LLM backends' embedding APIs as an ``Embedder`` (docs/agent.md,
"Remote embeddings").

Chosen by name, ``provider:model``, as ``engine`` or ``quality_engine`` in the user's own
vaultctx.toml; ``embed/registry.py`` finds each provider's factory (``embedding_engine`` in its
module under agent/llm_backends/) through the ``vaultctx.engines`` entry points (pyproject.toml),
so the embedding layer never imports the agent. The provider is an LLM backend: its module builds
the client and says how many texts one request may carry. The name and the
vector width make the model hash, so switching model or provider re-embeds.

Where requests go and with which key is read from the user's config file and the
``VAULTCTX_AGENT_*`` environment only, never from a vault's own file: an engine sends every note
to its endpoint. The engine's provider need not be the agent's backend: ``[agent]``'s address and
key are reused when they are the same provider, and ``[embedding]`` sets them for the engine alone.

``embed`` is synchronous, yet is called both from plain code (the indexer) and from inside a
running event loop (the agent's turn searches the vault), so the async clients run on an event
loop of the engine's own, in a daemon thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vaultctx.agent.failures import BackendFailure, describe_failure
from vaultctx.agent.llm_backends.registry import get_backend
from vaultctx.agent.secrets import require_secret
from vaultctx.agent.settings import (
    AgentSettings,
    check_base_url,
    load_agent_settings,
    refuse_unknown_key,
    user_config_file,
)
from vaultctx.config import ConfigError, read_toml
from vaultctx.embed.base import Vectors, model_hash
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.embeddings import EmbeddingModel

    from vaultctx.agent.llm_backends.base import ConnectionSettings

# Each text is cut to this many characters before it is sent. Chunks are far shorter
# (chunk_max_chars, 2000 by default); the cap bounds what one odd input (a query, a raised
# chunk size) can cost, and keeps a text within every provider's own limit in most languages.
MAX_INPUT_CHARS = 20_000
# Characters per request, a stand-in for tokens: OpenAI refuses more than 300,000 tokens in one
# request, and even dense scripts rarely take more than 1.5 tokens a character.
BATCH_CHARS = 200_000
# Embedded once to learn the model's vector width (part of the model hash).
PROBE_TEXT = "vaultctx"
EMBEDDING_TABLE = "embedding"
CONNECTION_KEYS = ("base_url", "api_key_secret", "region", "profile", "timeout")


def embedding_settings(
    provider: str, model: str, *, env: Any = None, user_config: Path | None = None
) -> AgentSettings:
    """Where ``provider``'s engine sends texts and with which key: ``[agent]`` (and
    ``VAULTCTX_AGENT_*``) when it names the same provider, then ``[embedding]`` on top; both from
    the user's config file only."""
    trusted = user_config or user_config_file()
    agent = load_agent_settings(None, env=env, user_config=trusted)
    if agent.backend == provider:
        settings = replace(agent, model=model)
    else:  # another backend's address and key are no use here
        settings = AgentSettings(backend=provider, model=model, timeout=agent.timeout)
    return replace(settings, **_embedding_table(trusted))


def _embedding_table(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    table = read_toml(path).get(EMBEDDING_TABLE, {})
    if not isinstance(table, dict):
        raise ConfigError(
            f"{path}: '{EMBEDDING_TABLE}' must be a table",
            "write it as [embedding] on its own line",
        )
    checked: dict[str, Any] = {}
    for key, value in table.items():
        refuse_unknown_key(key, CONNECTION_KEYS, f"{path}: unknown [{EMBEDDING_TABLE}] setting")
        if key == "timeout":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(
                    f"{path}: [embedding] timeout must be a number of seconds, got {value!r}",
                    "write timeout = 120",
                )
            if not 1 <= value <= 3600:
                raise ConfigError(
                    f"{path}: [embedding] timeout must be between 1 and 3600, got {value}",
                    "set timeout to a value in that range",
                )
            checked[key] = float(value)
        elif not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f"{path}: [embedding] {key} must be text, got {value!r}", f'write {key} = "..."'
            )
        else:
            checked[key] = check_base_url(value, str(path)) if key == "base_url" else value.strip()
    return checked


class RemoteEmbedder:
    """An embedding model behind a provider's API, as an ``Embedder``.

    The client is built on first use (so ``vaultctx index --fast`` needs no key); the vector width
    is learnt from the first texts embedded, or from a probe text when it is asked for first.
    """

    def __init__(self, settings: AgentSettings) -> None:
        if not settings.model:
            raise ConfigError(
                f"the {settings.backend} embedding engine has no model",
                "write it as provider:model, e.g. openai:text-embedding-3-small",
            )
        self.settings = settings
        self.provider = settings.backend
        self.model = settings.model
        self._dimension: int | None = None
        self._lock = threading.Lock()
        self._embedding_model: EmbeddingModel | None = None
        self._endpoint = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop_loop: weakref.finalize[Any, Any] | None = None

    # A worker process (index/parallel.py) gets the settings and the width, never the key or
    # the event loop: it builds its own client.
    def __getstate__(self) -> dict[str, Any]:
        return {"settings": self.settings, "dimension": self._dimension}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["settings"])  # type: ignore[misc]
        self._dimension = state["dimension"]

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed([PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    @property
    def model_hash(self) -> str:
        return model_hash(self.name, self.dimension)

    def embed(self, texts: list[str]) -> Vectors:
        """Each text cut to ``MAX_INPUT_CHARS``, sent in batches the provider accepts; rows
        L2-normalised float32."""
        # An empty input is refused by OpenAI and Gemini; one space embeds as "nothing".
        cut = [text[:MAX_INPUT_CHARS] or " " for text in texts]
        rows: list[Sequence[float]] = []
        most_texts = get_backend(self.provider).embed_batch_texts
        for batch in batches(cut, most_texts, BATCH_CHARS):
            rows.extend(self._embed_batch(batch))
        if not rows:
            return np.zeros((0, self.dimension), dtype=np.float32)
        widths = sorted({len(row) for row in rows} | {self._dimension or len(rows[0])})
        if len(widths) != 1:
            raise self._failure_in(
                f"sent vectors of {' and '.join(map(str, widths))} dimensions",
                "check that base_url points at the intended server and model",
            )
        vectors = np.asarray(rows, dtype=np.float32)
        self._dimension = vectors.shape[1]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms == 0.0, 1.0, norms)).astype(np.float32, copy=False)

    def close(self) -> None:
        """Stop the engine's event loop (also done when the engine is garbage-collected)."""
        with self._lock:
            stop_loop, thread = self._stop_loop, self._thread
            self._loop, self._thread, self._stop_loop = None, None, None
            self._embedding_model = None
        if stop_loop is not None and thread is not None:
            stop_loop()
            thread.join(timeout=30)

    def _embed_batch(self, texts: list[str]) -> Sequence[Sequence[float]]:
        model, loop = self._ready()
        future = asyncio.run_coroutine_threadsafe(
            model.embed(texts, input_type="document", settings={"truncate": True}), loop
        )
        # The client's own timeout applies per request; this is the backstop for a whole call.
        deadline = 2 * self.settings.timeout + 30
        try:
            result = future.result(deadline)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise self._failure_in(
                f"did not answer within {deadline:.0f} s",
                "try again, or raise timeout under [embedding] in your vaultctx.toml",
            ) from None
        except Exception as exc:
            failure = self._failure(exc)
            if failure is None:
                raise  # not a provider's or a client's failure: a bug, and reported as one
            raise failure from exc
        if len(result.embeddings) != len(texts):
            raise self._failure_in(
                f"sent {len(result.embeddings)} vectors for {len(texts)} texts",
                "try again; if it persists, check that base_url points at the right kind of server",
            )
        return result.embeddings

    def _ready(self) -> tuple[EmbeddingModel, asyncio.AbstractEventLoop]:
        with self._lock:
            if self._embedding_model is None:
                try:
                    # Built by the provider's own module, with explicit credentials only.
                    backend = get_backend(self.provider)
                    built = backend.build_embedding_model(self.settings)
                    self._embedding_model, self._endpoint = built
                except VaultctxError as exc:
                    raise BackendFailure(
                        f"embedding engine {self.name}: {exc.message}", exc.suggestion
                    ) from exc
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=_run_loop, args=(self._loop,), name=f"embed {self.name}", daemon=True
                )
                self._thread.start()
                self._stop_loop = weakref.finalize(self, _stop, self._loop)
            return self._embedding_model, self._loop

    def _failure(self, exc: BaseException) -> BackendFailure | None:
        """The provider's failure as one line naming the fix; None for anything else."""
        from pydantic_ai.exceptions import AgentRunError, ModelContextWindowExceededError

        if isinstance(exc, ModelContextWindowExceededError):
            return self._failure_in(
                "refused a text as too long for the model",
                "lower chunk_max_chars in vaultctx.toml (texts are cut at "
                f"{MAX_INPUT_CHARS:,} characters, which dense scripts can exceed in tokens)",
            )
        if not isinstance(exc, AgentRunError) and not _is_client_error(exc):
            return None
        failure = describe_failure(
            exc,
            backend=self.provider,
            model=self.model,
            endpoint=self._endpoint,
            secret=self.settings.api_key_secret,
        )
        message = f"embedding engine {self.name}: {failure.message}"
        return BackendFailure(message, failure.suggestion)

    def _failure_in(self, problem: str, fix: str) -> BackendFailure:
        where = f" at {self._endpoint}" if self._endpoint else ""
        return BackendFailure(f"embedding engine {self.name}{where} {problem}", fix)


def _stop(loop: asyncio.AbstractEventLoop) -> None:
    with contextlib.suppress(RuntimeError):  # already closed
        loop.call_soon_threadsafe(loop.stop)


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.close()


def _is_client_error(exc: BaseException) -> bool:
    """botocore's own failures (an expired SSO token, say) arrive unwrapped."""
    try:
        from botocore.exceptions import BotoCoreError  # type: ignore[import-untyped]
    except ImportError:
        return False
    return isinstance(exc, BotoCoreError)


def batches(texts: list[str], most_texts: int, most_chars: int) -> Iterator[list[str]]:
    """Consecutive runs of ``texts`` of at most ``most_texts`` texts and ``most_chars``
    characters (a longer text goes alone)."""
    batch: list[str] = []
    size = 0
    for text in texts:
        if batch and (len(batch) == most_texts or size + len(text) > most_chars):
            yield batch
            batch, size = [], 0
        batch.append(text)
        size += len(text)
    if batch:
        yield batch


def embedding_key(settings: ConnectionSettings) -> str:
    """The key an engine's provider needs, or an error naming where to set it."""
    if not settings.api_key_secret:
        raise ConfigError(
            f"the {settings.backend} embedding engine needs an API key, and no api_key_secret is "
            "set",
            f"run `vaultctx secret set {settings.backend}` and add api_key_secret = "
            f'"{settings.backend}" under [{EMBEDDING_TABLE}] in {user_config_file()}',
        )
    return require_secret(settings.api_key_secret, settings.backend)


def remote_engine(provider: str, model: str) -> RemoteEmbedder:
    """The engine ``provider:model``, configured from the user's own settings."""
    missing = [name for name in get_backend(provider).packages if not _importable(name)]
    if missing:
        raise ModuleNotFoundError(f"no module named {missing[0]!r}", name=missing[0])
    return RemoteEmbedder(embedding_settings(provider, model))


def _importable(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or blocked in sys.modules
        return False
