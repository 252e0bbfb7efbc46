"""Start a child process with Ctrl-C working, as a shell at a terminal starts it.

pytest-xdist's workers run with SIGINT ignored, and a child inherits an ignored signal: Python
then installs no KeyboardInterrupt handler, so a test's Ctrl-C is lost, but only in the full
suite (tests that passed alone failed there: the chat's and the forwarded CLI's Ctrl-C tests).
Pass ``preexec_fn=ctrl_c_as_from_a_terminal`` to ``subprocess.Popen``.
"""

from __future__ import annotations

import signal


def ctrl_c_as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
