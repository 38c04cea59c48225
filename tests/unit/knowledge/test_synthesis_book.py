"""The synthesis book: what it keeps of each reading, the blind audit, convergence and the auto-halt."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import UserInputError
from knowledge.synthesis.book import Grade, SynthesisBook
from knowledge.synthesis.candidate import Candidate, Endpoint, Reading, StageResult

GOOD = Grade(sensible=True, real_link=True, new_to_me=True, rating=4)
OBVIOUS = Grade(sensible=True, real_link=True, new_to_me=False, rating=4)
DULL = Grade(sensible=True, real_link=True, new_to_me=True, rating=2)


def candidate(n: int, generator: str = "retrieval") -> Candidate:
    return Candidate(
        Endpoint(f"left idea {n}", f"a{n}"), Endpoint(f"right idea {n}", f"b{n}"), f"bridge {n}", generator
    )


def passed(n: int, generator: str = "retrieval") -> Reading:
    stages = [StageResult(s, True, 0.5, "ok") for s in ("text_sanity", "coherence", "composite")]
    return Reading(candidate(n, generator), stages, "passed", ("music", "money and finance"), 0.7)


@pytest.fixture
def book(tmp_path: Path):
    clock = iter(range(1_000, 100_000))
    opened = SynthesisBook(tmp_path / "synthesis.sqlite3", clock=lambda: float(next(clock)))
    yield opened
    opened.close()


def test_readings_are_kept_with_their_status_and_the_stage_that_stopped_them(book: SynthesisBook) -> None:
    rejected = Reading(
        candidate(2), [StageResult("domain_crossing", False, 1.0, "both in music")], "rejected"
    )
    waiting = Reading(candidate(3), [StageResult("internal_novelty", True, 0.1, "new")], "waiting")
    assert book.record("run-1", [passed(1), rejected, waiting]) == 3
    stopped = book.get(candidate(2).id)
    assert stopped.status == "rejected" and stopped.rejected_at == "domain_crossing"
    assert stopped.stages[0].figure == 1.0 and stopped.stages[0].note == "both in music"
    assert [c.id for c in book.candidates("waiting")] == [candidate(3).id]
    assert book.stats()["rejected_by_stage"] == {"domain_crossing": 1}


def test_the_audit_is_blind(book: SynthesisBook) -> None:
    book.record("run-1", [passed(1, "graph_walk")])
    shown = book.next_for_audit()
    assert shown is not None
    blind = shown.to_json(blind=True)
    assert "generator" not in blind and "via" not in blind and "stages" not in blind
    assert blind["bridge"] == "bridge 1"
    assert shown.to_json()["generator"] == "graph_walk"


def test_a_grade_accepts_or_declines_and_a_second_grade_is_refused(book: SynthesisBook) -> None:
    book.record("run-1", [passed(1), passed(2)])
    assert book.grade(candidate(1).id, GOOD).status == "accepted"
    assert book.grade(candidate(2).id, OBVIOUS).status == "declined"
    assert [c.id for c in book.unkept()] == [candidate(1).id]
    with pytest.raises(UserInputError, match="not waiting for a review"):
        book.grade(candidate(1).id, GOOD)
    with pytest.raises(UserInputError, match="1 to 5"):
        book.grade(candidate(2).id, Grade(True, True, True, 7))


def test_a_duplicate_from_another_generator_counts_as_convergence(book: SynthesisBook) -> None:
    book.record("run-1", [passed(1, "retrieval")])
    again = Reading(candidate(9, "graph_walk"), [], "duplicate", duplicate_of=candidate(1).id)
    same = Reading(candidate(8, "retrieval"), [], "duplicate", duplicate_of=candidate(1).id)
    assert book.record("run-2", [again, same]) == 0
    stored = book.get(candidate(1).id)
    assert stored.convergence == 2 and stored.generators == ("retrieval", "graph_walk")


def test_runs_halt_when_more_than_half_of_at_least_ten_grades_are_false_positives(
    book: SynthesisBook,
) -> None:
    book.record("run-1", [passed(n) for n in range(12)])
    for n in range(4):
        book.grade(candidate(n).id, GOOD)
    for n in range(4, 9):
        book.grade(candidate(n).id, DULL)
    assert not book.halt().halted  # 5 of 9: too few grades to judge
    book.grade(candidate(9).id, OBVIOUS)
    halt = book.halt()
    assert halt.halted and halt.grades == 10 and halt.false_positives == 6
    assert "6 of the last 10" in halt.reason
    book.grade(candidate(10).id, GOOD)
    assert book.halt().halted  # stays halted until the user resumes
    book.resume()
    assert not book.halt().halted and book.halt().grades == 0


def test_exactly_half_false_positives_does_not_halt(book: SynthesisBook) -> None:
    book.record("run-1", [passed(n) for n in range(10)])
    for n in range(10):
        book.grade(candidate(n).id, GOOD if n % 2 else DULL)
    assert not book.halt().halted


def test_a_purge_destroys_candidates_built_on_or_quoting_what_was_purged(book: SynthesisBook) -> None:
    quoting = Candidate(
        Endpoint("We met at the lighthouse cafe in Porthleven.", "x1"), Endpoint("right idea", "y1"), "b", "r"
    )
    book.record("run-1", [passed(1), passed(2), Reading(quoting, [], "waiting")])
    book.grade(candidate(1).id, GOOD)
    removed = book.purge({"a1"}, ["we met at the Lighthouse Cafe in Porthleven."])
    assert set(removed) == {candidate(1).id, quoting.id}
    assert [c.id for c in book.candidates()] == [candidate(2).id]
    assert book.stats()["grades"] == 0
