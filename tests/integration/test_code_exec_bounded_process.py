"""Running a command with a byte cap and a deadline: the cap is never exceeded and the whole group dies."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from core.tools.code_exec.bounded import Launch, run_bounded


def python(code: str) -> Launch:
    return Launch(argv=[sys.executable, "-c", code], env={"PATH": "/usr/bin:/bin"})


def test_a_normal_command_gives_both_streams_and_its_exit_status() -> None:
    out = run_bounded(
        python("import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"),
        max_bytes=1000,
        wall_timeout_s=30,
    )
    assert (out.stdout, out.stderr, out.returncode) == (b"out\n", b"err\n", 3)
    assert not out.timed_out and not out.overflowed


def test_endless_output_is_cut_at_the_cap_and_the_command_killed() -> None:
    out = run_bounded(python("while True: print('x' * 1000)"), max_bytes=5000, wall_timeout_s=30)
    assert out.overflowed
    assert len(out.stdout) == 5000
    assert out.returncode == -9


def test_at_the_deadline_the_whole_process_group_is_killed() -> None:
    # The child forks a grandchild that keeps the pipes open and prints its pid: both must die.
    code = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    print(os.getpid(), flush=True)\n"
        "    time.sleep(600)\n"
        "time.sleep(600)\n"
    )
    out = run_bounded(python(code), max_bytes=1000, wall_timeout_s=1.0)
    assert out.timed_out
    grandchild = int(out.stdout.split()[0])
    assert wait_until_dead(grandchild)


def test_closing_both_pipes_does_not_escape_the_deadline() -> None:
    code = "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(600)"
    out = run_bounded(python(code), max_bytes=1000, wall_timeout_s=1.0)
    assert out.timed_out
    assert out.returncode == -9


def wait_until_dead(pid: int) -> bool:
    """Whether `pid` is gone or a zombie within a few seconds (SIGKILL is delivered asynchronously)."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False
