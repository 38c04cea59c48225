"""Ends the sessions a server (the GUI, `api`) serves: those that went quiet, by a background thread with its
own event loop, and the rest when the server stops."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from core.ports import SessionLifecycle

logger = logging.getLogger(__name__)


class IdleSessionEnder:
    """Every `interval_s`, runs the session-end steps for sessions quiet for `idle_s`."""

    def __init__(
        self,
        sessions: SessionLifecycle,
        idle_s: float,
        *,
        interval_s: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._sessions = sessions
        self._idle_s = idle_s
        self._interval_s = interval_s
        self._clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="idle-session-end", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop and wait for a running check to finish (its steps are recorded; none is cut in half)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def check_once(self) -> int:
        """One check; how many sessions were processed."""
        try:
            reports = asyncio.run(self._sessions.end_idle(self._idle_s, self._clock()))
        except Exception:  # noqa: BLE001 - a failed check is retried at the next interval
            logger.exception("ending idle sessions failed; retrying later")
            return 0
        return len(reports)

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            self.check_once()


@contextmanager
def sessions_served(
    sessions: SessionLifecycle | None, idle_end_minutes: float, shutdown_budget_s: float | None = None
) -> Iterator[None]:
    """While the body serves: sessions quiet for `idle_end_minutes` get their session-end steps; when it
    stops, the sessions it served since it started get theirs before the process exits, for at most
    `shutdown_budget_s` (the steps not reached run at the next start)."""
    if sessions is None:
        yield
        return
    started = time.time()
    idle = IdleSessionEnder(sessions, idle_end_minutes * 60.0)
    idle.start()
    try:
        yield
    finally:
        idle.stop()
        print("Saving what these sessions taught me…", file=sys.stderr)
        reports = asyncio.run(sessions.end_active(since=started, budget_s=shutdown_budget_s))
        waiting = [s for report in reports for s in report.get("steps", []) if s.get("status") == "pending"]
        if waiting:  # the budget ran out before these steps: `resume` runs them when Daemon next starts
            print(f"…{len(waiting)} step(s) left for the next start (it was time to stop).", file=sys.stderr)
