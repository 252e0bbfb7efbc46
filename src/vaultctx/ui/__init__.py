"""``vaultctx ui``: the vault in a browser, a thin shell over ``vaultctx.api.Vault``.

Nothing here searches, reads, records or undoes on its own: every page calls a ``Vault`` method
and renders what comes back, escaped. ``guard`` decides who may ask (a per-run token, local Host
and Origin headers), ``pages`` what they see.
"""
