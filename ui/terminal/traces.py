"""`trace show`: one turn's spans as a table (or the JSON object of the CLI contract)."""

from __future__ import annotations

import json
from typing import Any

from core.errors import UserInputError
from core.tracing import TraceLog
from ui.shared.payloads import print_json


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
    spans = found.get("spans") or []
    first = min((s["start"] for s in spans), default=0.0)
    lines = [f"turn {found['turn_id']} (session {found.get('session_id', '?')})"]
    for item in spans:
        attributes = json.dumps(item.get("attributes") or {}, ensure_ascii=False)
        offset = (item["start"] - first) * 1000
        lines.append(f"  +{offset:8.1f} ms {item['duration_ms']:9.1f} ms  {item['name']}  {attributes}")
    return lines
