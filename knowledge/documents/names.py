"""Names that come from outside (an upload's file name, a path on the command line) made safe to store.

A name such as `../../etc/passwd` or `C:\\Users\\x\\a.md` is reduced to its last part, with control and
invisible characters removed, so a stored title or path never climbs out of anything or hides text.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME = 200
MAX_FILE_NAME = 120  # characters: far under the 255 bytes most file systems allow, even in UTF-8
FALLBACK = "document"
_NOT_FILE_SAFE = re.compile(r"[^\w.\- ]+")
# Device names Windows will not create as files, whatever the extension (the desktop build runs there).
_WINDOWS_DEVICES = frozenset(
    ["con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))]
)


def safe_name(raw: str) -> str:
    """The last component of `raw` (either slash), printable, without leading dots or spaces."""
    last = raw.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    printable = "".join(ch for ch in last if unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    cleaned = unicodedata.normalize("NFC", printable).strip().lstrip(". ").strip()
    return _cut(cleaned, MAX_NAME) or FALLBACK


def file_name(raw: str) -> str:
    """`safe_name(raw)` fit to be a file name on any system Daemon runs on: only letters, digits, `._- `
    (others become `_`), at most MAX_FILE_NAME characters with the extension kept, never a Windows device
    name (`CON.txt` becomes `_CON.txt`)."""
    name = _cut(_NOT_FILE_SAFE.sub("_", safe_name(raw)).strip(" ."), MAX_FILE_NAME) or FALLBACK
    return "_" + name if name.split(".")[0].lower() in _WINDOWS_DEVICES else name


def _cut(name: str, limit: int) -> str:
    """`name` in at most `limit` characters, its extension (if short) kept."""
    if len(name) <= limit:
        return name
    stem, dot, extension = name.rpartition(".")
    if not stem.strip(".") or not extension or len(extension) > 16:
        stem, dot, extension = name, "", ""
    return stem[: limit - len(dot + extension)].rstrip(" .") + dot + extension


def stem_and_extension(name: str) -> tuple[str, str]:
    """`report.final.PDF` -> (`report.final`, `pdf`); no extension -> (name, "")."""
    if "." not in name.strip("."):
        return name, ""
    stem, _, extension = name.rpartition(".")
    return (stem or name), extension.lower()
