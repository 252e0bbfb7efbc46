"""What an LLM backend is: everything vaultctx treats differently from one provider to the next.

A backend is one object, a subclass of ``LLMBackend`` in a module of its own: how its chat and
embedding models are built (always with explicit credentials, never the ambient ones), how its
models are listed, which reasoning-effort levels a model takes and the request field that carries
them, which attachments it reads, how many texts one embedding request may carry and what to do
when it cannot be reached. The modules that used to compare backend names (settings, effort,
attachments, failures, model lists, remote embeddings) ask the backend instead, through
``registry.get_backend``, so a fifth backend is one module and one line of registration
(docs/agent.md, "Adding a backend").

Kept free of client libraries: a backend module imports its client only inside the method that
builds one, so settings can be checked without loading any of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.embeddings import EmbeddingModel
    from pydantic_ai.models import Model

# Attachments sent as files, by media type: every backend here reads the images; PDFs and
# office documents only some (agent/attachments.py checks before anything is sent).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
PDF_TYPES = frozenset({"application/pdf"})
OFFICE_TYPES = frozenset(
    {
        "application/msword",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.ms-excel",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    }
)
NETWORK_FIX = "check your network and base_url under [agent] in vaultctx.toml"


class BackendError(VaultctxError):
    """A backend cannot be set up (a missing model, key, profile or package)."""


class ConnectionSettings(Protocol):
    """What a backend reads of ``AgentSettings``: where to send, with which key, how long to wait.

    A protocol, so this package never imports the settings module that asks it for names.
    """

    @property
    def backend(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def base_url(self) -> str | None: ...
    @property
    def region(self) -> str | None: ...
    @property
    def profile(self) -> str | None: ...
    @property
    def api_key_secret(self) -> str | None: ...
    @property
    def timeout(self) -> float: ...


class AttachedFile(Protocol):
    """An attachment as a backend's own limits see it (agent/attachments.py's ``Attachment``)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def size(self) -> int: ...


@dataclass(frozen=True)
class WebSearch:
    """A backend's own web search: the pydantic-ai builtin tools that turn it on."""

    builtin_tools: tuple[Any, ...]
    how: str  # for messages: "Google Search grounding"


@dataclass(frozen=True)
class ModelInfo:
    """One model a backend reports, for ``vaultctx models``."""

    name: str
    kind: str  # "chat" or "embedding"

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind}


def kind_by_name(name: str) -> str:
    """A model's kind when the backend does not say: embedding models carry "embed" in their id."""
    return "embedding" if "embed" in name.lower() else "chat"


class LLMBackend:
    """One LLM backend. Subclasses set the attributes and override the methods that differ;
    the defaults describe a backend that takes images, no reasoning effort and no extra limits.
    """

    name: str = ""
    # The address requests go to when no base_url is set (None: the client library's own).
    default_base_url: str | None = None
    # Importable packages its clients need; a remote embedding engine checks them first.
    packages: tuple[str, ...] = ("pydantic_ai",)
    # Texts in one embedding request (remote_embed batches by this and by characters).
    embed_batch_texts: int = 64
    # Media types of the files it reads (text files are inlined and go to every backend).
    attachment_types: frozenset[str] = IMAGE_TYPES
    # What to do when the backend cannot be reached.
    unreachable_fix: str = NETWORK_FIX

    def endpoint(self, settings: ConnectionSettings) -> str | None:
        """The base URL requests go to (None: the client library's own)."""
        return settings.base_url or self.default_base_url

    def build_model(self, settings: ConnectionSettings, model_name: str) -> tuple[Model, str]:
        """pydantic-ai's chat model, on a client built with explicit credentials, and the
        address it talks to."""
        raise NotImplementedError

    def build_embedding_model(self, settings: ConnectionSettings) -> tuple[EmbeddingModel, str]:
        """pydantic-ai's embedding model for ``settings.model``, and the address it talks to."""
        raise BackendError(
            f"the {self.name} backend offers no embedding models",
            "choose another provider for engine or quality_engine in vaultctx.toml",
        )

    async def list_models(self, settings: ConnectionSettings) -> list[ModelInfo]:
        """The chat and embedding models this key, region or server can use."""
        raise NotImplementedError

    def client_errors(self) -> tuple[type[BaseException], ...]:
        """The client libraries' own error bases: anything else is a bug and stays one."""
        import httpx

        return (httpx.HTTPError,)

    def allowed_efforts(self, model: str) -> tuple[str, ...]:
        """The effort levels ``model`` takes, weakest first; empty when it takes none."""
        return ()

    def effort_settings(self, model: str, level: str) -> dict[str, Any]:
        """The pydantic-ai model settings that send ``level`` in this backend's own field."""
        return {}

    def prompt_cache_settings(self, model: str, prefix_chars: int) -> dict[str, Any]:
        """The pydantic-ai model settings that mark the instructions' stable prefix (of
        ``prefix_chars`` characters, before the clock) for the provider's prompt cache; empty
        where the provider caches on its own or not at all."""
        return {}

    def web_search(self, model: str) -> WebSearch | None:
        """How this backend searches the web itself when the user turns web search on (None:
        it cannot; a connected MCP fetch or search tool may still do it, agent/web_search.py)."""
        return None

    def check_attachments(self, attachments: Sequence[AttachedFile]) -> None:
        """Refuse, before anything is sent, what passes the format check but not the backend's
        own limits (sizes, counts)."""
