"""Graph RAG through a real index of a small linked vault (real SQLite, sqlite-vec, static model).

The vector search is cut to its single best hit, so the only way another note can reach the graph
ranking is along a link: every neighbour below got there by the expansion, not by similarity.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vaultctx.search.retriever as retriever_module
from vaultctx.api import Vault
from vaultctx.search.graph import (
    GraphOrigin,
    _as_stored,
    load_link_graph,
    neighbour_relevance,
    normalised,
    note_similarities,
)
from vaultctx.search.ranking_constants import MIN_RELEVANCE
from vaultctx.search.request import SearchRequest
from vaultctx.search.retriever import SearchResponse

NOTES = {
    "kitchen/Sourdough starter.md": "---\naliases: [levain]\n---\n# Sourdough starter\n\n"
    "Feed the sourdough starter with flour and water every day. A ripe starter doubles, smells "
    "sour and makes the bread dough rise. See [[Bread proofing]] and [[Kubernetes autoscaling]].\n",
    "kitchen/Bread proofing.md": "# Bread proofing\n\nProof the shaped loaves until the dough "
    "springs back slowly; a warm kitchen speeds the yeast and fermentation. Then bake: "
    "[[Oven temperature]].\n",
    "kitchen/Oven temperature.md": "# Oven temperature\n\nBake the risen bread dough in a hot "
    "oven with steam for a crisp crust; bread made with flour and water needs a hot oven.\n",
    "ops/Kubernetes autoscaling.md": "# Kubernetes autoscaling\n\nThe horizontal pod autoscaler "
    "adds replicas when CPU utilisation of the deployment exceeds the target in the cluster.\n",
    "ops/Error codes.md": "# Error codes\n\nERR_QUOTA_4417 means the storage quota was "
    "exceeded; raise it in the admin console.\n",
    # Links to the starter by its alias only; its own words share nothing with the queries.
    "Kitchen MOC.md": "---\ntype: moc\n---\n# Kitchen\n\n- [[levain]]\n- [[Oven temperature]]\n",
    **{
        f"misc/Filler {i}.md": f"# Filler {i}\n\nMeeting notes about quarterly budget planning, "
        f"invoices and travel expenses number {i}.\n"
        for i in range(6)
    },
}
QUERY = "how often to feed a sourdough starter"
STARTER, PROOFING, OVEN = (
    "kitchen/Sourdough starter.md",
    "kitchen/Bread proofing.md",
    "kitchen/Oven temperature.md",
)
KUBERNETES, ERRORS, MOC = "ops/Kubernetes autoscaling.md", "ops/Error codes.md", "Kitchen MOC.md"


def write_vault(root: Path) -> Path:
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("graph")
    handle = Vault(write_vault(root / "vault"), db=root / "index.db")
    handle.index(fast=True)
    return handle


@pytest.fixture(autouse=True)
def one_vector_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retriever_module, "VECTOR_TOP_K", 1)


def by_path(response: SearchResponse) -> dict[str, GraphOrigin | None]:
    return {result.file_path: result.graph for result in response.results}


def relevance_of(vault: Vault, path: str) -> float:
    """A neighbour of the starter recomputed from the stored vectors, independently of expand()."""
    retriever = vault.retriever()
    source = retriever.vector_sources()[0]
    query = _as_stored(source.embed_query(QUERY))
    graph = load_link_graph(retriever.db)
    starter, other = graph.note(STARTER), graph.note(path)
    assert starter is not None and other is not None
    similarity = note_similarities(retriever.db, source.table, query, [starter.id, other.id])
    best = similarity[starter.id][1]  # the single vector hit
    return neighbour_relevance(normalised(similarity[other.id][1], best), seed=1.0)


def test_the_vector_hit_is_the_seed(vault: Vault) -> None:
    response = vault.search(QUERY, graph=True, depth=0, limit=5)
    first = response.results[0]
    assert first.file_path == STARTER
    assert first.graph is not None and (first.graph.role, first.graph.hop) == ("seed", 0)
    assert first.graph.relevance == 1.0
    assert all(r.graph is None for r in response.results[1:])  # keyword hits only


def test_a_linked_note_joins_at_hop_one_with_the_seed_named(vault: Vault) -> None:
    graphs = by_path(vault.search(QUERY, graph=True, depth=1, limit=5))
    proofing = graphs[PROOFING]
    assert proofing is not None
    assert (proofing.role, proofing.hop, proofing.via, proofing.seed) == (
        "neighbor",
        1,
        STARTER,
        STARTER,
    )
    assert proofing.relevance == pytest.approx(relevance_of(vault, PROOFING), abs=1e-4)
    assert proofing.score == pytest.approx(proofing.relevance * 0.5)
    assert OVEN not in graphs  # two links away


def test_an_unrelated_linked_note_is_dropped(vault: Vault) -> None:
    assert relevance_of(vault, KUBERNETES) < MIN_RELEVANCE
    graphs = by_path(vault.search(QUERY, graph=True, depth=3, limit=10))
    assert KUBERNETES not in graphs


def test_hop_two_goes_through_the_kept_neighbour(vault: Vault) -> None:
    graphs = by_path(vault.search(QUERY, graph=True, depth=2, limit=5))
    oven = graphs[OVEN]
    assert oven is not None
    assert (oven.role, oven.hop, oven.via, oven.seed) == ("neighbor", 2, PROOFING, STARTER)
    assert oven.score == pytest.approx(oven.relevance * 0.25)


def test_keyword_only_hits_keep_their_reserved_slot(vault: Vault) -> None:
    response = vault.search(f"ERR_QUOTA_4417 {QUERY}", graph=True, depth=2, limit=3)
    errors = [r for r in response.results if r.file_path == ERRORS]
    assert errors and errors[0].graph is None and errors[0].bm25_rank is not None
    assert errors[0].vec_rank is None


def test_a_moc_linking_to_a_hit_by_alias_is_offered(vault: Vault) -> None:
    response = vault.search(QUERY, graph=True, depth=0, limit=1)
    assert [(m.path, m.title, m.links_to) for m in response.related_mocs] == [
        (MOC, "Kitchen", [STARTER])
    ]
    block = vault.context(QUERY, graph=True, depth=0, limit=1)
    assert f"- {MOC} (Kitchen)" in block.markdown
    assert block.as_dict()["related_mocs"][0]["path"] == MOC


def test_json_carries_the_explanation(vault: Vault) -> None:
    data = json.loads(json.dumps(vault.search(QUERY, graph=True, limit=3).as_dict()))
    assert data["results"][0]["graph"]["role"] == "seed"
    assert data["results"][1]["graph"] == {
        "role": "neighbor",
        "hop": 1,
        "relevance": pytest.approx(data["results"][1]["graph"]["relevance"]),
        "score": pytest.approx(data["results"][1]["graph"]["relevance"] * 0.5),
        "via": STARTER,
        "seed": STARTER,
    }


def test_without_graph_nothing_changes(vault: Vault) -> None:
    response = vault.search(QUERY, limit=5)
    assert all(r.graph is None for r in response.results)
    assert response.related_mocs == [] and PROOFING not in by_path(response)


def test_one_result_per_note(vault: Vault) -> None:
    response = vault.search(QUERY, graph=True, depth=2, limit=10, notes=True)
    paths = [r.file_path for r in response.results]
    assert len(paths) == len(set(paths)) and {STARTER, PROOFING, OVEN} <= set(paths)


def test_keyword_mode_has_no_seeds_and_says_so(vault: Vault) -> None:
    response = vault.search(QUERY, graph=True, mode="bm25")
    assert any("graph" in notice for notice in response.notices)
    assert all(r.graph is None for r in response.results)


@pytest.mark.parametrize("depth", [-1, 4])
def test_depth_is_checked(vault: Vault, depth: int) -> None:
    with pytest.raises(ValueError, match="0 to 3"):
        vault.search(QUERY, graph=True, depth=depth)


def test_the_graph_follows_a_reindex(tmp_path: Path) -> None:
    """A warm reader sees links the indexer committed since (PRAGMA data_version)."""
    root = write_vault(tmp_path / "vault")
    reader = Vault(root, db=tmp_path / "index.db")
    reader.index(fast=True)
    assert "new/Starter schedule.md" not in by_path(reader.search(QUERY, graph=True))
    (root / "new").mkdir()
    (root / "new" / "Starter schedule.md").write_text(
        "# Schedule\n\nFeed the [[levain]] at 8am: flour and water, then let the dough rise.\n",
        encoding="utf-8",
    )
    Vault(root, db=tmp_path / "index.db").index(fast=True)
    graphs = by_path(reader.search(QUERY, graph=True))
    schedule = graphs["new/Starter schedule.md"]
    assert schedule is not None and schedule.via == STARTER


def test_the_graph_ranking_keeps_the_fusion_asked_for(vault: Vault) -> None:
    """RRF is the graph ranking's default; a fusion asked for is applied, never swapped."""
    default = vault.search(QUERY, graph=True, limit=3)
    by_score = vault.search(SearchRequest(QUERY, graph=True, limit=3, fusion="score"))
    assert default.results[0].score <= (0.5 + 1.0) / 61, "RRF: weight / (60 + rank), summed"
    assert by_score.results[0].file_path == STARTER
    assert by_score.results[0].score >= 1.0, "score fusion: the best graph hit alone is worth 1.0"
