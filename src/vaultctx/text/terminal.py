"""Text from a model or a note made safe to print on a terminal.

A model's answer can carry whatever a prompt-injected note asked it to write, including escape
sequences: ESC [ 2 J clears the screen, OSC 52 writes the clipboard, OSC 8 hides a link's target,
a lone carriage return overwrites the line before it. None of that belongs in an answer, so
control characters other than tab and newline are dropped before anything is printed.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F), which some
# terminals read as escape-sequence introducers (U+009B is CSI on its own).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without control characters; a CRLF line end stays a line end."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))
