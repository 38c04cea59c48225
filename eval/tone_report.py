"""Tone accuracy on a labelled TSV (`text<TAB>level<TAB>observational`): the lexicon alone, lexicon + head,
and the shipped detector (lexicon + head + the parse-based danger reader) side by side.

    python -m eval.tone_report tests/data/tone_blind.tsv

All columns come from the same run. Prints accuracy, per-level precision/recall, how many observational
negatives (distress language about the news, fiction or others) stay conversational, the share of calm
messages read as crisis and as concern or above, and the shipped detector's confusion matrix (the figures in
docs/tone_eval.md and the README come from this). A file of two columns (`text<TAB>level`, as
`eval/training/tone_chat_negatives.tsv`) reads as non-observational.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.pipeline.tone import ToneDetector

LEVELS = ("crisis", "elevated", "concern", "conversational")


@dataclass(frozen=True)
class ToneCase:
    """One labelled message; `observational` marks distress language that is not the user's own."""

    text: str
    level: str
    observational: bool


def read_cases(path: Path) -> list[ToneCase]:
    """The file's cases; blank and `#` lines are skipped."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            text, level, *observational = line.split("\t")
            cases.append(ToneCase(text, level.strip(), [o.strip() for o in observational] == ["1"]))
    return cases


@dataclass(frozen=True)
class ToneScore:
    """Predictions for a list of cases and the figures derived from them."""

    cases: Sequence[ToneCase]
    predicted: Sequence[str]

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

    def calm_kept(self) -> tuple[int, int]:
        """Observational negatives (gold conversational) that stayed conversational."""
        pairs = zip(self.cases, self.predicted, strict=True)
        calm = [p for c, p in pairs if c.observational and c.level == "conversational"]
        return calm.count("conversational"), len(calm)

    def share_read_as(self, *levels: str) -> float:
        """Share of the gold-conversational cases predicted as one of `levels` (false alarms)."""
        calm = [p for c, p in zip(self.cases, self.predicted, strict=True) if c.level == "conversational"]
        return sum(p in levels for p in calm) / len(calm) if calm else 0.0

    def confusion(self) -> Counter[tuple[str, str]]:
        return Counter((c.level, p) for c, p in zip(self.cases, self.predicted, strict=True))


def score(cases: Sequence[ToneCase], predict: Callable[[str], str]) -> ToneScore:
    """Run `predict` (text → level) over the cases."""
    return ToneScore(cases, [predict(case.text) for case in cases])


def render(path: Path, columns: Mapping[str, ToneScore]) -> str:
    """Markdown: the columns side by side, then the last column's confusion matrix."""

    def ratio(pair: tuple[int, int]) -> str:
        return f"{pair[0]}/{pair[1]}" + (f" = {pair[0] / pair[1]:.3f}" if pair[1] else "")

    def row(name: str, cells: Sequence[str]) -> str:
        return f"| {name} | " + " | ".join(cells) + " |"

    scores = list(columns.values())
    lines = [f"{path}: {len(scores[0].cases)} cases", "", "| figure | " + " | ".join(columns) + " |"]
    lines += ["|---|" + "---:|" * len(columns), row("accuracy", [f"{s.accuracy:.3f}" for s in scores])]
    for level in LEVELS:
        lines.append(row(f"{level} recall", [ratio(s.recall(level)) for s in scores]))
        lines.append(row(f"{level} precision", [ratio(s.precision(level)) for s in scores]))
    lines.append(row("observational negatives kept conversational", [ratio(s.calm_kept()) for s in scores]))
    for name, levels in (("crisis", ("crisis",)), ("concern or above", ("crisis", "elevated", "concern"))):
        lines.append(
            row(f"calm messages read as {name}", [f"{s.share_read_as(*levels):.2%}" for s in scores])
        )
    confusion = list(columns.values())[-1].confusion()
    lines += ["", f"{list(columns)[-1]} (rows gold, columns predicted):", ""]
    lines += ["| gold \\ predicted | " + " | ".join(LEVELS) + " |", "|---|" + "---:|" * len(LEVELS)]
    lines += [f"| {gold} | " + " | ".join(str(confusion[gold, p]) for p in LEVELS) + " |" for gold in LEVELS]
    return "\n".join(lines)


def detectors() -> dict[str, ToneDetector]:
    """The report's columns: the lexicon alone, with the tone head, and the shipped detector (with the
    danger reader over spaCy as well), built as `app.builders.models.build_analyzer` builds it."""
    from core.nlp import SpacyPipeline
    from core.pipeline.linear_head import TONE_HEAD
    from core.pipeline.tone import ToneDetector
    from core.pipeline.tone_danger import DangerReader
    from memory.embeddings import MiniLMEmbedder
    from memory.tuned_encoder import load_head_for

    embedder = MiniLMEmbedder(threads=1)
    head = load_head_for(TONE_HEAD, embedder)
    return {
        "lexicon": ToneDetector(),
        "lexicon + head": ToneDetector(head=head),
        "+ danger reader (shipped)": ToneDetector(head=head, danger=DangerReader(SpacyPipeline())),
    }


def _predictor(detector: ToneDetector) -> Callable[[str], str]:
    """text → the level `detector` reads in it."""
    return lambda text: detector.detect(text).level.value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    cases = read_cases(args.file)
    columns = {name: score(cases, _predictor(detector)) for name, detector in detectors().items()}
    print(render(args.file, columns))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
