"""Per-intent precision/recall of the intent classifier on a labelled TSV (`query<TAB>intent[<TAB>split]`).

    python -m eval.intent_report tests/data/intent_labelled.tsv [--split test] [--head]

Prints accuracy and a markdown table (the README's figures come from this). `--head` adds the MiniLM intent
head's second opinion on unsure messages, as the running app does.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from core.config import INTENT_NAMES as INTENTS


def read_labelled(path: Path, split: str | None = None) -> list[tuple[str, str]]:
    """(query, intent) rows of the file, optionally only one split; blank and # lines are skipped."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if split is None or (len(parts) > 2 and parts[2] == split):
            rows.append((parts[0], parts[1]))
    return rows


def report(rows: Sequence[tuple[str, str]], predict: Callable[[str], str]) -> tuple[float, str]:
    """Accuracy and a markdown table of per-intent n, precision, recall and F1."""
    predicted = [predict(query) for query, _ in rows]
    gold = [intent for _, intent in rows]
    hits = Counter(g for g, p in zip(gold, predicted, strict=True) if g == p)
    said = Counter(predicted)
    total = Counter(gold)
    lines = ["| intent | n | precision | recall | F1 |", "|---|---:|---:|---:|---:|"]
    for intent in INTENTS:
        precision = hits[intent] / said[intent] if said[intent] else 0.0
        recall = hits[intent] / total[intent] if total[intent] else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        lines.append(f"| {intent} | {total[intent]} | {precision:.3f} | {recall:.3f} | {f1:.3f} |")
    accuracy = sum(hits.values()) / len(rows) if rows else 0.0
    return accuracy, "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--split", default=None, help="only rows of this split (third column)")
    parser.add_argument("--head", action="store_true", help="add the MiniLM intent head's second opinion")
    args = parser.parse_args(argv)
    rows = read_labelled(args.file, args.split)
    predict = _predictor(args.head)
    accuracy, table = report(rows, predict)
    print(f"{args.file} ({args.split or 'all'}): {len(rows)} queries, accuracy {accuracy:.3f}\n")
    print(table)
    return 0


def _predictor(with_head: bool) -> Callable[[str], str]:
    from core.pipeline.intent import IntentClassifier

    if not with_head:
        classifier = IntentClassifier()
        return lambda query: classifier.classify(query).intent
    from core.pipeline.linear_head import INTENT_HEAD, load_head
    from memory.embeddings import MiniLMEmbedder

    embedder = MiniLMEmbedder(threads=1)
    classifier = IntentClassifier(second_opinion=load_head(INTENT_HEAD, embedder.embed_query, embedder.name))
    return lambda query: classifier.classify(query).intent


if __name__ == "__main__":
    raise SystemExit(main())
