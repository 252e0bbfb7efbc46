"""Credential scrubbing (docs/reference.md#credential-scrubbing): every chunk and every output
goes through ``scrub_secrets``."""

from vaultctx.scrub.scrubber import CompiledRules, ScrubResult, compiled_rules, scrub_secrets

__all__ = ["CompiledRules", "ScrubResult", "compiled_rules", "scrub_secrets"]
