"""What the front ends print or send about a turn, in one place: one JSON object on stdout, the `ask --json`
object of a turn, a history turn, a proposed call and the command that runs it, a session-end report in
lines. The terminal, the API, the GUI and the control routes of a running Daemon all use these, so the
same turn reads the same wherever it is shown.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any, TextIO

from core.events import Done, RunError, RunEvent, ToolProposal
from core.ports import TurnRecord
from ui.shared.boundary import json_safe


def print_json(payload: dict[str, Any], out: TextIO | None = None) -> None:
    """Exactly one JSON object on stdout, as the CLI contract requires (`sys.stdout` as it is when called,
    so a redirected or captured stdout receives it)."""
    out = out or sys.stdout
    out.write(json_safe(json.dumps(payload, ensure_ascii=False, default=str)) + "\n")
    out.flush()


def describe_call(proposal: ToolProposal) -> str:
    """A proposed call in one line: what it would do when the tool says (else the tool, its arguments and
    what the tool does)."""
    if proposal.preview:
        return proposal.preview
    args = json.dumps(proposal.call.arguments, ensure_ascii=False)
    what = f" ({proposal.description.splitlines()[0]})" if proposal.description else ""
    return f"{proposal.call.name} {args}{what}"


def approval_command(proposal: ToolProposal) -> str:
    """The command that runs a proposed call once the user decides to."""
    args = shlex.quote(json.dumps(proposal.call.arguments, ensure_ascii=False))
    return f"python main.py tool run {proposal.call.name} --args {args} --approve"


def ask_payload(done: Done, proposals: list[ToolProposal] | None = None) -> dict[str, Any]:
    """The `ask --json` object (keys fixed by the CLI contract; `proposals`: calls with side effects the
    model asked for, not run)."""
    return {
        "answer": done.answer,
        "session_id": done.session_id,
        "turn_id": done.turn_id,
        "model": done.model,
        "tool_calls": list(done.tool_calls),
        "citations": list(done.citations),
        "usage": done.usage.as_dict(),
        "exit_reason": done.exit_reason,
        "proposals": [
            {"name": p.call.name, "arguments": dict(p.call.arguments), "run_with": approval_command(p)}
            for p in proposals or ()
        ],
    }


def ask_result(events: list[RunEvent]) -> tuple[dict[str, Any], int]:
    """The `ask --json` object of a finished turn's events and the exit code (0: answered). The control
    route's non-streamed turn (ui/attach/control_routes.py) answers with the same object."""
    done = next((e for e in events if isinstance(e, Done)), None)
    if done is None:
        error = next((e for e in events if isinstance(e, RunError)), None)
        return {"error": error.message if error else "no answer"}, 1
    return ask_payload(done, [e for e in events if isinstance(e, ToolProposal)]), 0


def turn_payload(turn: TurnRecord) -> dict[str, Any]:
    """One turn as `history --json` lists it."""
    return {
        "turn_id": turn.turn_id,
        "session_id": turn.session_id,
        "user": turn.user,
        "assistant": turn.assistant,
        "created_at": turn.created_at,
        "status": turn.status,
        "model": turn.model,
    }


def session_end_line(report: dict[str, Any]) -> str:
    """A session-end report as one sentence for people (the step-by-step report is `session end`'s)."""
    failed = any(step.get("status") == "failed" for step in report.get("steps", []))
    if failed or not report.get("complete"):
        return "Saved the conversation; some of the tidying up will finish the next time Daemon starts."
    return "Saved the conversation."


def describe_session_end(report: dict[str, Any]) -> str:
    """One line per step of a session-end report (what ran, what was skipped and why, what failed)."""
    lines = [f"session {report.get('session_id')}: " + ("done" if report.get("complete") else "incomplete")]
    for step in report.get("steps", []):
        result = step.get("result") or {}
        detail = ", ".join(f"{k}={v}" for k, v in result.items() if k not in ("reason", "degraded"))
        why = result.get("reason") or step.get("error") or ""
        note = " (offline heuristics)" if result.get("degraded") else ""
        seconds = f"{step.get('seconds', 0.0):.2f} s" if step.get("ran") else "earlier"
        lines.append(f"  {step['name']}: {step['status']}{note} [{seconds}] {detail or why}".rstrip())
    return "\n".join(lines)
