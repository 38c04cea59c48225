"""Tone accuracy on a labelled TSV (`text<TAB>level<TAB>observational`), lexicon alone beside lexicon + head.

    python -m eval.tone_report tests/data/tone_blind.tsv

Both columns come from the same run. Prints accuracy, per-level precision/recall, how many observational
negatives (distress language about the news, fiction or others) stay conversational, and the confusion
matrix with the head (the figures in docs/tone_eval.md and the README come from this).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

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
            text, level, observational = line.split("\t")
            cases.append(ToneCase(text, level.strip(), observational.strip() == "1"))
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


def render(path: Path, plain: ToneScore, headed: ToneScore) -> str:
    """Markdown: the two columns side by side, then the head's confusion matrix."""

    def ratio(pair: tuple[int, int]) -> str:
        return f"{pair[0]}/{pair[1]}" + (f" = {pair[0] / pair[1]:.3f}" if pair[1] else "")

    lines = [
        f"{path}: {len(plain.cases)} cases",
        "",
        "| figure | lexicon | lexicon + head |",
        "|---|---:|---:|",
        f"| accuracy | {plain.accuracy:.3f} | {headed.accuracy:.3f} |",
    ]
    for level in LEVELS:
        for name, figure in (("recall", ToneScore.recall), ("precision", ToneScore.precision)):
            before, after = ratio(figure(plain, level)), ratio(figure(headed, level))
            lines.append(f"| {level} {name} | {before} | {after} |")
    calm = "observational negatives kept conversational"
    lines.append(f"| {calm} | {ratio(plain.calm_kept())} | {ratio(headed.calm_kept())} |")
    for name, levels in (("crisis", ("crisis",)), ("concern or above", ("crisis", "elevated", "concern"))):
        before, after = plain.share_read_as(*levels), headed.share_read_as(*levels)
        lines.append(f"| calm messages read as {name} | {before:.2%} | {after:.2%} |")
    confusion = headed.confusion()
    lines += ["", "With the head (rows gold, columns predicted):", ""]
    lines += ["| gold \\ predicted | " + " | ".join(LEVELS) + " |", "|---|" + "---:|" * len(LEVELS)]
    lines += [f"| {gold} | " + " | ".join(str(confusion[gold, p]) for p in LEVELS) + " |" for gold in LEVELS]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from core.pipeline.linear_head import TONE_HEAD, load_head
    from core.pipeline.tone import ToneDetector
    from memory.embeddings import MiniLMEmbedder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    cases = read_cases(args.file)
    embedder = MiniLMEmbedder(threads=1)
    lexicon = ToneDetector()
    headed = ToneDetector(head=load_head(TONE_HEAD, embedder.embed_query, embedder.name))
    print(
        render(
            args.file,
            score(cases, lambda text: lexicon.detect(text).level.value),
            score(cases, lambda text: headed.detect(text).level.value),
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
