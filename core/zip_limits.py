"""Decompression bombs: a ZIP entry that would expand far beyond reason is refused before it is read.

One test for every ZIP Daemon opens (Daemon's own archives, chat exports, Word documents). Python's
`zipfile` never inflates past an entry's declared size (it stops there and checks the CRC), so the
declared sizes are what must be judged, before anything is read.
"""

from __future__ import annotations

import zipfile

BOMB_RATIO = 1000  # deflate reaches ~1000:1 only on runs of one byte; real entries stay far below
BOMB_MIN_BYTES = 16 << 20  # small entries may compress well (an empty SQLite page); they cannot fill a disk


def expands_beyond_reason(info: zipfile.ZipInfo) -> bool:
    """True when the entry is large once inflated and inflates more than `BOMB_RATIO` times."""
    return info.file_size > BOMB_MIN_BYTES and info.file_size > BOMB_RATIO * max(info.compress_size, 1)
