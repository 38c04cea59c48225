"""The synthesis book: candidates, their stage readings, the blind audit and the halt, in
`synthesis.sqlite3` in the data dir.

A candidate's status: `queued` (passed all seven stages, waiting for the user's audit), `waiting` (passed
the offline stages, no judge has read it yet), `rejected` (with the stage and figure that stopped it),
`accepted` or `declined` (graded). Rejections are kept: `synthesis show` explains any candidate, and the
statistics are computed from them.

An accepted candidate is kept in memory (`synthesis_results`) by the engine; one graded where memory was
not open is kept at the engine's next start (`kept_at` says when).

The audit is blind: what it returns for review has no generator. A grade is three yes/no screens and a 1-5
rating; a "no" anywhere or a rating of 1-2 is a false positive. When at least `halt_after` grades since the
last resume have a false-positive rate above `halt_rate`, the book halts: runs refuse until the user resumes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from core.sqlite_db import DurableDB, Migration
from knowledge.synthesis.candidate import Candidate, Endpoint, Reading, StageResult

SYNTHESIS_FILE = "synthesis.sqlite3"
MIGRATIONS: tuple[Migration, ...] = (
    (
        "synthesis_001",
        """
        CREATE TABLE candidates (
            id TEXT PRIMARY KEY, created_at REAL NOT NULL, run_id TEXT NOT NULL, generator TEXT NOT NULL,
            left_end TEXT NOT NULL, right_end TEXT NOT NULL, bridge TEXT NOT NULL, via TEXT NOT NULL,
            domains TEXT NOT NULL, stages TEXT NOT NULL, status TEXT NOT NULL, rejected_at TEXT,
            composite REAL, convergence INTEGER NOT NULL, generators TEXT NOT NULL, kept_at REAL
        );
        CREATE INDEX candidates_status ON candidates (status, created_at);
        CREATE TABLE grades (
            candidate_id TEXT NOT NULL REFERENCES candidates (id), graded_at REAL NOT NULL,
            sensible INTEGER NOT NULL, real_link INTEGER NOT NULL, new_to_me INTEGER NOT NULL,
            rating INTEGER NOT NULL, false_positive INTEGER NOT NULL
        );
        CREATE TABLE runs (
            id TEXT PRIMARY KEY, started_at REAL NOT NULL, finished_at REAL, report TEXT
        );
        CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL)
        """,
    ),
)
_COLUMNS = (
    "id, created_at, generator, left_end, right_end, bridge, via, domains, stages, status, rejected_at, "
    "composite, convergence, generators"
)
SCREENS = (
    ("sensible", "Do both ideas make sense as they are written?"),
    ("real_link", "Is the link between them real, not a play on words?"),
    ("new_to_me", "Is it new to you: not something you already knew or would have said yourself?"),
)
RATING_QUESTION = "How much is it worth your attention? (1 = not at all, 5 = very much)"


@dataclass(frozen=True)
class StoredCandidate:
    """A candidate as the book holds it."""

    id: str
    created_at: float
    generator: str
    left: Endpoint
    right: Endpoint
    bridge: str
    via: str
    domains: tuple[str, ...]
    stages: tuple[StageResult, ...]
    status: str
    rejected_at: str
    composite: float | None
    convergence: int
    generators: tuple[str, ...]
    rating: int | None = None  # the user's 1-5 rating once graded

    @property
    def grade(self) -> str:
        return f"{self.rating}/5" if self.rating is not None else ""

    def to_json(self, *, blind: bool = False) -> dict[str, Any]:
        """The candidate as JSON; `blind` leaves out who generated it and how (for the audit)."""
        out: dict[str, Any] = {
            "id": self.id,
            "created_at": self.created_at,
            "left": self.left.to_json(),
            "right": self.right.to_json(),
            "bridge": self.bridge,
            "status": self.status,
        }
        if blind:
            return out
        out |= {
            "generator": self.generator,
            "generators": list(self.generators),
            "via": self.via,
            "domains": list(self.domains),
            "stages": [s.to_json() for s in self.stages],
            "rejected_at": self.rejected_at or None,
            "composite": self.composite,
            "convergence": self.convergence,
            "rating": self.rating,
        }
        return out


@dataclass(frozen=True)
class Grade:
    """The user's audit of one candidate."""

    sensible: bool
    real_link: bool
    new_to_me: bool
    rating: int

    @classmethod
    def of(cls, screens: Sequence[bool], rating: int) -> Grade:
        """A grade from the three screens' answers in `SCREENS` order and the rating."""
        if len(screens) != len(SCREENS):
            raise UserInputError(f"a review answers {len(SCREENS)} questions, not {len(screens)}")
        return cls(screens[0], screens[1], screens[2], rating)

    @property
    def false_positive(self) -> bool:
        return not (self.sensible and self.real_link and self.new_to_me) or self.rating <= 2


@dataclass(frozen=True)
class Halt:
    """Whether runs are halted, and the figures behind it."""

    halted: bool
    reason: str
    grades: int
    false_positives: int

    @property
    def rate(self) -> float | None:
        return self.false_positives / self.grades if self.grades else None


class SynthesisBook:
    """Candidates, grades and the halt state in one SQLite file."""

    def __init__(
        self,
        path: Path,
        *,
        halt_after: int = 10,
        halt_rate: float = 0.5,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = DurableDB(path, MIGRATIONS, what="synthesis book")
        self._halt_after = halt_after
        self._halt_rate = halt_rate
        self._clock = clock

    # --- candidates ---------------------------------------------------------------------------------------
    def record(self, run_id: str, readings: Sequence[Reading]) -> int:
        """Store the readings of a run (a duplicate adds its generator to the earlier candidate's
        convergence instead); returns how many new candidates were stored."""
        now, stored = self._clock(), 0
        with self._db.write() as db:
            for reading in readings:
                c = reading.candidate
                if reading.outcome == "duplicate":
                    self._converge(db, reading.duplicate_of, c.generator)
                    continue
                status = {"passed": "queued", "waiting": "waiting"}.get(reading.outcome, "rejected")
                cursor = db.execute(
                    f"INSERT OR IGNORE INTO candidates ({_COLUMNS}, run_id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        c.id,
                        now,
                        c.generator,
                        json.dumps(c.left.to_json()),
                        json.dumps(c.right.to_json()),
                        c.bridge,
                        c.via,
                        json.dumps(list(reading.domains)),
                        json.dumps([s.to_json() for s in reading.stages]),
                        status,
                        reading.rejected_at or None,
                        reading.composite,
                        1,
                        json.dumps([c.generator]),
                        run_id,
                    ),
                )
                stored += cursor.rowcount
        return stored

    @staticmethod
    def _converge(db: Any, candidate_id: str, generator: str) -> None:
        row = db.execute("SELECT generators FROM candidates WHERE id = ?", (candidate_id,)).fetchone()
        if row is None:
            return
        generators = json.loads(row[0])
        if generator in generators:
            return
        generators.append(generator)
        db.execute(
            "UPDATE candidates SET generators = ?, convergence = ? WHERE id = ?",
            (json.dumps(generators), len(generators), candidate_id),
        )

    def rejudged(self, reading: Reading) -> None:
        """A waiting candidate after the judge read it: queued, or rejected at the judge or composite."""
        status = (
            "queued"
            if reading.outcome == "passed"
            else "waiting"
            if reading.outcome == "waiting"
            else "rejected"
        )
        with self._db.write() as db:
            db.execute(
                "UPDATE candidates SET stages = ?, status = ?, rejected_at = ?, composite = ? "
                "WHERE id = ? AND status = 'waiting'",
                (
                    json.dumps([s.to_json() for s in reading.stages]),
                    status,
                    reading.rejected_at or None,
                    reading.composite,
                    reading.candidate.id,
                ),
            )

    def unkept(self) -> list[StoredCandidate]:
        """Accepted candidates not yet in memory (graded where memory was not open: `synthesis audit` beside
        a running Daemon)."""
        return self._select("WHERE status = 'accepted' AND kept_at IS NULL ORDER BY created_at")

    def mark_kept(self, candidate_id: str) -> None:
        with self._db.write() as db:
            db.execute("UPDATE candidates SET kept_at = ? WHERE id = ?", (self._clock(), candidate_id))

    def get(self, candidate_id: str) -> StoredCandidate:
        found = self._select("WHERE id = ?", (candidate_id.strip(),))
        if not found:
            raise UserInputError(f"no synthesis candidate {candidate_id!r}; `synthesis list` shows their ids")
        return found[0]

    def candidates(self, status: str | None = None, limit: int = 50) -> list[StoredCandidate]:
        """The newest candidates (of one status), newest first."""
        if status is None:
            return self._select("ORDER BY created_at DESC, id LIMIT ?", (limit,))
        return self._select("WHERE status = ? ORDER BY created_at DESC, id LIMIT ?", (status, limit))

    def earlier(self) -> list[StoredCandidate]:
        """Candidates that passed the internal-novelty stage once (what a new bridge must differ from)."""
        return self._select(
            "WHERE status != 'rejected' OR rejected_at IN ('coherence', 'composite') ORDER BY created_at"
        )

    def next_for_audit(self) -> StoredCandidate | None:
        """The oldest queued candidate (show it with `to_json(blind=True)`)."""
        found = self._select("WHERE status = 'queued' ORDER BY created_at, id LIMIT 1")
        return found[0] if found else None

    def _select(self, where: str, params: Sequence[Any] = ()) -> list[StoredCandidate]:
        rating = (
            "(SELECT rating FROM grades WHERE candidate_id = candidates.id ORDER BY graded_at DESC LIMIT 1)"
        )
        rows = self._db.rows(f"SELECT {_COLUMNS}, {rating} FROM candidates {where}", params)
        return [_stored(row) for row in rows]

    # --- the audit ------------------------------------------------------------------------------------------
    def grade(self, candidate_id: str, grade: Grade) -> StoredCandidate:
        """Record the user's grade of a queued candidate; it becomes accepted or declined (and the book may
        halt). Grading one that is not in the queue is refused."""
        if not 1 <= grade.rating <= 5:
            raise UserInputError("the rating is a whole number from 1 to 5")
        candidate = self.get(candidate_id)
        if candidate.status != "queued":
            raise UserInputError(f"candidate {candidate.id} is {candidate.status}, not waiting for a review")
        status = "declined" if grade.false_positive else "accepted"
        with self._db.write() as db:
            db.execute(
                "INSERT INTO grades VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    candidate.id,
                    self._clock(),
                    grade.sensible,
                    grade.real_link,
                    grade.new_to_me,
                    grade.rating,
                    grade.false_positive,
                ),
            )
            db.execute("UPDATE candidates SET status = ? WHERE id = ?", (status, candidate.id))
            halt = self._halt_figures(db)
            if halt.halted and self._state(db, "halted_at") is None:
                db.execute("INSERT OR REPLACE INTO state VALUES ('halted_at', ?)", (str(self._clock()),))
        return self.get(candidate.id)

    def halt(self) -> Halt:
        """Whether runs are halted: set when the false-positive rate of the grades since the last resume
        went above the limit, and kept until `resume`."""
        with self._db.write() as db:
            figures = self._halt_figures(db)
            halted = self._state(db, "halted_at") is not None
        return Halt(halted, figures.reason if halted else "", figures.grades, figures.false_positives)

    def resume(self) -> None:
        """Let runs go on; grades before now no longer count towards the halt."""
        with self._db.write() as db:
            db.execute("DELETE FROM state WHERE key = 'halted_at'")
            db.execute("INSERT OR REPLACE INTO state VALUES ('window_start', ?)", (str(self._clock()),))

    def _halt_figures(self, db: Any) -> Halt:
        since = float(self._state(db, "window_start") or 0.0)
        grades, false = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(false_positive), 0) FROM grades WHERE graded_at >= ?", (since,)
        ).fetchone()
        over = grades >= self._halt_after and false / grades > self._halt_rate
        reason = (
            f"{false} of the last {grades} reviewed connections were false positives "
            f"(more than {self._halt_rate:.0%}); generation is halted until you resume it"
        )
        return Halt(over, reason if over else "", grades, false)

    @staticmethod
    def _state(db: Any, key: str) -> str | None:
        row = db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # --- runs and statistics -----------------------------------------------------------------------------
    def start_run(self, run_id: str) -> None:
        with self._db.write() as db:
            db.execute("INSERT INTO runs VALUES (?, ?, NULL, NULL)", (run_id, self._clock()))

    def finish_run(self, run_id: str, report: dict[str, Any]) -> None:
        with self._db.write() as db:
            db.execute(
                "UPDATE runs SET finished_at = ?, report = ? WHERE id = ?",
                (self._clock(), json.dumps(report), run_id),
            )

    def stats(self) -> dict[str, Any]:
        """Counts by status, rejections by stage, grades and the halt, for `synthesis stats`."""
        by_status = dict(self._db.rows("SELECT status, COUNT(*) FROM candidates GROUP BY status"))
        by_stage = dict(
            self._db.rows(
                "SELECT rejected_at, COUNT(*) FROM candidates WHERE status = 'rejected' GROUP BY rejected_at"
            )
        )
        by_generator = dict(self._db.rows("SELECT generator, COUNT(*) FROM candidates GROUP BY generator"))
        converged = self._db.rows("SELECT COUNT(*) FROM candidates WHERE convergence > 1")[0][0]
        runs = self._db.rows("SELECT COUNT(*), MAX(finished_at) FROM runs WHERE finished_at IS NOT NULL")[0]
        graded = self._db.rows("SELECT COUNT(*), COALESCE(SUM(false_positive), 0), AVG(rating) FROM grades")[
            0
        ]
        halt = self.halt()
        return {
            "candidates": sum(by_status.values()),
            "by_status": {
                s: by_status.get(s, 0) for s in ("queued", "waiting", "rejected", "accepted", "declined")
            },
            "rejected_by_stage": by_stage,
            "by_generator": by_generator,
            "converged": converged,
            "runs": runs[0],
            "last_run_at": runs[1],
            "grades": graded[0],
            "false_positive_rate": round(graded[1] / graded[0], 4) if graded[0] else None,
            "mean_rating": round(graded[2], 2) if graded[2] is not None else None,
            "halted": halt.halted,
            "halt_reason": halt.reason or None,
        }

    def purge(self, record_ids: set[str], texts: Sequence[str]) -> list[str]:
        """Destroy (`purge`) every candidate built on a purged record (by its id) or quoting purged text,
        with its grades; then rewrite the file without free pages. The ids removed (an accepted one's
        record in `synthesis_results` goes with them)."""
        quoted = [t.strip().lower() for t in texts if len(t.strip()) >= 12]
        doomed = [
            c.id
            for c in self._select("")
            if {c.left.source_id, c.right.source_id} & record_ids
            or any(
                q in text
                for q in quoted
                for text in (c.left.text.lower(), c.right.text.lower(), c.bridge.lower())
            )
        ]
        if doomed:
            with self._db.write() as db:
                for candidate_id in doomed:
                    db.execute("DELETE FROM grades WHERE candidate_id = ?", (candidate_id,))
                    db.execute("DELETE FROM candidates WHERE id = ?", (candidate_id,))
            self._db.compact()
        return doomed

    def close(self) -> None:
        self._db.close()


def _stored(row: tuple[Any, ...]) -> StoredCandidate:
    (cid, created, generator, left, right, bridge, via, domains, stages, status, rejected_at, composite,
     convergence, generators, rating) = row  # fmt: skip
    return StoredCandidate(
        id=cid,
        created_at=created,
        generator=generator,
        left=Endpoint.from_json(json.loads(left)),
        right=Endpoint.from_json(json.loads(right)),
        bridge=bridge,
        via=via,
        domains=tuple(json.loads(domains)),
        stages=tuple(StageResult.from_json(s) for s in json.loads(stages)),
        status=status,
        rejected_at=rejected_at or "",
        composite=composite,
        convergence=convergence,
        generators=tuple(json.loads(generators)),
        rating=rating,
    )


def candidate_of(stored: StoredCandidate) -> Candidate:
    """The candidate behind a stored one (to judge a waiting candidate again)."""
    return Candidate(stored.left, stored.right, stored.bridge, stored.generator, stored.via)
