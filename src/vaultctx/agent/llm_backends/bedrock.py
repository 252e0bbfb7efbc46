"""Amazon Bedrock's Converse API through boto3, authenticated by a named AWS profile or a named
Bedrock API key and by nothing else: neither ``AWS_*`` variables, nor the default profile, nor an
instance role."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vaultctx.agent.llm_backends.base import (
    IMAGE_TYPES,
    OFFICE_TYPES,
    PDF_TYPES,
    AttachedFile,
    BackendError,
    ConnectionSettings,
    LLMBackend,
    ModelInfo,
)
from vaultctx.agent.llm_backends.openai import openai_efforts
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.embeddings import EmbeddingModel
    from pydantic_ai.models import Model

    from vaultctx.embed.base import Embedder

DEFAULT_REGION = "us-east-1"
# botocore's credential providers that read the environment or the machine, not the profile.
AMBIENT_METHODS = ("env", "container-role", "iam-role", "boto-config", "ec2-credentials-file")
# Credential sources a named AWS profile may resolve to; never the environment or a machine role.
PROFILE_METHODS = frozenset(
    {
        "shared-credentials-file",
        "config-file",
        "sso",
        "custom-process",
        "assume-role",
        "assume-role-with-web-identity",
        "login",
    }
)
# Attachment limits from the Converse API reference, read as decimal megabytes (the smaller
# reading), so a file we accept is never refused by AWS.
IMAGE_BYTES = 3_750_000
DOCUMENT_BYTES = 4_500_000
MAX_IMAGES = 20
MAX_DOCUMENTS = 5

_CLAUDE = ("low", "medium", "high", "xhigh", "max")
# Claude's Bedrock ids put the family before the version: anthropic.claude-opus-4-6-v1,
# us.anthropic.claude-sonnet-5-…; the older claude-3-5-sonnet-… naming never matches.
_CLAUDE_ID = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)")
_CLAUDE_MIN_MAJOR = {"opus": 4, "sonnet": 5, "haiku": 5}
# Prompt caching (the seed's rule): Claude opus, sonnet and haiku from version 4, and Nova lite,
# pro and premier, and only for a stable prefix of at least 4,096 characters, below which a
# cache write costs more than it saves (Claude's smallest cacheable prefix is 1,024 tokens).
_CACHED_NOVA = re.compile(r"nova-(lite|pro|premier)")
CACHE_MIN_MAJOR = 4
CACHE_MIN_PREFIX_CHARS = 4_096


class BedrockBackend(LLMBackend):
    name = "bedrock"
    packages = ("pydantic_ai", "boto3")
    # Titan takes one text per request and pydantic-ai sends 5 at once.
    embed_batch_texts = 5
    attachment_types = IMAGE_TYPES | PDF_TYPES | OFFICE_TYPES

    def build_model(self, settings: ConnectionSettings, model_name: str) -> tuple[Model, str]:
        from pydantic_ai.models.bedrock import BedrockConverseModel
        from pydantic_ai.providers.bedrock import BedrockProvider

        client = bedrock_client("bedrock-runtime", settings, settings.region or DEFAULT_REGION)
        provider = BedrockProvider(bedrock_client=client)
        return BedrockConverseModel(model_name, provider=provider), str(client.meta.endpoint_url)

    def build_embedding_model(self, settings: ConnectionSettings) -> tuple[EmbeddingModel, str]:
        from pydantic_ai.embeddings.bedrock import BedrockEmbeddingModel
        from pydantic_ai.providers.bedrock import BedrockProvider

        from vaultctx.agent.remote_embed import EMBEDDING_TABLE
        from vaultctx.agent.settings import user_config_file

        if not (settings.api_key_secret or settings.profile):
            raise BackendError(
                "the bedrock embedding engine needs an AWS profile or a Bedrock API key",
                f'set profile = "NAME" or api_key_secret = "NAME" under [{EMBEDDING_TABLE}] in '
                f"{user_config_file()}",
            )
        client = bedrock_client("bedrock-runtime", settings, settings.region or DEFAULT_REGION)
        provider = BedrockProvider(bedrock_client=client)
        model = BedrockEmbeddingModel(settings.model or "", provider=provider)
        return model, str(client.meta.endpoint_url)

    async def list_models(self, settings: ConnectionSettings) -> list[ModelInfo]:
        return await asyncio.to_thread(_list_models, settings)

    def client_errors(self) -> tuple[type[BaseException], ...]:
        from botocore.exceptions import BotoCoreError, ClientError

        return (BotoCoreError, ClientError, *super().client_errors())

    def allowed_efforts(self, model: str) -> tuple[str, ...]:
        """Claude from the versions that take ``output_config.effort``, and GPT ids like
        OpenAI's."""
        if match := _CLAUDE_ID.search(model):
            return _CLAUDE if int(match[2]) >= _CLAUDE_MIN_MAJOR[match[1]] else ()
        # The vendor and region prefixes end in a dot: openai.gpt-5.6-sol, us.openai.gpt-…
        if match := re.search(r"(?:^|\.)(gpt-.*)", model):
            return openai_efforts(match[1])
        return ()

    def effort_settings(self, model: str, level: str) -> dict[str, Any]:
        if _CLAUDE_ID.search(model):
            fields: dict[str, Any] = {"output_config": {"effort": level}}
        else:
            fields = {"reasoning": {"effort": level}}
        return {
            "bedrock_additional_model_requests_fields": fields
        }  # -> additionalModelRequestFields

    def prompt_cache_settings(self, model: str, prefix_chars: int) -> dict[str, Any]:
        """A cachePoint after the stable prefix, before the clock (pydantic-ai puts it after the
        literal instructions), for the models that take one."""
        if prefix_chars < CACHE_MIN_PREFIX_CHARS:
            return {}
        claude = _CLAUDE_ID.search(model)
        if (claude and int(claude[2]) >= CACHE_MIN_MAJOR) or _CACHED_NOVA.search(model):
            return {"bedrock_cache_instructions": True}  # -> system: [prefix, cachePoint, clock]
        return {}

    def check_attachments(self, attachments: Sequence[AttachedFile]) -> None:
        images = [attachment for attachment in attachments if attachment.kind == "image"]
        documents = [attachment for attachment in attachments if attachment.kind == "document"]
        _check_count(images, MAX_IMAGES, "images")
        _check_count(documents, MAX_DOCUMENTS, "documents")
        for group, limit, what in (
            (images, IMAGE_BYTES, "an image"),
            (documents, DOCUMENT_BYTES, "a document"),
        ):
            for attachment in group:
                if attachment.size > limit:
                    from vaultctx.agent.attachments import too_large

                    raise too_large(attachment.name, attachment.size, limit, f"{what} on bedrock")


BACKEND = BedrockBackend()


def embedding_engine(model: str) -> Embedder:
    """The ``vaultctx.engines`` entry point of this backend's embedding models (pyproject.toml)."""
    from vaultctx.agent.remote_embed import remote_engine

    return remote_engine(BACKEND.name, model)


def _check_count(attachments: Sequence[AttachedFile], limit: int, what: str) -> None:
    if len(attachments) > limit:
        raise VaultctxError(
            f"{len(attachments)} {what} attached; bedrock takes at most {limit} in one message",
            f"attach at most {limit} {what}, or ask about the rest in a second question",
        )


def _list_models(settings: ConnectionSettings) -> list[ModelInfo]:
    client: Any = bedrock_client("bedrock", settings, settings.region or DEFAULT_REGION)
    found = []
    for modality, kind in (("TEXT", "chat"), ("EMBEDDING", "embedding")):
        response = client.list_foundation_models(byOutputModality=modality)
        found += [ModelInfo(m["modelId"], kind) for m in response.get("modelSummaries", [])]
    profiles = client.list_inference_profiles()
    found += [
        ModelInfo(p["inferenceProfileId"], "chat")
        for p in profiles.get("inferenceProfileSummaries", [])
    ]
    return found


def bedrock_client(service: str, settings: ConnectionSettings, region: str) -> Any:
    """A boto3 client authenticated by the named profile or the named Bedrock API key, and by
    nothing else: neither ``AWS_*`` variables, nor the default profile, nor an instance role."""
    from vaultctx.agent.secrets import require_secret

    if settings.api_key_secret and settings.profile:
        raise BackendError(
            "both a Bedrock API key (api_key_secret) and an AWS profile are set",
            "keep one of them under [agent] in vaultctx.toml",
        )
    if settings.api_key_secret:
        token = require_secret(settings.api_key_secret, BACKEND.name)
        return _bearer_client(service, token, region, settings)
    if settings.profile:
        return _profile_client(service, settings.profile, region, settings)
    raise BackendError(
        "the bedrock backend needs an AWS profile or a Bedrock API key",
        'set profile = "NAME" (a profile in ~/.aws/config) or run `vaultctx secret set bedrock` '
        'and set api_key_secret = "bedrock" under [agent]',
    )


def _client_config(signature: str, settings: ConnectionSettings) -> Any:
    from botocore.config import Config

    return Config(
        signature_version=signature,
        retries={"max_attempts": 1, "mode": "standard"},
        read_timeout=settings.timeout,
        connect_timeout=min(settings.timeout, 10.0),
    )


def _bearer_client(service: str, token: str, region: str, settings: ConnectionSettings) -> Any:
    import boto3
    from botocore.session import Session
    from botocore.tokens import FrozenAuthToken

    class KeyOnlySession(Session):  # type: ignore[misc]
        """Signs with the Bedrock API key and has no other credentials to fall back on."""

        def get_auth_token(self, **_: Any) -> FrozenAuthToken:
            return FrozenAuthToken(token)

        def get_credentials(self) -> None:
            return None

    session = boto3.Session(botocore_session=KeyOnlySession(), region_name=region)
    endpoint = settings.base_url if settings.base_url else None
    return session.client(service, endpoint_url=endpoint, config=_client_config("bearer", settings))


def _profile_client(service: str, profile: str, region: str, settings: ConnectionSettings) -> Any:
    import boto3
    from botocore.exceptions import BotoCoreError, ProfileNotFound
    from botocore.session import Session

    core = Session(profile=profile)
    try:
        resolver = core.get_component("credential_provider")
        for method in AMBIENT_METHODS:  # never asked, so never a metadata-service timeout
            resolver.remove(method)
        credentials = core.get_credentials()
    except ProfileNotFound:
        raise BackendError(
            f"no AWS profile named {profile!r}",
            "check the [profile NAME] sections of ~/.aws/config (or run `aws configure --profile "
            f"{profile}`)",
        ) from None
    except BotoCoreError as exc:
        raise BackendError(
            f"AWS profile {profile!r} cannot be used: {exc}", "fix the profile in ~/.aws/config"
        ) from None
    if credentials is None or credentials.method not in PROFILE_METHODS:
        raise BackendError(
            f"AWS profile {profile!r} has no credentials of its own",
            "add keys, SSO or credential_process to that profile; vaultctx does not use "
            "environment variables or instance roles",
        )
    frozen = credentials.get_frozen_credentials()
    endpoint = settings.base_url if settings.base_url else None
    return boto3.Session(
        aws_access_key_id=frozen.access_key,
        aws_secret_access_key=frozen.secret_key,
        aws_session_token=frozen.token,
        region_name=region,
    ).client(service, endpoint_url=endpoint, config=_client_config("v4", settings))
