"""`trace show`: one turn's spans as a table (or the JSON object of the CLI contract)."""

from __future__ import annotations

from typing import Any

from core.errors import UserInputError
from core.tracing import TraceLog
from ui.shared.payloads import print_json
from ui.shared.trace_rows import span_rows


def show_trace(log: TraceLog, turn_id: str, *, as_json: bool) -> int:
    found = log.find(turn_id.strip())
    if found is None:
        raise UserInputError(
            f"no trace of turn {turn_id!r} in {log.folder} (turns are traced while tracing.enabled is on; "
            "`history --json` lists turn ids)"
        )
    if as_json:
        print_json({"turn_id": found["turn_id"], "spans": found["spans"]})
        return 0
    for line in trace_lines(found):
        print(line)
    return 0


def trace_lines(found: dict[str, Any]) -> list[str]:
    """One line per span: its offset from the turn's start, its duration, its name and attributes."""
    lines = [f"turn {found['turn_id']} (session {found.get('session_id', '?')})"]
    for name, offset, took, details in span_rows(found):
        lines.append(f"  +{offset:8.1f} ms {took:9.1f} ms  {name}  {details}")
    return lines
