"""``vaultctx index`` and ``search`` with a remote pass-2 engine chosen in the user's own config
file, against the OpenAI fake: vectors filled and used, a model switch re-embeds, a refused key
mid-index stops pass 2 with one line and leaves the index searchable."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.agent.fakes import Embeddings, OpenAIFake
from tests.agent.fakes.base import fake_vector
from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx
from tests.conftest import make_vault

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-embed-Zq8ftY3kLm0PwX7vB2nR5sT9"
SMALL = "text-embedding-3-small"


NOTES = {
    f"note{i:02}.md": f"# Note {i}\n\nThe lighthouse keeper logs storm number {i}.\n"
    for i in range(12)
}


def cli_env(tmp_path: Path) -> dict[str, str]:
    """This checkout, a private user config dir, no keyring: the key comes from OPENAI_EMBED."""
    return clean_cli_env(
        tmp_path,
        drop=("OPENAI", "AWS_", "GOOGLE", "GEMINI", "XDG_"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        OPENAI_EMBED=KEY,
    )


def vaultctx(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """In the test process (tests/cli_in_process.py); tests/e2e keeps index and search as real
    processes."""
    return run_vaultctx(args, env=env, cwd=REPO)


def configure(tmp_path: Path, fake: OpenAIFake, model: str) -> None:
    """The user's own config file: the engine, the fake's address and the key's name."""
    folder = tmp_path / "config" / "vaultctx"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vaultctx.toml").write_text(
        f'quality_engine = "openai:{model}"\n\n[embedding]\n'
        f'base_url = "{fake.base_url}/v1"\napi_key_secret = "openai-embed"\n',
        encoding="utf-8",
    )


def test_index_fills_pass_two_remotely_and_search_uses_it(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", dict(list(NOTES.items())[:3]))
    where = ["--vault", str(vault), "--db", str(tmp_path / "index.db")]
    env = cli_env(tmp_path)
    with OpenAIFake(require_key=KEY) as fake:
        configure(tmp_path, fake, SMALL)

        indexed = vaultctx(env, "index", *where, "--json")
        assert indexed.returncode == 0, indexed.stderr
        assert json.loads(indexed.stdout)["chunks"]["quality_embedded"] == 3
        sent = [r.json["input"] for r in fake.requests_to("/embeddings")]
        assert sent[0] == ["vaultctx"] and len(sent) == 2  # the probe, then one batch
        assert sorted(text.splitlines()[-1] for text in sent[1]) == [
            f"The lighthouse keeper logs storm number {i}." for i in range(3)
        ]

        status = json.loads(vaultctx(env, "status", *where, "--json").stdout)
        assert status["quality_model_name"] == f"openai:{SMALL}"
        assert status["quality_vectors"] == status["chunks"] == 3

        fake.clear()
        found = vaultctx(env, "search", "storm 2", *where, "--mode", "vector", "--json")
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["results"]
        assert fake.last("/embeddings").json["input"] == ["storm 2"]

        # The same model again: only the probe, nothing re-embedded.
        fake.clear()
        again = vaultctx(env, "index", *where, "--json")
        assert json.loads(again.stdout)["chunks"]["quality_embedded"] == 0
        assert [r.json["input"] for r in fake.requests_to("/embeddings")] == [["vaultctx"]]

        # Another model: every chunk is embedded again, with a warning.
        configure(tmp_path, fake, "text-embedding-3-large")
        fake.clear()
        switched = vaultctx(env, "index", *where, "--json")
        summary = json.loads(switched.stdout)
        assert summary["chunks"]["quality_embedded"] == 3
        assert "quality model changed: all quality vectors redone" in summary["warnings"]
        assert {r.json["model"] for r in fake.requests_to("/embeddings")} == {
            "text-embedding-3-large"
        }
        assert sum(len(r.json["input"]) for r in fake.requests_to("/embeddings")) == 1 + 3
        status = json.loads(vaultctx(env, "status", *where, "--json").stdout)
        assert status["quality_model_name"] == "openai:text-embedding-3-large"


def test_a_refused_key_mid_index_stops_pass_two_and_leaves_search_working(
    tmp_path: Path,
) -> None:
    vault = make_vault(tmp_path / "vault", NOTES)
    where = ["--vault", str(vault), "--db", str(tmp_path / "index.db")]
    env = cli_env(tmp_path)
    with OpenAIFake() as fake:
        configure(tmp_path, fake, SMALL)
        vector = fake_vector("any", 8)
        # The probe, the first batch of 8 chunks (index/quality_pass.py), then a revoked key.
        fake.queue_embed(Embeddings([vector]), Embeddings([vector] * 8), OpenAIFake.auth_error(KEY))

        indexed = vaultctx(env, "index", *where)

        assert indexed.returncode == 2
        # Progress lines, then the failure on one line of its own, last.
        lines = indexed.stderr.strip().splitlines()
        assert [line for line in lines if line.startswith("error:")] == lines[-1:], indexed.stderr
        assert lines[-1].startswith(f"error: embedding engine openai:{SMALL}: openai at ")
        assert "refused the key (HTTP 401)" in lines[-1]
        assert "vaultctx secret set openai-embed" in lines[-1]
        assert KEY not in indexed.stdout + indexed.stderr

        status = json.loads(vaultctx(env, "status", *where, "--json").stdout)
        assert (status["chunks"], status["quality_vectors"]) == (12, 8)
        found = vaultctx(env, "search", "lighthouse storm", *where, "--json")
        assert found.returncode == 0, found.stderr
        assert len(json.loads(found.stdout)["results"]) > 0


def test_search_goes_on_without_a_remote_engine_that_is_down(tmp_path: Path) -> None:
    """Indexed while the provider was up; searched after it went away: keyword and static-vector
    results, with a notice, rather than an error."""
    vault = make_vault(tmp_path / "vault", dict(list(NOTES.items())[:3]))
    where = ["--vault", str(vault), "--db", str(tmp_path / "index.db")]
    env = cli_env(tmp_path)
    with OpenAIFake(require_key=KEY) as fake:
        configure(tmp_path, fake, SMALL)
        assert vaultctx(env, "index", *where).returncode == 0
    found = vaultctx(env, "search", "lighthouse storm", *where, "--json")
    assert found.returncode == 0, found.stderr
    response = json.loads(found.stdout)
    assert response["count"] == 3
    assert any(
        f"embedding engine openai:{SMALL} is unavailable" in notice
        for notice in response["notices"]
    )
