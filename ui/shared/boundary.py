"""Text crossing the boundary: what a user types comes in repaired once; what reaches a terminal is inert.

In: every front end (command-line arguments, the REPL's stdin, the GUI's textbox) passes the user's text
through `user_text` once. Bytes that are not UTF-8 (Python hands them over as lone surrogates) become
U+FFFD, and the text is put in NFC. Nothing else changes: the text is stored as the user said it.

Out: `for_terminal` removes terminal escape sequences and control characters (newline and tab stay), so
neither stored text nor a model's answer can retitle the window or clear the screen. `protect_streams`
puts it in front of stdout and stderr for the whole process; JSON output escapes those characters instead.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections.abc import Callable
from typing import Any, TextIO

REPLACEMENT = "\ufffd"
_SURROGATES = re.compile("[\ud800-\udfff]+")
_NOT_ESCAPED_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # lone surrogates no byte turned into
# Escape sequences removed whole when complete (OSC/DCS strings, CSI, two-character ESC sequences);
# what is left of an incomplete one loses its ESC below and is shown as plain text.
_SEQUENCES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[P^_X][^\x1b]*\x1b\\"
    r"|\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x9d[^\x07\x9c]*[\x07\x9c]"
    r"|\x1b[ -/]*[0-~]"
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_JSON_UNSAFE = re.compile("[\x7f-\x9f]")  # json.dumps escapes C0 itself; DEL and C1 would pass raw


def user_text(raw: str) -> str:
    """The user's text as stored and processed: undecodable bytes as U+FFFD, Unicode in NFC."""
    if _SURROGATES.search(raw):
        raw = _repair_surrogates(raw)
    return unicodedata.normalize("NFC", raw)


def _repair_surrogates(text: str) -> str:
    """Bytes Python kept as surrogates (surrogateescape) are decoded again, invalid ones as U+FFFD; a lone
    surrogate from elsewhere (a browser, JSON) is replaced as well."""
    text = _NOT_ESCAPED_BYTE.sub(REPLACEMENT, text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def is_blank(text: str) -> bool:
    """True when nothing would be left to read: only spaces, control and invisible format characters
    (zero-width spaces and joiners, direction marks, BOM)."""
    return all(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") for ch in text)


def message_arg(raw: str) -> str:
    """argparse type for a message or query: repaired, and never empty."""
    text = user_text(raw)
    if is_blank(text):
        raise argparse.ArgumentTypeError("the text is empty (only spaces or invisible characters)")
    return text


def session_arg(raw: str) -> str:
    """argparse type for `--session ID`: repaired, trimmed, printable and not blank."""
    text = user_text(raw).strip()
    if is_blank(text):
        raise argparse.ArgumentTypeError("a session id cannot be blank")
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text):
        raise argparse.ArgumentTypeError("a session id cannot contain control or invisible characters")
    return text


def count_arg(low: int, high: int) -> Callable[[str], int]:
    """argparse type for a whole number from `low` to `high` (beyond, SQLite and friends overflow)."""

    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high:,}, not {value}")
        return value

    parse.__name__ = "number"  # argparse names the type in its messages
    return parse


def for_terminal(text: str) -> str:
    """`text` without escape sequences or control characters other than newline and tab."""
    if not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub("", _SEQUENCES.sub("", text.replace("\r\n", "\n")))


def json_safe(rendered: str) -> str:
    """A JSON document with DEL and C1 control characters escaped (still the same JSON value)."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", rendered)


class TerminalStream:
    """A text stream that writes through `for_terminal`; everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: str) -> int:
        self.wrapped.write(for_terminal(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def protect_streams() -> None:
    """For this process: stdin never fails to decode (bad bytes reach `user_text` as surrogates), stdout
    and stderr never fail to encode and never pass an escape sequence to the terminal."""
    stdin = sys.stdin
    if stdin is not None and hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="surrogateescape")
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, TerminalStream):
            continue
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
        setattr(sys, name, TerminalStream(stream))
