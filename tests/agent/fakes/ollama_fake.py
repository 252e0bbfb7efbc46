"""Ollama: the OpenAI-compatible ``/v1`` API and the native ``/api/tags``, ``show``, ``embed``.

pydantic-ai's ``OllamaProvider`` speaks only the ``/v1`` dialect, so chat reuses the OpenAI fake;
the native endpoints are what a setup step uses to list models, tell a chat model (``tools``
capability) from an embedding one, and embed without the OpenAI client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import (
    Embeddings,
    HttpError,
    RecordedRequest,
    Response,
    fake_vector,
    http_error_body,
    json_body,
)
from .openai_fake import OpenAIFake, _texts


@dataclass(frozen=True)
class OllamaModel:
    """A model the fake has "pulled"; ``capabilities`` as ``/api/show`` reports them."""

    name: str
    capabilities: tuple[str, ...] = ("completion", "tools")
    family: str = "llama"
    parameter_size: str = "3.2B"
    context_length: int = 131072

    @property
    def tag(self) -> str:
        return self.name if ":" in self.name else f"{self.name}:latest"


DEFAULT_MODELS = (
    OllamaModel("llama3.2"),
    OllamaModel(
        "qwen3:8b",
        capabilities=("completion", "tools", "thinking"),
        family="qwen3",
        parameter_size="8.2B",
        context_length=40960,
    ),
    OllamaModel(
        "nomic-embed-text",
        capabilities=("embedding",),
        family="nomic-bert",
        parameter_size="137M",
        context_length=2048,
    ),
)


class OllamaFake(OpenAIFake):
    """An Ollama daemon: ``base_url + '/v1'`` for pydantic-ai, ``base_url + '/api/...'`` native.

    Real Ollama ignores the ``Authorization`` header locally; it is recorded all the same (the
    provider sends a placeholder key when none is set).
    """

    name: ClassVar[str] = "ollama"

    def __init__(self, *, pulled: tuple[OllamaModel, ...] = DEFAULT_MODELS) -> None:
        super().__init__(models=tuple(model.tag for model in pulled))
        self.pulled = pulled

    def _find(self, name: str) -> OllamaModel | None:
        wanted = name if ":" in name else f"{name}:latest"
        return next((model for model in self.pulled if model.tag == wanted), None)

    @staticmethod
    def native_error(status: int, message: str) -> HttpError:
        """Ollama's native API errors are a bare string: ``{"error": "..."}``."""
        return HttpError(status, {"error": message})

    def handle(self, request: RecordedRequest) -> Response:
        body: dict[str, Any] = request.json if isinstance(request.json, dict) else {}
        if request.method == "GET" and request.path == "/api/tags":
            return json_body(200, {"models": [self._tag(model) for model in self.pulled]})
        if request.method == "POST" and request.path == "/api/show":
            name = str(body.get("model") or body.get("name") or "")
            model = self._find(name)
            if model is None:
                return http_error_body(self.native_error(404, f"model '{name}' not found"))
            return json_body(200, self._show(model))
        if request.method == "POST" and request.path == "/api/embed":
            return self._embed(body)
        if request.method in ("GET", "HEAD") and request.path == "/":
            return json_body(200, "Ollama is running")
        return super().handle(request)

    def _tag(self, model: OllamaModel) -> dict[str, Any]:
        return {
            "name": model.tag,
            "model": model.tag,
            "modified_at": "2025-10-01T12:00:00.000000000Z",
            "size": 2_019_393_189,
            "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
            "details": self._details(model),
        }

    @staticmethod
    def _details(model: OllamaModel) -> dict[str, Any]:
        return {
            "parent_model": "",
            "format": "gguf",
            "family": model.family,
            "families": [model.family],
            "parameter_size": model.parameter_size,
            "quantization_level": "Q4_K_M",
        }

    def _show(self, model: OllamaModel) -> dict[str, Any]:
        return {
            "modelfile": f"FROM {model.tag}\n",
            "parameters": 'stop "<|eot_id|>"',
            "template": "{{ .Prompt }}",
            "details": self._details(model),
            "model_info": {
                "general.architecture": model.family,
                "general.parameter_count": 3_212_749_888,
                f"{model.family}.context_length": model.context_length,
                f"{model.family}.embedding_length": 3072,
            },
            "capabilities": list(model.capabilities),
            "modified_at": "2025-10-01T12:00:00.000000000Z",
        }

    def _embed(self, body: dict[str, Any]) -> Response:
        name = str(body.get("model", ""))
        if self._find(name) is None:
            return http_error_body(
                self.native_error(404, f'model "{name}" not found, try pulling it first')
            )
        reply = self.next_reply("embed")
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        texts = _texts(body.get("input"))
        vectors = (
            [list(v) for v in reply.vectors]
            if isinstance(reply, Embeddings)
            else [fake_vector(text, body.get("dimensions") or self.embedding_dim) for text in texts]
        )
        return json_body(
            200,
            {
                "model": name,
                "embeddings": vectors,
                "total_duration": 14_143_917,
                "load_duration": 1_019_500,
                "prompt_eval_count": sum(len(text.split()) for text in texts),
            },
        )
