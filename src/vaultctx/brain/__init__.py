"""The Second Brain: wiki notes written and kept up to date from the user's own notes
(docs/second-brain.md)."""
