"""What changed in the user's git repositories since their last conversation (session start context).

Reads `git log` of each configured repository (read-only; local repositories only, nothing is fetched), at
most `limit` commits per repository, and caches the answer for a few minutes so it is not re-read each turn.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

_FORMAT = "%h %s (%an, %cr)"


def commits_since(repo: Path, since: float, limit: int = 10, timeout_s: float = 5.0) -> list[str]:
    """One line per commit made after `since` (epoch seconds), newest first; [] when it is not a repo."""
    try:
        result = subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "log",
                f"--since=@{int(since)}",
                f"--max-count={limit}",
                f"--pretty=format:{_FORMAT}",
                "--no-color",
            ],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if result.returncode != 0:
        return []
    return [line.strip() for line in result.stdout.splitlines() if line.strip()]


class GitChanges:
    """`changes(since)` for the prompt's "codebase changes since last session" section, cached briefly."""

    def __init__(
        self,
        repos: Sequence[Path],
        *,
        limit: int = 10,
        ttl_s: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._repos = tuple(repos)
        self._limit = limit
        self._ttl_s = ttl_s
        self._clock = clock
        self._cache: dict[float | None, tuple[float, list[str]]] = {}
        self._lock = threading.Lock()

    def __call__(self, since: float | None) -> list[str]:
        if since is None or not self._repos:
            return []
        now = self._clock()
        with self._lock:
            hit = self._cache.get(since)
            if hit is not None and now - hit[0] < self._ttl_s:
                return hit[1]
        lines = [
            f"{repo.name}: {line}" for repo in self._repos for line in commits_since(repo, since, self._limit)
        ]
        with self._lock:
            self._cache = {since: (now, lines)}
        return lines
