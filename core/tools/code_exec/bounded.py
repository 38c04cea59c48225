"""Run a command with a wall-clock deadline and a byte cap on what it prints.

Untrusted code can print a gigabyte or never stop, so its output is read in chunks as it arrives and never
past the cap; when the cap or the deadline is reached the whole process group is killed at once (the
command is started in a new session, so its group is its own).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

_CHUNK = 65536
# After a kill the pipes close as soon as the killed processes are gone; this bounds the wait for that.
_DRAIN_AFTER_KILL_S = 2.0


@dataclass(frozen=True)
class ProcessOutput:
    """What a bounded run produced: at most `max_bytes` of each stream, and why it ended.

    `returncode` follows subprocess: negative when a signal ended the command itself (our own kill is
    SIGKILL, so -9). `timed_out` and `overflowed` say that this module killed it, and why.
    """

    stdout: bytes
    stderr: bytes
    returncode: int
    timed_out: bool = False
    overflowed: bool = False


@dataclass(frozen=True)
class Launch:
    """How to start the command: its argv, environment, extra fds to pass and an optional user to run as."""

    argv: Sequence[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()
    user: int | None = None  # uid and gid to switch to before exec (only when started as root)


def run_bounded(launch: Launch, *, max_bytes: int, wall_timeout_s: float) -> ProcessOutput:
    """Run `launch`, reading at most `max_bytes` per stream, killed at the deadline or when over the cap."""
    # Popen switches ids in the forked child without Python code (safe with threads, unlike preexec_fn).
    # None for all three is Popen's default: the ids stay as they are (setgroups needs root, so the empty
    # group list is only passed along with a user).
    user = launch.user
    proc = subprocess.Popen(  # noqa: S603 - argv is built by the caller, never a shell string
        list(launch.argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=launch.env,
        pass_fds=launch.pass_fds,
        start_new_session=True,
        user=user,
        group=user,
        extra_groups=[] if user is not None else None,
    )
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + wall_timeout_s
    try:
        chunks, reason = _read_until_done(proc.stdout, proc.stderr, max_bytes, deadline)
        if reason is None:
            # Both pipes closed, but a program can close them and keep running: the deadline still holds.
            reason = _wait_until(proc, deadline)
        if reason:
            _kill_group(proc)
            _drain(proc.stdout, proc.stderr, chunks, max_bytes)
        returncode = proc.wait()
    finally:
        if proc.poll() is None:  # an exception above: never leave the sandbox running
            _kill_group(proc)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return ProcessOutput(
        stdout=b"".join(chunks["stdout"]),
        stderr=b"".join(chunks["stderr"]),
        returncode=returncode,
        timed_out=reason == "timeout",
        overflowed=reason == "overflow",
    )


def _read_until_done(
    stdout: IO[bytes], stderr: IO[bytes], max_bytes: int, deadline: float
) -> tuple[dict[str, list[bytes]], str | None]:
    """Read both pipes until both close (None), the deadline passes ("timeout") or one overflows."""
    chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
    sizes = {"stdout": 0, "stderr": 0}
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ, "stdout")
        selector.register(stderr, selectors.EVENT_READ, "stderr")
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return chunks, "timeout"
            for key, _ in selector.select(timeout=remaining):
                name = key.data
                data = os.read(key.fd, min(_CHUNK, max_bytes - sizes[name] + 1))
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                keep = data[: max_bytes - sizes[name]]
                chunks[name].append(keep)
                sizes[name] += len(keep)
                if len(keep) < len(data):
                    return chunks, "overflow"
    return chunks, None


def _wait_until(proc: subprocess.Popen[bytes], deadline: float) -> str | None:
    """None when the command exits before the deadline, else "timeout"."""
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return "timeout"
    return None


def _drain(stdout: IO[bytes], stderr: IO[bytes], chunks: dict[str, list[bytes]], max_bytes: int) -> None:
    """After a kill, keep what is still in the pipes up to the cap (discarding the rest) until they close."""
    deadline = time.monotonic() + _DRAIN_AFTER_KILL_S
    sizes = {name: sum(map(len, parts)) for name, parts in chunks.items()}
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ, "stdout")
        selector.register(stderr, selectors.EVENT_READ, "stderr")
        while selector.get_map() and (remaining := deadline - time.monotonic()) > 0:
            for key, _ in selector.select(timeout=remaining):
                data = os.read(key.fd, _CHUNK)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                keep = data[: max(0, max_bytes - sizes[key.data])]
                chunks[key.data].append(keep)
                sizes[key.data] += len(keep)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the command's whole process group (it leads its own session)."""
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
