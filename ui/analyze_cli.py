"""`python main.py analyze TEXT | --file FILE`: the context pipeline's view of messages."""

from __future__ import annotations

import time
from pathlib import Path

from core.errors import UserInputError
from core.metrics import percentiles
from core.pipeline.analyzer import ContextAnalyzer
from ui.cli import print_json


def _read_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserInputError(f"file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserInputError(f"cannot read {path}: {error}") from None
    return [line.split("\t")[0].strip() for line in text.splitlines() if line.strip()]


def analyze_command(analyzer: ContextAnalyzer, text: str | None, file: Path | None, *, as_json: bool) -> int:
    """One message, or every line of a file (a TSV's first column), with per-message latency for files."""
    if (text is None) == (file is None):
        raise UserInputError("give either a message or --file FILE")
    if text is not None:
        result = analyzer.analyze(text).as_dict()
        if as_json:
            print_json(result)
        else:
            print(f"intent {result['intent']} ({result['confidence']}), tone {result['tone']}, "
                  f"topics {', '.join(result['topics']) or '-'}")  # fmt: skip
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
