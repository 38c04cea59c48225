"""`bench tone --dataset FILE …`: how often the tone reader alarms, beside the lexicon alone, from one run.

A dataset is either one utterance a line (real chat: every line counts as ordinary, so every crisis or concern
reading is a false alarm) or a labelled TSV, `text<TAB>level[<TAB>observational]` (`#` lines and a `text`
header are skipped). For each file and each detector the result holds:

- the share of ordinary messages read as crisis and as concern or above (all lines of an unlabelled file,
  the gold-conversational rows of a labelled one);
- for a labelled file, crisis recall and precision, the share of crisis rows read as concern or above, and
  accuracy over the four levels;
- with `--evidence FILE` (`file<TAB>text<TAB>evidence<TAB>kind`, as `tests/data/tone_crisis_evidence.tsv`),
  crisis recall on the crisis rows whose text carries explicit evidence, and on those whose risk is implied;
- the detector's time per message (p50, p95).

The baseline is the lexicon alone (`ToneDetector()`); the shipped detector is built as the app builds it.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.pipeline.tone import ToneDetector

LEVELS = ("crisis", "elevated", "concern", "conversational")
ALARMS = ("crisis", "elevated", "concern")


@dataclass(frozen=True)
class ToneCase:
    """One message; `level` is None in an unlabelled file. `observational` marks distress language that is
    not the user's own (the news, fiction, someone else)."""

    text: str
    level: str | None
    observational: bool = False


def read_cases(path: Path) -> list[ToneCase]:
    """The file's messages: a TSV's rows with their levels, or one unlabelled utterance a line."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("text\t"):
            continue
        text, _, rest = line.partition("\t")
        if not rest:
            cases.append(ToneCase(text, None))
            continue
        level, *observational = rest.split("\t")
        cases.append(ToneCase(text, level.strip(), [o.strip() for o in observational] == ["1"]))
    return cases


def read_evidence(path: Path) -> dict[str, str]:
    """text → the kind of explicit evidence its crisis row carries ("none": the risk is only implied)."""
    kinds = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            _, text, _, kind = line.split("\t")
            kinds[text] = kind.strip()
    return kinds


@dataclass(frozen=True)
class ToneScore:
    """Predictions for a list of cases and the figures derived from them."""

    cases: Sequence[ToneCase]
    predicted: Sequence[str]

    @property
    def labelled(self) -> bool:
        return all(case.level is not None for case in self.cases)

    @property
    def accuracy(self) -> float:
        return self.hits() / len(self.cases) if self.cases else 0.0

    def hits(self, level: str | None = None) -> int:
        """Correct predictions, of one gold level or of all."""
        return sum(1 for c, p in zip(self.cases, self.predicted, strict=True) if c.level == p == (level or p))

    def recall(self, level: str) -> tuple[int, int]:
        return self.hits(level), sum(1 for c in self.cases if c.level == level)

    def precision(self, level: str) -> tuple[int, int]:
        return self.hits(level), sum(1 for p in self.predicted if p == level)

    def read_as(self, gold: str, *levels: str) -> tuple[int, int]:
        """How many rows of `gold` level were read as one of `levels`, of how many."""
        of_gold = [p for c, p in zip(self.cases, self.predicted, strict=True) if c.level == gold]
        return sum(p in levels for p in of_gold), len(of_gold)

    def share_read_as(self, *levels: str) -> float:
        """Share of the ordinary messages (gold conversational, or every line of an unlabelled file) read
        as one of `levels`: false alarms."""
        ordinary = [
            p for c, p in zip(self.cases, self.predicted, strict=True) if c.level in (None, "conversational")
        ]
        return sum(p in levels for p in ordinary) / len(ordinary) if ordinary else 0.0

    def crisis_recall_where(self, kinds: Mapping[str, str], explicit: bool) -> tuple[int, int]:
        """Crisis recall on the crisis rows labelled in `kinds` whose evidence is explicit (or implied)."""
        rows = [
            p
            for c, p in zip(self.cases, self.predicted, strict=True)
            if c.level == "crisis" and c.text in kinds and (kinds[c.text] != "none") == explicit
        ]
        return rows.count("crisis"), len(rows)

    def confusion(self) -> Counter[tuple[str | None, str]]:
        return Counter((c.level, p) for c, p in zip(self.cases, self.predicted, strict=True))


def score(cases: Sequence[ToneCase], predict: Callable[[str], str]) -> ToneScore:
    """Run `predict` (text → level) over the cases."""
    return ToneScore(cases, [predict(case.text) for case in cases])


def _figures(scored: ToneScore, times_ms: Sequence[float], kinds: Mapping[str, str]) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "crisis_rate": round(scored.share_read_as("crisis"), 5),
        "concern_or_above_rate": round(scored.share_read_as(*ALARMS), 5),
        "ms_per_message": {
            "p50": round(statistics.median(times_ms), 2) if times_ms else 0.0,
            "p95": round(statistics.quantiles(times_ms, n=20)[-1], 2) if len(times_ms) > 1 else 0.0,
        },
    }
    if scored.labelled:
        figures |= {
            "accuracy": round(scored.accuracy, 4),
            "crisis_recall": list(scored.recall("crisis")),
            "crisis_precision": list(scored.precision("crisis")),
            "crisis_read_concern_or_above": list(scored.read_as("crisis", *ALARMS)),
        }
        if kinds:
            figures["crisis_recall_explicit_evidence"] = list(scored.crisis_recall_where(kinds, True))
            figures["crisis_recall_implied"] = list(scored.crisis_recall_where(kinds, False))
    return figures


def run_tone_benchmark(
    datasets: Sequence[Path], detectors: Mapping[str, ToneDetector], evidence: Path | None = None
) -> dict[str, Any]:
    """Every detector over every dataset; per file, then over all files together."""
    kinds = read_evidence(evidence) if evidence else {}
    for detector in detectors.values():
        detector.detect("warming up: the models load here, not in the first timed message")
    files: dict[str, Any] = {}
    every: dict[str, list[tuple[ToneCase, str, float]]] = {name: [] for name in detectors}
    for path in datasets:
        cases = read_cases(path)
        columns = {}
        for name, detector in detectors.items():
            predicted, times = [], []
            for case in cases:
                started = time.perf_counter()
                predicted.append(detector.detect(case.text).level.value)
                times.append((time.perf_counter() - started) * 1000)
            every[name] += zip(cases, predicted, times, strict=True)
            columns[name] = _figures(ToneScore(cases, predicted), times, kinds)
        files[str(path)] = {"messages": len(cases), "columns": columns}
    total = {
        name: _figures(ToneScore([r[0] for r in rows], [r[1] for r in rows]), [r[2] for r in rows], kinds)
        for name, rows in every.items()
    }
    result: dict[str, Any] = {"files": files, "evidence": str(evidence) if evidence else None}
    if len(datasets) > 1:
        result["all"] = {"messages": sum(f["messages"] for f in files.values()), "columns": total}
    return result


def _ratio(pair: Sequence[int]) -> str:
    hits, total = pair
    return f"{hits}/{total} = {hits / total:.3f}" if total else "0/0"


def tone_headline(result: dict[str, Any]) -> str:
    """One table per file (and one over all files): each figure beside the lexicon-alone baseline."""
    blocks = []
    named = [*result["files"].items(), *([("all files", result["all"])] if "all" in result else [])]
    for name, block in named:
        columns = block["columns"]
        lines = [f"{name}: {block['messages']} messages", "| figure | " + " | ".join(columns) + " |"]
        lines.append("|---|" + "---:|" * len(columns))
        first = next(iter(columns.values()))
        rows = [
            ("ordinary read as crisis", lambda c: f"{c['crisis_rate']:.2%}"),
            ("ordinary read as concern or above", lambda c: f"{c['concern_or_above_rate']:.2%}"),
        ]
        if "crisis_recall" in first:
            rows += [
                ("crisis recall", lambda c: _ratio(c["crisis_recall"])),
                ("crisis precision", lambda c: _ratio(c["crisis_precision"])),
                ("crisis rows read as concern or above", lambda c: _ratio(c["crisis_read_concern_or_above"])),
                ("accuracy (four levels)", lambda c: f"{c['accuracy']:.3f}"),
            ]
        if "crisis_recall_explicit_evidence" in first:
            rows += [
                ("crisis recall, explicit evidence", lambda c: _ratio(c["crisis_recall_explicit_evidence"])),
                ("crisis recall, risk implied", lambda c: _ratio(c["crisis_recall_implied"])),
            ]
        rows.append(("ms per message p50 / p95", lambda c: "{p50} / {p95}".format(**c["ms_per_message"])))
        for label, cell in rows:
            lines.append(f"| {label} | " + " | ".join(cell(c) for c in columns.values()) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
