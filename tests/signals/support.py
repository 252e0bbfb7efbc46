"""A small vault with one active project and signals of known quality, indexed for real."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_vault

PROJECT = """---
title: Billing service
type: project
status: active
---
# Billing service

Invoices, Stripe webhooks, payment retries and the nightly invoice job. The service finalizes
invoices, sends them, and retries failed payments with exponential backoff.
"""

GOOD_SIGNAL = (
    """---
title: Handling Stripe invoice webhooks
type: signal
source: https://docs.stripe.com/billing/webhooks
status: draft
---
# Handling Stripe invoice webhooks

How to handle invoice finalization webhooks in a billing service. You should verify every
signature, then run the handler idempotently. Use the event id as the key.

## Steps

1. Verify the webhook signature with the endpoint secret.
2. Store the event id; skip events you have seen.
3. Update the invoice, then retry failed payments later.

```python
event = stripe.Webhook.construct_event(payload, header, secret)
```

## Why

"""
    + " ".join(["Invoices that finalize twice charge customers twice."] * 60)
    + "\n"
)

WEAK_SIGNAL = """---
type: signal
status: draft
---
Banana bread: mash three bananas, add flour. Nice picture.
"""

OTHER_NOTE = """---
type: note
---
Just a note in the inbox, not a signal.
"""


def signal_vault(root: Path, extra: dict[str, str] | None = None) -> Path:
    return make_vault(
        root,
        {
            "01-projects/Billing service.md": PROJECT,
            "00-inbox/Stripe webhooks.md": GOOD_SIGNAL,
            "00-inbox/Banana bread.md": WEAK_SIGNAL,
            "00-inbox/Plain note.md": OTHER_NOTE,
            **(extra or {}),
        },
    )


def files(vault: Path) -> dict[str, bytes]:
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file()
    }
