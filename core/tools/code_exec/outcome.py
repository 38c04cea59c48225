"""One run's outcome, whichever sandbox ran it, and the text the model reads back.

The text always has the exit status, stdout and stderr, and one plain line per limit that stopped or cut
the run ("stopped: CPU time limit (10 s)", "output truncated at 8000 chars"), so the model can tell a bug
in its code from a sandbox limit and does not retry the same thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Errors Python prints when a socket has nowhere to go: the sandbox has no network at all.
_NETWORK_ERROR = re.compile(
    r"(ConnectionRefusedError|Network is unreachable|Temporary failure in name resolution|"
    r"Name or service not known|gaierror|No route to host)"
)
# A traceback's last line naming the error a limit causes.
_MEMORY_ERROR = re.compile(r"^MemoryError\b", re.MULTILINE)
_FORK_REFUSED = re.compile(r"^(BlockingIOError|OSError): \[Errno 11\] Resource temporarily unavailable", re.M)
_FILE_TOO_LARGE = re.compile(r"\[Errno 27\] File too large")

NETWORK_NOTE = "network is not available in the sandbox"


@dataclass(frozen=True)
class RunOutcome:
    """What the code printed, how it ended, and which limits stopped or cut it.

    `exit_status` is None when the run was stopped before it could exit on its own (the wall-clock limit),
    `stopped` holds "what stopped it" phrases, `notes` other facts the model should know.
    """

    stdout: str
    stderr: str
    exit_status: int | None
    stopped: tuple[str, ...] = ()
    truncated_at: int | None = None  # the character budget when output was cut, else None
    notes: tuple[str, ...] = field(default=())


def limit_notes(stderr: str, *, memory: str, processes: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The limits a traceback shows were hit (stopped phrases) and the other notes (no network).

    `memory` and `processes` name the limits in the phrase: "memory limit (512 MB)".
    """
    stopped: list[str] = []
    if _MEMORY_ERROR.search(stderr):
        stopped.append(f"memory limit ({memory})")
    if _FORK_REFUSED.search(stderr):
        stopped.append(f"process limit ({processes})")
    if _FILE_TOO_LARGE.search(stderr):
        stopped.append("file size limit")
    notes = (NETWORK_NOTE,) if _NETWORK_ERROR.search(stderr) else ()
    return tuple(stopped), notes


def fit_output(stdout: str, stderr: str, max_chars: int) -> tuple[str, str, bool]:
    """Cut stdout and stderr to `max_chars` together: stdout keeps its start, stderr its end (where a
    traceback names the error); neither takes more than half the budget when the other needs room."""
    if len(stdout) + len(stderr) <= max_chars:
        return stdout, stderr, False
    err_budget = max(min(len(stderr), max_chars // 2), max_chars - len(stdout))
    out_budget = max_chars - err_budget
    kept_err = stderr[len(stderr) - err_budget :] if err_budget else ""
    return stdout[:out_budget], kept_err, True


def render(outcome: RunOutcome) -> str:
    """The tool result: status, stdout, stderr and one line per limit, in that order."""
    status = "none (stopped before it finished)" if outcome.exit_status is None else str(outcome.exit_status)
    lines = [f"exit status: {status}"]
    lines += [f"stopped: {reason}" for reason in outcome.stopped]
    if outcome.truncated_at is not None:
        lines.append(f"output truncated at {outcome.truncated_at} chars")
    lines += list(outcome.notes)
    lines.append("stdout:" + (f"\n{outcome.stdout.rstrip()}" if outcome.stdout.strip() else " (empty)"))
    lines.append("stderr:" + (f"\n{outcome.stderr.rstrip()}" if outcome.stderr.strip() else " (empty)"))
    return "\n".join(lines)
