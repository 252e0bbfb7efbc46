"""``vaultctx ui`` serves CLI processes too: it records itself beside the index while it runs,
answers forwarded commands with their in-process output, and opens the endpoint to the bearer
token only (the browser's cookie does not)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.cli_server.conftest import comparable, vaultctx
from tests.ui.ui_process import running_ui, stop_ui
from vaultctx.loopback import server_link


def test_the_ui_serves_forwarded_commands_and_removes_its_record(tmp_path: Path) -> None:
    with running_ui(tmp_path) as ui:
        record = server_link.find_server(ui.db, {})
        assert record is not None and record.token == ui.token
        assert record.url == ui.base and record.pid == ui.process.pid
        for command in (["search", "billing deploy", "--json"], ["links", "Billing service"]):
            args = [*command, "--vault", str(ui.vault), "--db", str(ui.db)]
            forwarded = vaultctx(args, XDG_DATA_HOME=str(ui.data_home))
            local = vaultctx(args, in_process=True, XDG_DATA_HOME=str(ui.data_home))
            assert forwarded.forwarded, forwarded.stderr
            assert forwarded.code == local.code == 0
            assert comparable(forwarded.stdout) == comparable(local.stdout)
        body = json.dumps({"protocol": 1, "argv": ["status"]})
        json_type = {"Content-Type": "application/json"}
        # The browser's cookie is no bearer token.
        status, _, _ = ui.request("/vaultctx/cli", method="POST", headers=json_type, body=body)
        assert status == 401
        bearer = {**json_type, "Authorization": f"Bearer {ui.token}"}
        status, _, text = ui.request(
            "/vaultctx/cli", method="POST", headers=bearer, body=body, cookie=False
        )
        assert status == 200 and "fallback" in json.loads(text)  # an incomplete request
        # The hook finds the UI through the same record: the UI answers it too.
        hook = json.dumps({"text": "How do we roll back the billing deploy?"})
        status, _, text = ui.request(
            "/vaultctx/hook/context", method="POST", headers=bearer, body=hook, cookie=False
        )
        assert status == 200 and json.loads(text)["excerpts"], text
        status, _, _ = ui.request("/vaultctx/hook/context", method="POST", headers=json_type)
        assert status == 401
        stop_ui(ui)
        deadline = time.monotonic() + 30
        while server_link.state_path(ui.db).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not server_link.state_path(ui.db).exists()
