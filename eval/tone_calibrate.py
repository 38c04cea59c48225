"""Sweep the tone head's crisis thresholds over labelled sets: false alarms beside recall, one run.

    python -m eval.tone_calibrate tests/data/tone_chat_heldout.tsv tests/data/tone_blind.tsv ...

For each (`head_crisis_at`, `head_crisis_alone_at`) pair of the grid, prints per file: accuracy, crisis
recall, crisis readings of non-crisis messages (false alarms) and concern-or-above readings of calm ones.
The shipped thresholds (`ToneConfig`) were chosen from this table: the lowest pair that keeps real chat at
or under 0.3 % crisis with room to spare and the older blind set's accuracy at or above 0.85.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from eval.tone_report import read_cases, score

if TYPE_CHECKING:
    from core.pipeline.tone import ToneDetector

GRID = ((0.3, 0.9), (0.2, 0.9), (0.2, 0.85), (0.2, 0.95))


def _predictor(detector: ToneDetector) -> Callable[[str], str]:
    return lambda text: detector.detect(text).level.value


def main(argv: Sequence[str] | None = None) -> int:
    from core.nlp import SpacyPipeline
    from core.pipeline.linear_head import TONE_HEAD
    from core.pipeline.tone import ToneConfig, ToneDetector
    from core.pipeline.tone_danger import DangerReader
    from memory.embeddings import MiniLMEmbedder
    from memory.tuned_encoder import load_head_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    embedder = MiniLMEmbedder(threads=1)
    head = load_head_for(TONE_HEAD, embedder)
    danger = DangerReader(SpacyPipeline())  # as shipped: the head's thresholds act beside the danger reader
    sets = {path.stem: read_cases(path) for path in args.files}
    print("| crisis_at, alone_at | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    for with_risk, alone in GRID:
        config = replace(ToneConfig(), head_crisis_at=with_risk, head_crisis_alone_at=alone)
        predict = _predictor(ToneDetector(head=head, config=config, danger=danger))
        cells = []
        for cases in sets.values():
            scored = score(cases, predict)
            hits, total = scored.recall("crisis")
            false = sum(p == "crisis" != c.level for c, p in zip(cases, scored.predicted, strict=True))
            concern = scored.share_read_as("crisis", "elevated", "concern")
            cells.append(
                f"acc {scored.accuracy:.3f}, crisis {hits}/{total}, false crisis {false}, calm→concern+ "
                f"{concern:.1%}"
            )
        print(f"| {with_risk}, {alone} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
