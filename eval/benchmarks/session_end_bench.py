"""`bench session-end`: how long the eleven session-end steps take for an N-turn session, offline.

A fresh data dir gets an N-turn session written to its journal (a realistic mix: facts about the user and
their people, corrections, how-to questions answered with steps, unanswered questions, requests about
Daemon itself, small talk). Daemon then starts on it (the start-up repair indexes the turns: the baseline,
the same machine's cost of writing those turns to memory) and `session end` runs every step.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from core.ports import SessionLifecycle
from memory.journal import JOURNAL_FILE, Journal

_EXCHANGES = (
    ("I live in Boston and I work at Acme Robotics.", "Good to know you're in Boston."),
    ("My sister Jo lives in Denver.", "Noted: Jo is in Denver."),
    ("How do I reset my router?", "1. Unplug it\n2. Wait thirty seconds\n3. Plug it back in"),
    ("It would be nice if you could remind me about birthdays.", "I'll keep that in mind."),
    ("What was the name of the bakery I liked?", "I'm not sure, you didn't tell me."),
    ("I love hiking and jazz.", "Great combination."),
    ("Actually, I moved to Chicago last month.", "Got it, Chicago now."),
    ("My dog's name is Rex.", "Hello to Rex!"),
    ("I go to the gym every Monday.", "A good habit."),
    ("I want to learn Spanish this year.", "Let's plan it."),
    ("hey, how's it going?", "All good, thanks!"),
    ("Can you explain what a Python decorator is?", "A decorator wraps a function to extend it."),
    ("I'm feeling a bit stressed about work today.", "That sounds hard. Want to talk about it?"),
    ("My favourite food is sushi.", "Sushi it is."),
    ("Where did I say Jo lives?", "You said Denver."),
    ("Write me a short poem about autumn.", "Leaves let go, the light goes low."),
    ("What's left on the garden project?", "The fence and the herb bed."),
    ("I bought a new bike.", "Enjoy the rides!"),
    ("My mom lives in Lyon.", "Lyon is lovely."),
    ("thanks, that's all for now", "Anytime."),
)


class Built(Protocol):
    sessions: SessionLifecycle | None

    def close(self) -> None: ...


def seed(data_dir: Path, turns: int, start: float) -> str:
    """An N-turn session in a fresh journal, one minute apart."""
    journal = Journal(data_dir / JOURNAL_FILE, clock=_ticker(start))
    session = journal.new_session()
    for i in range(turns):
        user, answer = _EXCHANGES[i % len(_EXCHANGES)]
        journal.complete_turn(journal.begin_turn(session, user), answer)
    journal.close()
    return session


def _ticker(start: float) -> Callable[[], float]:
    state = {"now": start}

    def tick() -> float:
        state["now"] += 30.0
        return state["now"]

    return tick


def run_session_end_benchmark(build: Callable[[Path], Built], turns: int) -> dict[str, Any]:
    """Seed, start (timed: the baseline), end the session (timed, per step)."""
    with tempfile.TemporaryDirectory(prefix="daemon-bench-") as folder:
        data = Path(folder)
        session = seed(data, turns, time.time() - 3600.0)
        started = time.perf_counter()
        services = build(data)
        startup = time.perf_counter() - started
        try:
            assert services.sessions is not None
            began = time.perf_counter()
            report = asyncio.run(services.sessions.end(session))
            total = time.perf_counter() - began
        finally:
            services.close()
    steps = {
        s["name"]: {"status": s["status"], "seconds": s["seconds"], "result": s["result"]}
        for s in report["steps"]
    }
    return {
        "turns": turns,
        "session_end_s": round(total, 3),
        "steps": steps,
        "complete": report["complete"],
        "baseline": {"startup_with_indexing_s": round(startup, 3)},
    }
