"""`python main.py analyze TEXT [--session ID] | --file FILE`: the context pipeline's view of messages.

With `--session`, the message is read as that session's next turn: its intent is refined by the session's
previous turn, and `escalation` is the state the turn would be answered under, that is the session's stored
state advanced by this message (a preview: nothing is stored, only answered turns change a session).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from core.metrics import percentiles
from core.pipeline import session_state
from core.pipeline.analyzer import ContextAnalyzer
from core.pipeline.session_state import MessageReading
from core.ports import SessionState, SessionStateStore
from ui.shared.payloads import print_json


def _read_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserInputError(f"file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserInputError(f"cannot read {path}: {error}") from None
    return [line.split("\t")[0].strip() for line in text.splitlines() if line.strip()]


def in_session(
    analyzer: ContextAnalyzer, text: str, state: SessionState, *, explain: bool = False
) -> dict[str, Any]:
    """The `analyze --json` object for `text` as the next turn of a session in `state`, with the escalation
    state the turn would be answered under."""
    analysis = analyzer.analyze(text, session_state.hint(state, text))
    reading = MessageReading(
        text, analysis.tone, analysis.intent, analysis.confidence, analysis.topics, unsure=analysis.asks
    )
    after = session_state.advance(state, reading)
    escalation = {
        "state": after.escalation_state,
        "turns_in_state": after.turns_in_state,
        "recent_tones": list(after.tones),
    }
    if explain:
        escalation["why"] = after.escalation_reason or "no distress: the default state"
    explained = {"explain": analysis.explain()} if explain else {}
    return {**analysis.as_dict(), "escalation": escalation, **explained}


def analyze_command(
    analyzer: ContextAnalyzer,
    text: str | None,
    file: Path | None,
    *,
    as_json: bool,
    session_id: str | None = None,
    states: SessionStateStore | None = None,
    explain: bool = False,
) -> int:
    """One message (as the next turn of `session_id` when given: `states` holds the sessions, None when
    nothing was ever stored), or every line of a file (a TSV's first column), with per-message latency.
    `explain` adds why the tone and intent were chosen (cues, the heads' probabilities, the filters)."""
    if (text is None) == (file is None):
        raise UserInputError("give either a message or --file FILE")
    if session_id is not None and file is not None:
        raise UserInputError("--session reads one message as a session's next turn; it does not take --file")
    if text is not None:
        if session_id is None:
            analysis = analyzer.analyze(text)
            result = analysis.as_dict() | ({"explain": analysis.explain()} if explain else {})
        else:
            stored = states.load(session_id) if states is not None else None
            result = in_session(analyzer, text, stored or SessionState(), explain=explain)
        if as_json:
            print_json(result)
        else:
            print(
                f"intent {result['intent']} ({result['confidence']}), tone {result['tone']}, "
                f"topics {', '.join(result['topics']) or '-'}"
            )
            if "explain" in result:
                print(json.dumps(result["explain"], indent=2, ensure_ascii=False))
            if "escalation" in result:
                print(
                    f"escalation {result['escalation']['state']} "
                    f"({result['escalation']['turns_in_state']} turns in state)"
                )
        return 0
    assert file is not None
    lines = _read_lines(file)
    analyzer.analyze("warm up")  # load spaCy and the embedder before timing
    results, timings = [], []
    for line in lines:
        started = time.perf_counter()
        results.append(analyzer.analyze(line).as_dict())
        timings.append((time.perf_counter() - started) * 1000)
    latency = percentiles(timings)
    if as_json:
        print_json({"results": results, "latency_ms": latency})
    else:
        for line, result in zip(lines, results, strict=True):
            print(f"{result['intent']:<22} {result['tone']:<14} {line}")
        print(f"{len(lines)} messages, p50 {latency['p50']} ms, p95 {latency['p95']} ms")
    return 0
