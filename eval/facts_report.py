"""Fact extraction precision/recall per labelled set: the regex rules alone beside the grammar reader.

    python -m eval.facts_report                 # every tests/data/facts_*.yaml
    python -m eval.facts_report tests/data/facts_chat_blind.yaml
    python -m eval.facts_report --locomo FILE [--sample 40]   # LoCoMo dev JSON: statements that yield facts

All columns come from one run: `rules` (RuleFactExtractor), `grammar` (the parse's verb frames alone),
`grammar+rules` (what Daemon extracts) and `+type gate` (those facts less the ones the verification gate's
type check rejects: an object that does not fit its relation, `memory.facts.object_types`). A fact counts
when (subject, canonical relation, object, negated) match after normalisation (case, punctuation, a leading
article). An ending that names no relation ("cancelled Netflix": `ENDS_WHAT_IT_NAMES`) is not a fact but
what the fact service ends, and is not counted. The fact table of docs/memory.md comes from this.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from core.ports import ExtractedFact, FactExtractor
from core.relations import ENDS_WHAT_IT_NAMES, canonical_relation, normalize

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SETS = ("labelled", "heldout", "chat_dev", "chat_dev2", "chat_blind", "independent")
Triple = tuple[str, str, str, bool]


def load_items(path: Path) -> list[dict[str, Any]]:
    """The `items` of a labelled facts file."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))["items"]


def _norm(text: str) -> str:
    return re.sub(r"^(?:a|an|the) ", "", normalize(str(text)))


def predicted(fact: ExtractedFact) -> Triple:
    """The comparable form of an extracted fact ("has a sister Jo" -> jo sister_of user)."""
    relation, swapped = canonical_relation(fact.predicate)
    subject, obj = (fact.object, fact.subject) if swapped else (fact.subject, fact.object)
    return _norm(subject), relation, _norm(obj), fact.negated


def expected(row: Sequence[str]) -> Triple:
    """The comparable form of a labelled row `[subject, relation, object(, negated)]`, its relation named
    as the extracted facts' are (a label's "married_to" is `spouse_of`, as "married to" is)."""
    relation, swapped = canonical_relation(str(row[1]))
    subject, obj = (row[2], row[0]) if swapped else (row[0], row[2])
    return _norm(subject), relation, _norm(obj), len(row) > 3 and row[3] == "negated"


def precision_recall(extractor: FactExtractor, path: Path) -> tuple[float, float]:
    """Micro precision/recall of (subject, canonical relation, object, negated) over a labelled file."""
    hits = extracted = wanted = 0
    for item in load_items(path):
        gold = {expected(row) for row in item["facts"]}
        got = {
            predicted(f) for f in extractor.extract(str(item["text"])) if f.predicate != ENDS_WHAT_IT_NAMES
        }
        hits, extracted, wanted = hits + len(gold & got), extracted + len(got), wanted + len(gold)
    return hits / max(extracted, 1), hits / max(wanted, 1)


class TypeGated:
    """An extractor's facts less those whose object the gate's type check rejects (no stored facts)."""

    def __init__(self, extractor: FactExtractor, types: Any) -> None:
        self._extractor = extractor
        self._types = types

    def extract(self, text: str) -> list[ExtractedFact]:
        """The extractor's facts that fit their relations."""
        from memory.facts.model import Candidate

        facts = self._extractor.extract(text)
        return [f for f in facts if self._types.mismatch(Candidate.from_extracted(f)) is None]


def extractors() -> dict[str, FactExtractor]:
    """The readers compared, sharing one spaCy pipeline."""
    from core.nlp import SpacyPipeline
    from memory.facts.extraction import RuleFactExtractor
    from memory.facts.grammar import GrammarFactExtractor
    from memory.facts.object_types import ObjectTypes

    nlp = SpacyPipeline()
    return {
        "rules": RuleFactExtractor(),
        "grammar": GrammarFactExtractor(nlp, rules=False),
        "grammar+rules": GrammarFactExtractor(nlp),
        "+type gate": TypeGated(GrammarFactExtractor(nlp), ObjectTypes(nlp)),
    }


def ms_per_message(work: Callable[[str], object], texts: Sequence[str]) -> tuple[float, float]:
    """p50 and p95 milliseconds of `work` per text (after one warm-up call: the model is loaded)."""
    work("warm up: I live in Denver.")
    times = []
    for text in texts:
        start = time.perf_counter()
        work(text)
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times), statistics.quantiles(times, n=20)[-1]


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|we|our)\b", re.I)


def first_person_statements(path: Path) -> list[str]:
    """The sentences of a LoCoMo file's turns that speak of the speaker and do not ask."""
    from eval.benchmarks.locomo import sessions_in_order
    from memory.facts.extraction_clauses import split_sentences

    sentences = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        for _, turns in sessions_in_order(sample["conversation"]):
            for turn in turns:
                sentences += [
                    s
                    for s in split_sentences(str(turn.get("text", "")))
                    if _FIRST_PERSON.search(s) and not s.rstrip().endswith("?")
                ]
    return sentences


def coverage(extractor: FactExtractor, sentences: Sequence[str]) -> float:
    """The share of `sentences` from which `extractor` reads at least one fact."""
    return sum(bool(extractor.extract(s)) for s in sentences) / max(len(sentences), 1)


def _locomo(path: Path, readers: dict[str, FactExtractor], sample: int) -> None:
    sentences = first_person_statements(path)
    shares = ", ".join(
        f"{name} {coverage(readers[name], sentences):.1%}" for name in ("rules", "grammar+rules")
    )
    print(f"\n{len(sentences)} first-person statements in {path.name}; with at least one fact: {shares}")
    read = [(s, facts) for s in sentences if (facts := readers["grammar+rules"].extract(s))]
    for sentence, facts in random.Random(7).sample(read, min(sample, len(read))):
        shown = "; ".join(
            f"{f.subject} {f.predicate}{' (not)' if f.negated else ''} {f.object}" for f in facts
        )
        print(f"- {sentence}\n    -> {shown}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="labelled YAML files (default: every set)")
    parser.add_argument("--locomo", type=Path, help="a LoCoMo JSON file: first-person statements with facts")
    parser.add_argument("--sample", type=int, default=0, help="with --locomo: print N statements and facts")
    args = parser.parse_args(argv)
    paths = args.files or [p for name in SETS if (p := DATA / f"facts_{name}.yaml").exists()]
    readers = extractors()
    print("| set | " + " | ".join(f"{name} P / R" for name in readers) + " |")
    print("|---|" + "---|" * len(readers))
    for path in paths:
        cells = [f"{p:.2f} / {r:.2f}" for p, r in (precision_recall(e, path) for e in readers.values())]
        print(f"| {path.stem.removeprefix('facts_')} | " + " | ".join(cells) + " |")
    from core.nlp import SpacyPipeline

    texts = [str(item["text"]) for path in paths for item in load_items(path)]
    parse = SpacyPipeline()
    timed = {"spaCy parse alone": parse.__call__, **{name: e.extract for name, e in readers.items()}}
    speed = ", ".join(
        f"{name} {p50:.2f} / {p95:.2f} ms"
        for name, (p50, p95) in ((n, ms_per_message(w, texts)) for n, w in timed.items())
    )
    print(f"\nper message, p50 / p95: {speed}")
    if args.locomo:
        _locomo(args.locomo, readers, args.sample)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
