"""Signal intake (docs/signals.md): items captured into the inbox as ``type: signal`` (by
``capture --signal``, a dropped-in file, or a feed of ``[signals] feeds``), scored on relevance,
actionability, depth and authority, and filed under ``05-signals/<domain>/`` when they score
0.55 or more.

Takes a ``TextModel`` for model scoring and never imports the agent or the CLI.
"""
