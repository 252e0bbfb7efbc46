"""The Obsidian plugin's routes (`/vaultctx/obsidian/*` on `vaultctx ui`) take the run's bearer
token from a process on this machine, as the CLI's endpoint does: no cookie opens them, and a
browser page cannot call them (any Origin but Obsidian's own is refused, and JSON forces a
preflight nobody answers). Obsidian's requestUrl sends `Origin: app://obsidian.md`, which no web
page can claim."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.ui.ui_process import UiServer, running_ui
from vaultctx.ui.plugin_api import ACTIONS, plugin_question

STATUS = "/vaultctx/obsidian/status"


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    with running_ui(tmp_path_factory.mktemp("plugin-guard")) as server:
        yield server


def call(
    ui: UiServer, path: str, headers: dict[str, str], body: object = None
) -> tuple[int, dict[str, object]]:
    sent = {"Content-Type": "application/json", **headers}
    status, _, text = ui.request(
        path, method="POST", headers=sent, body=json.dumps(body or {}), cookie=False
    )
    return status, json.loads(text) if text.startswith("{") else {}


def bearer(ui: UiServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {ui.token}"}


def test_obsidian_with_the_token_is_answered(ui: UiServer) -> None:
    status, data = call(ui, STATUS, {**bearer(ui), "Origin": "app://obsidian.md"})
    assert status == 200, data
    assert data["indexed"] is True and int(str(data["files"])) > 0
    assert call(ui, STATUS, bearer(ui))[0] == 200  # a process without an Origin


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_every_action_wants_the_token(ui: UiServer, action: str) -> None:
    path = f"/vaultctx/obsidian/{action}"
    assert call(ui, path, {})[0] == 401
    assert call(ui, path, {"Authorization": f"Bearer {ui.token[:-1]}"})[0] == 401
    assert call(ui, path, {"Authorization": f"Bearer {ui.token}x"})[0] == 401


@pytest.mark.parametrize(
    "origin", [lambda ui: ui.base, lambda ui: "http://127.0.0.1:1", lambda ui: "null"]
)
def test_a_browser_page_is_refused_even_with_the_token(ui: UiServer, origin: object) -> None:
    assert callable(origin)
    assert call(ui, STATUS, {**bearer(ui), "Origin": origin(ui)})[0] == 403


def test_the_ui_session_cookie_does_not_open_them(ui: UiServer) -> None:
    sent = {
        "Content-Type": "application/json",
        "Origin": ui.base,
        "Cookie": ui.cookie,
        "X-CSRF-Token": ui.session.csrf if ui.session else "",
    }
    status, _, _ = ui.request(STATUS, method="POST", headers=sent, body="{}", cookie=False)
    assert status == 403


def test_only_json_from_a_local_host_name(ui: UiServer) -> None:
    plain = {**bearer(ui), "Content-Type": "text/plain"}
    assert ui.request(STATUS, method="POST", headers=plain, body="{}", cookie=False)[0] == 415
    foreign = {**bearer(ui), "Content-Type": "application/json", "Host": "evil.example"}
    assert ui.request(STATUS, method="POST", headers=foreign, body="{}", cookie=False)[0] == 403


def test_bad_values_are_refused_with_a_fix(ui: UiServer) -> None:
    status, data = call(ui, "/vaultctx/obsidian/search", bearer(ui), {"query": 5})
    assert status == 400 and "`query` must be text" in str(data["error"])
    status, data = call(ui, "/vaultctx/obsidian/similar", bearer(ui), {"path": "../../etc/passwd"})
    assert status == 400 and data["suggestion"]
    status, data = call(ui, "/vaultctx/obsidian/poll", bearer(ui), {"turn": "nope"})
    assert status == 400 and "no longer known" in str(data["error"])


def test_the_selection_travels_quoted_with_the_question() -> None:
    asked = plugin_question("why?", "A.md", "line one\nline two")
    assert asked == "why?\n\nSelected text in A.md:\n> line one\n> line two"
    assert plugin_question("why?", "A.md", "   ") == "why?"
