"""Names that come from outside (an upload's file name, a path on the command line) made safe to store.

A name such as `../../etc/passwd` or `C:\\Users\\x\\a.md` is reduced to its last part, with control and
invisible characters removed, so a stored title or path never climbs out of anything or hides text.
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 200
FALLBACK = "document"


def safe_name(raw: str) -> str:
    """The last component of `raw` (either slash), printable, without leading dots or spaces."""
    last = raw.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    printable = "".join(ch for ch in last if unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    cleaned = unicodedata.normalize("NFC", printable).strip().lstrip(". ").strip()
    return cleaned[:MAX_NAME] or FALLBACK


def stem_and_extension(name: str) -> tuple[str, str]:
    """`report.final.PDF` -> (`report.final`, `pdf`); no extension -> (name, "")."""
    if "." not in name.strip("."):
        return name, ""
    stem, _, extension = name.rpartition(".")
    return (stem or name), extension.lower()
