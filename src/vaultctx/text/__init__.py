"""Language-aware text analysis shared by the index and search layers (below both)."""
