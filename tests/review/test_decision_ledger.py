"""The decision ledger's merge rules and file format."""

from __future__ import annotations

from vaultctx.review.decision_ledger import (
    Decision,
    Ledger,
    merge,
    parse,
    render,
    source_link,
)
from vaultctx.review.decisions import validated

TABLE = """## Open

| decision | rationale | owner | due | superseded-by | sources |
| --- | --- | --- | --- | --- | --- |
| Use SQLite for the index | one file | Ann (edited) |  |  | [[notes/db]] |
| this row \\| lost a cell | x |
| Ship weekly |  |  | 2026-01-05 |  | [[notes/process]] |

## Done

| decision | rationale | owner | due | superseded-by | sources |
| --- | --- | --- | --- | --- | --- |
| Adopt ruff | fast | Bo |  |  | [[notes/lint]], [a#b.md](notes/a%23b.md) |"""


def test_parse_reads_rows_by_section_and_keeps_broken_rows_verbatim() -> None:
    ledger = parse(TABLE)
    assert [(e.decision, e.status) for e in ledger.entries] == [
        ("Use SQLite for the index", "open"),
        ("Ship weekly", "open"),
        ("Adopt ruff", "done"),
    ]
    assert ledger.entries[2].sources == ("notes/lint.md", "notes/a#b.md")
    assert ledger.unparsed == ["| this row \\| lost a cell | x |"]


def test_render_then_parse_is_the_same_ledger() -> None:
    ledger = parse(TABLE)
    assert parse(render(ledger)) == ledger
    text = render(ledger)
    assert text.index("## Open") < text.index("## Done") < text.index("## Unparsed rows")
    assert "| decision | rationale | owner | due | superseded-by | sources |" in text


def test_merge_fills_only_empty_fields_and_combines_sources() -> None:
    ledger = parse(TABLE)
    found = Decision(
        "use sqlite for the index.",
        rationale="the model's reason",
        owner="Model",
        due="2026-02-01",
        sources=("notes/db.md", "notes/more.md"),
    )
    entry = merge(ledger, [found]).entries[0]
    assert entry.decision == "Use SQLite for the index"  # the user's spelling
    assert entry.rationale == "one file" and entry.owner == "Ann (edited)"
    assert entry.due == "2026-02-01"  # was empty: filled
    assert entry.sources == ("notes/db.md", "notes/more.md")


def test_status_only_moves_forward() -> None:
    ledger = parse(TABLE)
    back = merge(ledger, [Decision("Adopt ruff", status="open", sources=("notes/lint.md",))])
    assert back.entries[2].status == "done"
    on = merge(ledger, [Decision("Ship weekly", status="done", sources=("notes/process.md",))])
    assert on.entries[1].status == "done"
    replaced = merge(
        ledger, [Decision("Adopt ruff", superseded_by="Adopt ruff 2", sources=("x.md",))]
    )
    assert replaced.entries[2].status == "superseded"
    self_named = merge(ledger, [Decision("Ship weekly", superseded_by="ship weekly.")])
    assert self_named.entries[1].status == "open"


def test_new_decisions_are_added_and_broken_rows_survive_a_merge() -> None:
    merged = merge(parse(TABLE), [Decision("Write docs first", sources=("notes/docs.md",))])
    assert merged.entries[-1].decision == "Write docs first"
    assert "| this row \\| lost a cell | x |" in render(merged)


def test_cells_are_escaped() -> None:
    ledger = Ledger([Decision("a | b", rationale="two\nlines", sources=("n.md",))])
    row = render(ledger).splitlines()[-1]
    assert row == "| a \\| b | two lines |  |  |  | [[n]] |"
    assert parse(render(ledger)).entries[0].decision == "a | b"
    assert source_link("x/a|b.md") == "[a|b.md](x/a%7Cb.md)"


def test_validated_answers() -> None:
    notices: list[str] = []
    found = validated(
        [
            {"decision": "Use SQLite", "sources": ["notes/db.md", "/etc/passwd"], "due": "soon"},
            {"decision": "No source", "sources": ["elsewhere.md"]},
            {"decision": "", "sources": ["notes/db.md"]},
            {
                "decision": "Ship weekly",
                "sources": ["notes/process"],
                "status": "Cancelled",
                "decidedOn": "2026-02-30",
                "due": "2026-03-01",
            },
            "not an object",
            {"decision": "use sqlite", "sources": ["notes/db.md"]},  # the same decision again
        ],
        ["notes/db.md", "notes/process.md"],
        notices,
    )
    assert [(d.decision, d.sources, d.status, d.due, d.decided_on) for d in found] == [
        ("Use SQLite", ("notes/db.md",), "open", "", ""),
        ("Ship weekly", ("notes/process.md",), "open", "2026-03-01", ""),
    ]
    assert notices == [
        "3 entries of the model's answer dropped: each needs a decision and a source among "
        "the notes this search found"
    ]
