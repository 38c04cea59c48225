"""SIGTERM as a clean exit: it unwinds the main thread like Ctrl-C, so each front end's own cleanup
(session-end processing, closing files) runs on its own event loop, never inside a signal handler."""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any

EXIT_CODE = 128 + signal.SIGTERM
REDELIVERY_DELAY_S = 0.1


def install_termination() -> None:
    """SIGTERM raises SystemExit(143) in the main thread. A signal that arrives while a finalizer runs (a
    weakref callback, `__del__`) raises there, where Python ignores exceptions; the unraisable hook sees
    that and delivers the signal again a moment later, so a SIGTERM is never lost."""
    signal.signal(signal.SIGTERM, _terminate)
    sys.unraisablehook = _redeliver_lost_termination


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _redeliver_lost_termination(unraisable: Any) -> None:
    error = unraisable.exc_value
    if isinstance(error, SystemExit) and error.code == EXIT_CODE:
        import _thread

        # From another thread and after a delay: raised now, it would land in this hook, which is ignored too.
        timer = threading.Timer(REDELIVERY_DELAY_S, _thread.interrupt_main, args=(signal.SIGTERM,))
        timer.daemon = True
        timer.start()
        return
    sys.__unraisablehook__(unraisable)
