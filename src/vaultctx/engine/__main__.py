"""``python -m vaultctx.engine``: how a client starts the engine (``engine_link.client.start``)."""

import sys

from vaultctx.engine.server import main

sys.exit(main(sys.argv[1:]))
