"""The local HTTP server's plumbing, shared by ``serve --http`` (mcp/) and ``vaultctx ui`` (ui/).

Who may connect (``policy``: the bind rule, Host and Origin headers; ``token``: the bearer token),
how the server is found (``server_link``: the record beside the index, read by hooks and the CLI),
what local processes may ask it (``guard``, ``hook_endpoint``, ``cli_endpoint``) and how it serves
(``listeners``, ``http_timeouts``, ``serving``). It sits below the integrations, which all use it;
it never imports them. Importing the package itself costs nothing: ``server_link`` is on the
hook's hot path.
"""
