"""One turn's trace as rows (`trace show` prints them, the Status tab shows them as a table)."""

from __future__ import annotations

import json
from typing import Any

SPAN_HEADERS = ["span", "at (ms)", "took (ms)", "details"]


def span_rows(found: dict[str, Any]) -> list[list[Any]]:
    """Each span in start order: its name, its offset from the turn's start, its duration, its attributes."""
    spans = sorted(found.get("spans") or [], key=lambda s: s["start"])
    first = spans[0]["start"] if spans else 0.0
    return [
        [
            item["name"],
            round((item["start"] - first) * 1000, 1),
            round(item["duration_ms"], 1),
            json.dumps(item.get("attributes") or {}, ensure_ascii=False),
        ]
        for item in spans
    ]
