"""What `synthesis run|list|show|audit|stats` print, and the terminal's blind audit."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from core.errors import UserInputError
from knowledge.synthesis.book import RATING_QUESTION, SCREENS, Grade, StoredCandidate
from ui.shared.boundary import for_terminal as plain
from ui.shared.payloads import print_json


def show_report(report: dict[str, Any], *, as_json: bool) -> int:
    if as_json:
        print_json(report)
        return 0
    generated = ", ".join(f"{name} {g['candidates']}" for name, g in report["generated"].items()) or "none"
    print(f"synthesis run {report['run_id']} ({report['seconds']:.0f} s, {report['pool']} memories read)")
    print(f"candidates: {generated}")
    for stage in report["stages"]:
        print(f"  {stage['name']:<18} passed {stage['passed']:>4}  rejected {stage['rejected']:>4}")
    print(f"waiting for your review: {report['queued']} new   waiting for a judge: {report['waiting']}")
    for note in report["notes"]:
        print(f"note: {note}")
    if report["queued"]:
        print("review them: python main.py synthesis audit (or the GUI: Tasks → Connections)")
    return 0


def show_list(candidates: list[StoredCandidate], *, as_json: bool) -> int:
    if as_json:
        print_json({"candidates": [c.to_json() for c in candidates]})
        return 0
    if not candidates:
        print("no candidates (python main.py synthesis run finds some)")
    for c in candidates:
        where = f" at {c.rejected_at}" if c.rejected_at else ""
        print(f"{c.id}  {c.status}{where}  {plain(c.bridge)[:90]}")
    return 0


def show_candidate(candidate: StoredCandidate, *, as_json: bool) -> int:
    if as_json:
        print_json({"candidate": candidate.to_json()})
        return 0
    c = candidate
    print(f"{c.id}: {c.status}" + (f" (stopped at {c.rejected_at})" if c.rejected_at else ""))
    print(f"bridge: {plain(c.bridge)}")
    print(f"A ({c.domains[0] if c.domains else '?'}): {plain(c.left.text)}")
    print(f"B ({c.domains[1] if len(c.domains) > 1 else '?'}): {plain(c.right.text)}")
    print(
        f"found by: {', '.join(c.generators)} via {plain(c.via)}"
        + (f"; your rating {c.grade}" if c.grade else "")
    )
    for stage in c.stages:
        figure = "" if stage.figure is None else f" {stage.figure:.3f}"
        print(f"  {'pass' if stage.passed else 'FAIL'} {stage.stage:<18}{figure}  {plain(stage.note)}")
    return 0


def show_stats(stats: dict[str, Any], *, as_json: bool) -> int:
    if as_json:
        print_json(stats)
        return 0
    s = stats["by_status"]
    print(f"candidates: {stats['candidates']} ({', '.join(f'{k} {v}' for k, v in s.items())})")
    if stats["rejected_by_stage"]:
        print("rejected at: " + ", ".join(f"{k} {v}" for k, v in stats["rejected_by_stage"].items()))
    print(f"found again by another generator: {stats['converged']}   runs: {stats['runs']}")
    rate = stats["false_positive_rate"]
    print(f"reviews: {stats['grades']}" + (f", false positives {rate:.0%}" if rate is not None else ""))
    if stats["halted"]:
        print(f"HALTED: {stats['halt_reason']}")
    return 0


def read_answers(answers: str) -> tuple[bool, bool, bool]:
    """`yyn` → the three screens' answers."""
    cleaned = answers.strip().lower()
    if len(cleaned) != 3 or set(cleaned) - {"y", "n"}:
        raise UserInputError("--answers is three letters, y or n, one per screen (e.g. yyn)")
    first, second, third = (c == "y" for c in cleaned)
    return first, second, third


def show_graded(candidate: StoredCandidate, kept: bool, *, as_json: bool) -> int:
    if as_json:
        print_json({"candidate": candidate.to_json(blind=True), "kept": kept})
        return 0
    if candidate.status == "accepted":
        where = "kept in your memory" if kept else "kept in your memory at Daemon's next start"
        print(f"{candidate.id}: accepted ({candidate.grade}), {where}")
    else:
        print(f"{candidate.id}: declined ({candidate.grade}); it counts as a false positive")
    return 0


def show_next(candidate: StoredCandidate | None, waiting: int) -> int:
    """The next candidate for review, blind, with the questions, as one JSON object (`audit --json`)."""
    print_json(
        {
            "candidate": candidate.to_json(blind=True) if candidate else None,
            "queue": waiting,
            "screens": [{"key": k, "question": q} for k, q in SCREENS],
            "rating": RATING_QUESTION,
        }
    )
    return 0


def audit_interactively(
    queue: Callable[[], list[StoredCandidate]],
    grade: Callable[[str, Grade], tuple[StoredCandidate, bool]],
    *,
    ask: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> int:
    """Each queued candidate, blind: the two ideas and the bridge, three yes/no screens, a 1-5 rating.
    `s` skips one, `q` (or end of input) stops; nothing is graded without all four answers."""
    out = out or sys.stdout
    waiting = queue()
    if not waiting:
        print("nothing waits for your review", file=out)
        return 0
    graded = 0
    for index, candidate in enumerate(waiting, 1):
        print(f"\nConnection {index} of {len(waiting)}", file=out)
        print(f"  A: {plain(candidate.left.text)}", file=out)
        print(f"  B: {plain(candidate.right.text)}", file=out)
        print(f"  Bridge: {plain(candidate.bridge)}", file=out)
        answers: list[bool] = []
        for _, question in SCREENS:
            reply = _ask(ask, f"{question} [y/n, s skip, q quit] ", ("y", "n", "s", "q"))
            if reply in ("q", None):
                print(f"{graded} graded", file=out)
                return 0
            if reply == "s":
                break
            answers.append(reply == "y")
        if len(answers) < len(SCREENS):
            continue
        rating = _ask(ask, f"{RATING_QUESTION} ", ("1", "2", "3", "4", "5", "q"))
        if rating in ("q", None):
            print(f"{graded} graded", file=out)
            return 0
        result, kept = grade(candidate.id, Grade.of(answers, int(rating)))
        graded += 1
        status = "accepted, kept in your memory" if result.status == "accepted" else "declined"
        if result.status == "accepted" and not kept:
            status = "accepted, kept in your memory at Daemon's next start"
        print(f"  → {status}", file=out)
    print(f"{graded} graded", file=out)
    return 0


def _ask(ask: Callable[[str], str], prompt: str, allowed: tuple[str, ...]) -> str | None:
    while True:
        try:
            reply = ask(prompt).strip().lower()
        except EOFError:
            return None
        if reply in allowed:
            return reply
