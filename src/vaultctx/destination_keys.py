"""Settings that decide where note text, or any request, is sent: only the user may choose them.

A vault's own ``vaultctx.toml`` travels with the vault (a synced folder, a cloned repository, a
colleague's notes), so whoever wrote it is not necessarily the person running vaultctx. Were it
trusted with ``[agent] backend`` and ``base_url``, opening the vault would send every question, the
passages retrieved for it and ``para``'s note previews to a server of its author's choosing. So a
key below, found in a vault's own file, is left out before the file is read, and the user is told
once per process which key, in which file, and where it belongs instead: their own settings file
(the user config folder's ``vaultctx.toml``), the ``VAULTCTX_AGENT_*`` environment or a flag.

Keys that only change what happens on this machine (chunk sizes, ignore patterns, folders inside
the vault, how many passages, timeouts) stay the vault's to set. docs/security.md, "Where your
note text can go", lists every destination these keys control.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# The embedding engines that run on this machine; any other engine (``provider:model``, or one a
# plug-in registers) may send every note somewhere, so only the user's own file may name it.
LOCAL_ENGINES = ("static", "onnx", "", "auto", "e5-multilingual")
# Top-level settings whose value decides where notes go unless it names a local engine.
ENGINE_KEYS = ("engine", "quality_engine", "multilingual_engine")
# Per table: the keys a vault's own file may not set, each with why it is a destination.
DESTINATION_KEYS: dict[str, dict[str, str]] = {
    "agent": {
        "backend": "the provider that receives your questions and notes",
        "base_url": "the server that receives your questions and notes",
        "model": "the model, which on a routing server or Bedrock also picks who receives your "
        "questions and notes",
        "region": "the Bedrock region your questions and notes are sent to",
        "profile": "the AWS account your questions and notes are sent to",
        "api_key_secret": "the account (and key) your questions and notes are sent with",
        "mcp_config": "the programs vaultctx starts and hands tool calls to",
    },
    # Every key of [embedding] is the address or account a remote engine sends notes to.
    "embedding": {},
    "signals": {
        "feeds": "the servers vaultctx fetches from, on your behalf and from your address",
        "allow_hosts": "the private addresses on your network vaultctx may fetch from",
    },
}
# Where each key can be given instead, besides the user's own file.
_ALSO = {
    ("agent", "backend"): "pass --backend",
    ("agent", "base_url"): "pass --base-url",
    ("agent", "model"): "pass --model",
    ("agent", "api_key_secret"): "pass --api-key-secret",
    ("signals", "allow_hosts"): "pass --allow-host",
}
_shown: set[tuple[str, str]] = set()


def is_destination(table: str, key: str, value: object) -> bool:
    """Whether ``key`` of ``[table]`` (``""``: the top level) decides where text is sent."""
    if table == "":
        return key in ENGINE_KEYS and isinstance(value, str) and value.strip() not in LOCAL_ENGINES
    keys = DESTINATION_KEYS.get(table)
    return keys is not None and (not keys or key in keys)


def without_destinations(
    table: str, values: Mapping[str, Any], vault_file: Path, user_file: Path
) -> dict[str, Any]:
    """``values``, read from the vault's own file, less every destination key; each one left
    out is reported once (``notify_ignored``)."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        if is_destination(table, key, value):
            notify_ignored(table, key, value, vault_file, user_file)
        else:
            kept[key] = value
    return kept


def notify_ignored(table: str, key: str, value: object, vault_file: Path, user_file: Path) -> None:
    """``notice: <file>: [table] key is not used …`` on stderr, once per file and key."""
    if (str(vault_file), f"{table}.{key}") in _shown:
        return
    _shown.add((str(vault_file), f"{table}.{key}"))
    print(f"notice: {ignored_message(table, key, value, vault_file, user_file)}", file=sys.stderr)


def ignored_message(table: str, key: str, value: object, vault_file: Path, user_file: Path) -> str:
    """The notice's text: the key, the file, why it is not used, and where to put it."""
    if table == "":
        setting = f"{key} = {value!r}"
        why = "it names a remote embedding engine (not a bundled one), which sends every note away"
    elif table == "embedding":
        setting = f"[embedding] {key}"
        why = "[embedding] sets where a remote embedding engine sends every note, with which key"
    else:
        setting = f"[{table}] {key}"
        why = f"it chooses {DESTINATION_KEYS[table][key]}"
    places = [f"put it in your own settings file {user_file}"]
    if table == "agent":
        places.append(f"set VAULTCTX_AGENT_{key.upper()}")
    if (table, key) in _ALSO:
        places.append(_ALSO[(table, key)])
    instead = places[0] if len(places) == 1 else f"{', '.join(places[:-1])} or {places[-1]}"
    return (
        f"{vault_file}: {setting} is not used: {why}, and a vault's own vaultctx.toml may not "
        f"choose where your notes or requests go; {instead}"
    )
