"""The Status tab and the `/health` route: each subsystem's health, counts per collection, the tools.

`status_report` reads everything live (a few cheap queries); `health_payload` is its short form for Docker's
health check, which needs no login and so says only whether each part answers, never what memory holds.
"""

from __future__ import annotations

import logging
from typing import Any

from core.text import clip
from ui.gui.backends import GuiBackends
from ui.gui.chat_controller import ChatBackend
from ui.shared.render import markdown_text
from ui.shared.tool_runner import tool_entries
from ui.shared.trace_rows import SPAN_HEADERS, span_rows

log = logging.getLogger(__name__)
TOOL_HEADERS = ["tool", "available", "why not / note"]


def _check(name: str, probe: Any) -> tuple[dict[str, Any], Any]:
    """Run one probe; a failing subsystem is reported (and logged), never raised."""
    try:
        value = probe()
    except Exception as error:  # noqa: BLE001 - a status page reports a broken part, it does not break
        log.warning("status: %s failed: %s", name, error)
        return {"name": name, "ok": False, "detail": clip(str(error), 200, one_line=True)}, None
    return {"name": name, "ok": True, "detail": ""}, value


def status_report(backend: ChatBackend, parts: GuiBackends) -> dict[str, Any]:
    """Every subsystem with `ok` and a detail line, the records per collection and the tool catalog."""
    models = backend.model_names
    checks = [
        {"name": "models", "ok": bool(models), "detail": f"{', '.join(models)} (provider {parts.provider})"}
    ]
    counts: dict[str, int] = {}
    if parts.memory is not None:
        check, found = _check("memory store (Chroma)", parts.memory.stats)
        counts = found or {}
        check["detail"] = check["detail"] or f"{sum(counts.values())} records"
        checks.append(check)
    if parts.facts is not None:
        check, facts = _check("facts", parts.facts.list_facts)
        if facts is not None:
            current = sum(1 for f in facts if f.status == "current")
            check["detail"] = f"{current} current, {len(facts) - current} superseded"
        checks.append(check)
    if parts.review is not None:
        check, items = _check("review queue", parts.review.open_items)
        check["detail"] = check["detail"] or f"{len(items or [])} open"
        checks.append(check)
    tools = tool_entries(parts.tools.catalog) if parts.tools is not None else []
    usable = sum(1 for t in tools if t["available"])
    checks.append({"name": "tools", "ok": True, "detail": f"{usable} available, {len(tools) - usable} not"})
    return {"version": parts.version, "checks": checks, "collections": counts, "tools": tools}


def health_payload(backend: ChatBackend, parts: GuiBackends) -> dict[str, Any]:
    """`/health`: ok when every subsystem answers; per check only its name and `ok` (no counts, no text)."""
    report = status_report(backend, parts)
    checks = {c["name"]: c["ok"] for c in report["checks"]}
    return {"ok": all(checks.values()), "version": report["version"], "checks": checks}


def checks_markdown(report: dict[str, Any]) -> str:
    lines = ["| subsystem | ok | detail |", "|---|---|---|"]
    for c in report["checks"]:
        detail = str(c["detail"]).replace("|", "/")
        lines.append(f"| {c['name']} | {'yes' if c['ok'] else 'NO'} | {detail} |")
    if report["collections"]:
        lines += ["", "| collection | records |", "|---|---|"]
        lines += [f"| {name} | {n} |" for name, n in report["collections"].items()]
    return "\n".join(lines)


def tool_rows(report: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for t in report["tools"]:
        note = (
            t.get("reason", "")
            if not t["available"]
            else ("asks for approval" if t.get("side_effects") else "")
        )
        rows.append([t["name"], "yes" if t["available"] else "no", note])
    return rows


def turn_trace(parts: GuiBackends, turn_id: str) -> tuple[str, list[list[Any]]]:
    """A note and the span rows of one turn's trace (the last one when no id is given)."""
    if parts.traces is None:
        return "Tracing is off (`tracing.enabled` in the config).", []
    wanted = (turn_id or "").strip()
    found = parts.traces.find(wanted) if wanted else parts.traces.latest()
    if found is None:
        return (f"No trace of turn `{markdown_text(wanted)}`." if wanted else "No turn traced yet."), []
    note = (
        f"Turn `{markdown_text(found['turn_id'])}`; kept on this computer only, in `{parts.traces.folder}`."
    )
    return note, span_rows(found)


def build_status_tab(gr: Any, backend: ChatBackend, parts: GuiBackends) -> dict[str, Any]:
    c: dict[str, Any] = {}
    c["refresh"] = gr.Button("Refresh", elem_id="status-refresh", size="sm")
    c["checks"] = gr.Markdown("", elem_id="status-checks")
    gr.Markdown("### Tools")
    c["tools"] = gr.Dataframe(headers=TOOL_HEADERS, elem_id="status-tools", interactive=False, wrap=True)

    gr.Markdown("### Where a turn's time went")
    with gr.Row(equal_height=True):
        c["turn"] = gr.Textbox(label="Turn id (empty: the last turn)", elem_id="trace-turn", scale=3)
        c["show_trace"] = gr.Button("Show its trace", elem_id="trace-show", scale=1)
    c["trace_note"] = gr.Markdown("", elem_id="trace-note")
    c["trace"] = gr.Dataframe(headers=SPAN_HEADERS, elem_id="trace-spans", interactive=False, wrap=True)

    def reload() -> tuple[str, list[list[Any]]]:
        report = status_report(backend, parts)
        return checks_markdown(report), tool_rows(report)

    c["refresh"].click(reload, None, [c["checks"], c["tools"]])
    c["show_trace"].click(lambda turn: turn_trace(parts, turn), c["turn"], [c["trace_note"], c["trace"]])
    c["reload"] = reload
    c["reload_outputs"] = [c["checks"], c["tools"]]
    return c
