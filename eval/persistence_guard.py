"""The persistence guard: an evaluation run must leave the data dir exactly as it found it.

`unchanged(folder)` fingerprints every file under `folder` (path, size, content hash) before the block
and again after it; any file added, removed or changed fails the run with `PersistenceViolation`, naming
the files. An evaluation that writes to the memory it measures would measure its own traces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.errors import DaemonError


class PersistenceViolation(DaemonError):
    """An evaluation run changed the data dir."""


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under `folder` (relative path) -> its size and content hash."""
    prints: dict[str, str] = {}
    if not folder.exists():
        return prints
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        prints[str(path.relative_to(folder))] = f"{path.stat().st_size}:{digest.hexdigest()}"
    return prints


@contextmanager
def unchanged(folder: Path) -> Iterator[None]:
    """Fail with `PersistenceViolation` if the block adds, removes or changes any file under `folder`."""
    before = fingerprint(folder)
    yield
    after = fingerprint(folder)
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise PersistenceViolation(f"the evaluation changed the data dir {folder}: {shown}")
