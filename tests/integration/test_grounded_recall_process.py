"""Issue 19's scenario through the CLI with the embedded model: facts told in one session, asked in a new
one (a new process). Every answer carries the right value and its citation marker, says it came from
memory, and a question about something never said gets the not-in-memory reply. Issue 31's two
conversations are among them: the tortoise's name (not the user's), and a job asked for in other words;
and no reply, the model's own included, shows the prompt's markup.

Slow: the embedded model answers the eight telling turns (about 3 minutes on 2 shared cores); the questions
are answered from memory, without it. The eval's objective checks run over every reply.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration.offline_cli import NEEDS_EMBEDDED_MODEL, objective_failures, run_main, stored

pytestmark = [pytest.mark.slow, pytest.mark.integration, NEEDS_EMBEDDED_MODEL]

TOLD = (
    "I work as a sound engineer at a studio called Bluefin Audio.",
    "My daughter is named Marisol.",
    "My favourite dish is mushroom risotto.",
    "My parrot is called Captain Biscuit.",
    "Last summer I went on a trip to Iceland with my wife.",
    "My brother lives in Lisbon.",
    "Our tortoise is called Sir Reginald and he's older than me.",  # issue 31: someone else's name
    "I've been a pharmacist at the Kelsey Street clinic for about eight years.",  # asked in other words
)
ASKED = (
    # told last, the clinic is the current employer (one employer at a time): the verified fact answers
    ("Where do I work?", "Kelsey Street clinic"),
    ("What is my daughter's name?", "Marisol"),
    ("What is my favourite dish?", "mushroom risotto"),
    ("What is my parrot called?", "Captain Biscuit"),
    ("Where did I go on my trip?", "Iceland"),
    ("Where does my brother live?", "Lisbon"),
    ("What's the tortoise's name?", "Sir Reginald"),
    ("What do I do for a living?", "pharmacist"),
)
NEVER_SAID = "What is my sister's name?"


def test_facts_told_in_one_session_are_answered_from_memory_with_their_marker_in_the_next(
    tmp_path: Path,
) -> None:
    telling = run_main("cli", tmp_path=tmp_path, stdin="\n".join([*TOLD, "/quit"]) + "\n")
    assert telling.returncode == 0, telling.stderr[-2000:]

    questions = [q for q, _ in ASKED] + [NEVER_SAID]
    asking = run_main("cli", tmp_path=tmp_path, stdin="\n".join([*questions, "/quit"]) + "\n")
    assert asking.returncode == 0, asking.stderr[-2000:]

    turns, facts = stored(tmp_path)
    replies = {t["user"]: t for t in turns if t["user"] in questions}
    assert len(replies) == len(questions)
    sessions = {t["session_id"] for t in turns if t["user"] in TOLD}
    assert sessions.isdisjoint({t["session_id"] for t in replies.values()})  # asked in a new session
    for question, value in ASKED:
        reply = replies[question]
        assert value.lower() in reply["assistant"].lower(), (question, reply["assistant"])
        # a numbered source: the turn it was told in, or its profile line when that turn was not recalled
        assert re.search(r"\[\d+\]$", reply["assistant"]), (question, reply["assistant"])
        assert reply["assistant"].startswith("You told me on "), (question, reply["assistant"])  # dated
        assert reply["model"].startswith("daemon-memory"), (question, reply["model"])
    said = "\n".join(t["user"] for t in turns)
    for turn in turns:  # the objective checks on every reply, the model's included
        failed = objective_failures(turn["assistant"], turn["user"], turn["model"], said, facts)
        assert not failed, (turn["assistant"], failed)
    never = replies[NEVER_SAID]
    assert never["assistant"].startswith("That's not in my memory"), never["assistant"]
    assert never["model"].startswith("daemon-memory")
