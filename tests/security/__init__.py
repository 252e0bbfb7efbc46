"""Security promises: each test keeps one guarantee against hostile input.

docs/security.md lists them by surface."""
