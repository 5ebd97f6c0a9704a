"""What the checker prints: learner and repository text with its control characters escaped.

Branch names, commit subjects, author names, issue comments and pull-request bodies reach the
terminal through the checker's reports. A raw ESC, OSC or C1 byte there can move the cursor,
retitle the window or write the clipboard (OSC 52), and a bidirectional override can make a
line read backwards. Like ``git``, which quotes such bytes in paths, every line the checker
prints goes through :func:`printable`, so a report always shows the text it holds.
"""

from __future__ import annotations

import re
import sys

# C0 except the newline, DEL and C1, and the bidirectional embeddings, overrides and isolates.
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character written as its escape (``\\x1b``, ``\\u202e``)."""
    return CONTROL.sub(_escaped, text)


def say(*lines: str, err: bool = False) -> None:
    """Print each line, escaped; the only way the checker writes to the terminal."""
    stream = sys.stderr if err else sys.stdout
    for line in lines:
        print(printable(line), file=stream)
