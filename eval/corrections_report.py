"""Correction scenarios through the real fact store: does a change end the right facts and keep the rest?

    python -m eval.corrections_report                      # every tests/data/fact_corrections_*.yaml
    python -m eval.corrections_report FILE --show          # one file, each scenario that does not hold
    python -m eval.corrections_report --chat FILE [--show]  # corrections read in real chat (LoCoMo JSON or
                                                            # one utterance a line)

Each scenario's two messages (`first`, then `later`) go through the grammar reader, the verification gate
and the fact store, as a live turn's facts do with the embedded defaults. A scenario holds when every
`current` row is a current fact and no `superseded` row is; it holds strictly when each superseded row was
also stored and then superseded (not merely never read). Totals only unless `--show`: a set written to be
measured once is not read scenario by scenario.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core.ports import ExtractedFact, FactExtractor, TurnRecord
from core.relations import canonical_relation
from memory.facts.model import StoredFact
from memory.facts.updates import UpdateReader

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
Listed = dict[tuple[str, str, str], str]  # (subject, relation, object), lower case -> status


@dataclass(frozen=True)
class Scenario:
    """Two messages and what should be current, and no longer current, after both."""

    first: str
    later: str
    current: list[list[str]]
    superseded: list[list[str]]


def load_scenarios(path: Path) -> list[Scenario]:
    """The `scenarios` of a correction file."""
    rows: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))["scenarios"]
    return [Scenario(r["first"], r["later"], r["current"], r["superseded"]) for r in rows]


async def replay(
    reader: FactExtractor, folder: Path, first: str, later: str, updates: UpdateReader | None = None
) -> Listed:
    """Both messages through the fact service (store + verification, no model) in a fresh store."""
    from memory.facts.service import FactMemory
    from memory.facts.store import FactStore
    from memory.facts.verification import FactVerifier

    store = FactStore(folder / "facts.sqlite3")
    try:
        facts = FactMemory(store, FactVerifier(), updates=updates)
        for n, text in enumerate((first, later)):
            turn = TurnRecord(f"t{n}", "s", text, "ok", 1_700_000_000.0 + 60 * n)
            await facts.record(reader.extract(text), turn)
        return {(f.subject.lower(), f.predicate, f.object.lower()): f.status for f in facts.list_facts()}
    finally:
        store.close()


def status(listed: Listed, row: Sequence[str]) -> str | None:
    """A labelled row's status in the store, its relation named as the store names it."""
    relation, swapped = canonical_relation(str(row[1]))
    subject, obj = (row[2], row[0]) if swapped else (row[0], row[2])
    return listed.get((str(subject).lower(), relation, str(obj).lower()))


def holds(listed: Listed, scenario: Scenario, *, strict: bool = False) -> bool:
    """Every `current` row is current and no `superseded` row is (strict: each was stored, then ended)."""
    if any(status(listed, row) != "current" for row in scenario.current):
        return False
    ended = [status(listed, row) for row in scenario.superseded]
    return all(s is not None and s != "current" for s in ended) if strict else "current" not in ended


async def measure(
    reader: FactExtractor, path: Path, *, show: bool, updates: UpdateReader | None = None
) -> tuple[int, int, int]:
    """(held, held strictly, scenarios) for one file; with `show`, print each scenario that does not hold.
    `updates` reads each message against what is known as well, as the app does."""
    held = strict = 0
    scenarios = load_scenarios(path)
    for scenario in scenarios:
        with tempfile.TemporaryDirectory() as folder:
            listed = await replay(reader, Path(folder), scenario.first, scenario.later, updates)
        ok = holds(listed, scenario)
        held += ok
        strict += holds(listed, scenario, strict=True)
        if show and not ok:
            stored = "; ".join(f"{s} {r} {o} [{st}]" for (s, r, o), st in listed.items()) or "nothing"
            print(f"- {scenario.first!r}\n  then {scenario.later!r}\n  stored: {stored}")
            print(f"  wanted current {scenario.current}, superseded {scenario.superseded}")
    return held, strict, len(scenarios)


class TimedReader(UpdateReader):
    """The reader as the app runs it, keeping each message's time (ms) and what it read from it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.times: list[float] = []
        self.read_from: list[tuple[str, ExtractedFact]] = []

    def read(self, message: str, known: Sequence[StoredFact]) -> list[ExtractedFact]:
        start = time.perf_counter()
        found = super().read(message, known)
        self.times.append(1000 * (time.perf_counter() - start))
        self.read_from += [(message, fact) for fact in found]
        return found


def speakers_turns(path: Path) -> list[list[str]]:
    """Each speaker's turns, in order: per conversation and speaker of a LoCoMo JSON file; a text file is one
    speaker saying each of its lines."""
    import json

    from eval.benchmarks.locomo import sessions_in_order

    if path.suffix != ".json":
        return [[line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]]
    streams = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        sessions = sessions_in_order(conversation)
        for speaker in (conversation["speaker_a"], conversation["speaker_b"]):
            streams.append([t["text"] for _, session in sessions for t in session if t["speaker"] == speaker])
    return streams


async def chat_updates(reader: FactExtractor, updates: TimedReader, streams: Sequence[Sequence[str]]) -> int:
    """Each speaker's turns through the fact service with `updates`, as a live turn's facts go, each speaker's
    facts in a store of their own; the number of turns. What `updates` read in chat that tells few changes is
    most likely false."""
    from memory.facts.service import FactMemory
    from memory.facts.store import FactStore
    from memory.facts.verification import FactVerifier

    for said in streams:
        with tempfile.TemporaryDirectory() as folder:
            store = FactStore(Path(folder) / "facts.sqlite3")
            try:
                facts = FactMemory(store, FactVerifier(), updates=updates)
                for n, text in enumerate(said):
                    turn = TurnRecord(f"t{n}", "s", text, "ok", 1_700_000_000.0 + 60 * n)
                    await facts.record(reader.extract(text), turn)
            finally:
                store.close()
    return sum(len(said) for said in streams)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="correction YAML files (default: every set)")
    parser.add_argument("--show", action="store_true", help="print each scenario that does not hold")
    parser.add_argument(
        "--chat",
        type=Path,
        help="real chat, a LoCoMo JSON file or one utterance a line: count the corrections read in it",
    )
    args = parser.parse_args(argv)
    from core.nlp import SpacyPipeline
    from memory.embeddings import MiniLMEmbedder
    from memory.facts.grammar import GrammarFactExtractor

    nlp, embedder = SpacyPipeline(), MiniLMEmbedder(threads=1)
    reader, updates = GrammarFactExtractor(nlp), UpdateReader(nlp, embedder.embed)
    if args.chat:
        timed = TimedReader(nlp, embedder.embed)
        turns = asyncio.run(chat_updates(reader, timed, speakers_turns(args.chat)))
        for message, fact in timed.read_from if args.show else ():
            print(
                f"- {message!r}\n    -> {fact.subject} {fact.predicate} {fact.object} (was {fact.replaces})"
            )
        p50, p95 = statistics.median(timed.times), statistics.quantiles(timed.times, n=20)[-1]
        print(f"reading a turn against what is known: {p50:.1f} ms p50, {p95:.1f} ms p95")
        replaced = len(timed.read_from)
        print(
            f"{turns} turns of {args.chat.name}: {replaced} facts replaced by a correction read against"
            f" what is known ({1000 * replaced / max(turns, 1):.1f} per 1,000 turns)"
        )
        return 0
    paths = args.files or sorted(DATA.glob("fact_corrections_*.yaml"))
    print("| set | hold: extractor alone | hold: + corrections read against what is known (used) |")
    print("|---|---:|---:|")
    for path in paths:
        alone = asyncio.run(measure(reader, path, show=False))
        used = asyncio.run(measure(reader, path, show=args.show, updates=updates))
        name = path.stem.removeprefix("fact_corrections_")
        print(f"| {name} | {_figure(alone)} | {_figure(used)} |")
    return 0


def _figure(result: tuple[int, int, int]) -> str:
    held, strict, total = result
    return f"{held}/{total} (strictly {strict})"


if __name__ == "__main__":
    raise SystemExit(main())
