"""Approval flows: proposed changes the user accepts item by item (docs/review.md)."""
