"""Due reminders reaching the user in every front end that is open, and the ones missed while none was.

Each front end holds a `ReminderFeed`: at its start it fires what came due while Daemon was closed and
shows every firing no front end has shown yet; then, every `tasks.check_every_s`, it fires what is due and
shows the firings after its own cursor, so a GUI and a terminal chat open together both show a reminder
(whichever process fires it). `reminders_delivered` runs that check on a background thread while a front
end serves, and hands each batch to the front end's own `deliver` (a terminal line, the GUI's banner) and
to the system's notification where there is one.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import tzinfo

from core.errors import StorageError
from core.schedule.tasks import Firing
from memory.tasks import TaskStore

logger = logging.getLogger(__name__)
Deliver = Callable[[list[Firing]], None]


@dataclass(frozen=True)
class Batch:
    """What one check found: every firing this front end has not shown, and those this process fired
    (only these go to the system's notification, so two open front ends do not notify twice)."""

    shown: list[Firing]
    fired_here: list[Firing]


@dataclass
class ReminderFeed:
    """One front end's view of the task book's firings."""

    book: TaskStore
    _cursor: int | None = field(default=None, init=False)

    @property
    def zone(self) -> tzinfo:
        return self.book.zone

    def at_start(self) -> Batch:
        """Fire what came due while Daemon was closed; every firing no front end has shown yet."""
        fired = self.book.claim_due()
        self._cursor = self.book.last_firing_id()
        unseen = self.book.unseen()
        self.book.mark_seen(unseen)
        return Batch(unseen, fired)

    def due(self) -> Batch:
        """Fire what is due now; the firings after this front end's cursor (its own and other processes')."""
        if self._cursor is None:
            return self.at_start()
        fired = self.book.claim_due()
        new = self.book.firings_after(self._cursor)
        if new:
            self._cursor = new[-1].id
            self.book.mark_seen(new)
        return Batch(new, fired)


@contextmanager
def reminders_delivered(
    feed: ReminderFeed | None,
    deliver: Deliver,
    *,
    every_s: float,
    notifier: Deliver | None = None,
    missed: Deliver | None = None,
    act: Deliver | None = None,
) -> Iterator[None]:
    """First, before the body runs, what came due while Daemon was closed goes to `missed` (default:
    `deliver`); then, while it runs, due reminders are checked every `every_s` seconds on a background
    thread and handed to `deliver`. What this process fired also goes to `notifier`, and to `act` (which
    starts the scheduled background tasks). A failing check is logged and tried again at the next one."""
    if feed is None:
        yield
        return
    first = feed.at_start()
    (missed or deliver)(first.shown)
    for hand in (notifier, act):
        if hand is not None and first.fired_here:
            hand(first.fired_here)
    stop = threading.Event()

    def check() -> None:
        try:
            batch = feed.due()
        except StorageError:
            logger.exception("could not read the task book; trying again at the next check")
            return
        for hand, firings in ((deliver, batch.shown), (notifier, batch.fired_here), (act, batch.fired_here)):
            if hand is None or not firings:
                continue
            try:
                hand(firings)
            except Exception:  # noqa: BLE001 - one failing hand must not stop the checks that follow
                logger.exception("handing on %d due reminder(s) failed", len(firings))

    def loop() -> None:
        while True:
            check()
            if stop.wait(every_s):
                return

    thread = threading.Thread(target=loop, name="reminders", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def system_notifier(zone: tzinfo, *, enabled: bool = True, platform: str = sys.platform) -> Deliver | None:
    """Reminders as the system's notifications where a notifier exists (notify-send on Linux, osascript on
    macOS) and `enabled` (`tasks.os_notifications`); None otherwise. The text goes as an argument, never
    through a shell."""
    if not enabled:
        return None
    if platform == "darwin" and (program := shutil.which("osascript")):
        osascript = program

        def mac(firings: list[Firing]) -> None:
            for firing in firings:
                script = f'display notification {_applescript(firing.line(zone))} with title "Daemon"'
                _quietly([osascript, "-e", script])

        return mac
    if (program := shutil.which("notify-send")) is not None:
        notify_send = program

        def linux(firings: list[Firing]) -> None:
            for firing in firings:
                _quietly([notify_send, "--app-name=Daemon", "--", "Daemon", firing.line(zone)])

        return linux
    return None


def _applescript(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quietly(command: list[str]) -> None:
    """A notification that cannot be shown (no desktop session) is not an error: the front end showed it."""
    try:
        subprocess.run(command, check=False, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        logger.info("the system notification could not be shown", exc_info=True)
