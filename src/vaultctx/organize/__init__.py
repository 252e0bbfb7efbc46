"""Organising the vault: features that write notes through the ``Vault`` change methods."""
