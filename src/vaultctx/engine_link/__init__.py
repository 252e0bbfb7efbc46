"""How a client reaches the user's engine: its runtime folder, its socket, starting it.

Standard library only (and vaultctx's import-free error type): ``cli.forward`` imports this
before typer, on every forwarded command. The engine itself is ``vaultctx.engine``.
"""
