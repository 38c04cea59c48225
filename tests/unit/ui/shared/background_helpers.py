"""What the background task tests share: waiting for the runner's thread to reach a state."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    """Poll `condition` until it holds; fail the test after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
