"""`session end`: run (or resume) the session-end processing and say what each step did."""

from __future__ import annotations

import asyncio
import sys

from core.ports import SessionLifecycle
from ui.shared.payloads import describe_session_end, print_json


def end_session(sessions: SessionLifecycle, session_id: str | None, *, as_json: bool = False) -> int:
    """Process one session (default: the latest); exit code 1 if a step failed and will be retried."""
    report = asyncio.run(sessions.end(session_id))
    if as_json:
        print_json(report)
    else:
        print(report.get("note") or describe_session_end(report))
    failed = [s["name"] for s in report.get("steps", []) if s.get("status") == "failed"]
    if failed:
        print(f"failed: {', '.join(failed)} (retried at the next session end)", file=sys.stderr)
    return 1 if failed else 0


def resume_interrupted(sessions: SessionLifecycle) -> None:
    """Finish session-end work a crash interrupted, before anything else (quiet when there is none)."""
    reports = asyncio.run(sessions.resume())
    for report in reports:
        print("resumed interrupted session-end work:\n" + describe_session_end(report), file=sys.stderr)
