"""Writes ``query_pieces.tsv`` beside the bundled multilingual model (embed/query_pieces.py):
run after the model's tokenizer.json changes; tests/embed/test_query_pieces.py checks it."""

from __future__ import annotations

from vaultctx.embed.e5 import BUNDLED_E5_DIR
from vaultctx.embed.query_pieces import TABLE_NAME, table_text


def main() -> None:
    data = (BUNDLED_E5_DIR / "tokenizer.json").read_bytes()
    (BUNDLED_E5_DIR / TABLE_NAME).write_text(table_text(data), encoding="utf-8")


if __name__ == "__main__":
    main()
