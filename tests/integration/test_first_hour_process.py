"""The first hour with no key, in the terminal: a new user introduces themselves, asks about themselves,
their cat (and a dog they never mentioned), what Daemon remembers, a recipe they added, the time, a sum and
a unit, and makes small talk. Every reply is right, cites a readable source where it rests on memory, and
passes the objective checks (no prompt markup, no raw marker, no name from nowhere, no one else's fact
handed to the user).

Slow: one terminal session with the embedded model (it answers only the two general messages).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.generation.direct_tools import DIRECT_MODEL
from tests.integration.offline_cli import NEEDS_EMBEDDED_MODEL, objective_failures, run_main, stored

pytestmark = [pytest.mark.slow, pytest.mark.integration, NEEDS_EMBEDDED_MODEL]

INTRO = (
    "Hi! I'm Maya Lindqvist. I work as a veterinary nurse, I live in Gothenburg, and I have a grey cat "
    "called Pepper."
)
RECIPE = """# Lemon drizzle cake

Serves 8.

## Ingredients

- 225 g unsalted butter, softened
- 225 g caster sugar
- 4 eggs
- 225 g self-raising flour

## Method

1. Heat the oven to 180°C (160°C fan).
2. Bake in a lined loaf tin for 45 to 50 minutes.
"""
# (message, what the reply must contain (a regular expression), whether it rests on memory)
WALK = (
    (INTRO, r"Maya.*veterinary nurse.*Gothenburg.*grey cat called Pepper", False),
    ("What's my name?", r"your name is Maya Lindqvist", True),
    ("What do I do for a living?", r"veterinary nurse", True),
    ("What is my cat's name?", r"Pepper", True),
    (
        "What is my dog's name?",
        r"^That's not in my memory: I found nothing you told me about your dog's name",
        False,
    ),
    ("Where do I live?", r"Gothenburg", True),
    (
        "What do you remember about me?",
        r"(?s)Maya Lindqvist.*Gothenburg.*veterinary nurse.*grey cat called Pepper",
        True,
    ),
    ("How much flour does the lemon drizzle cake need?", r"225 g self-raising flour", True),
    ("What time is it now?", r"^It's \d\d:\d\d on \w+day", False),
    ("What is 17.5% of 2480?", r"= 434$", False),
    ("How many kilometres is 10 miles?", r"16\.093 kilometres", False),
    ("hello there", r"^Hello, Maya!", False),
    ("What is the capital of France?", r"\S", False),  # general knowledge, the model's: no grounding check
)


def test_the_first_hour_with_no_key_answers_from_evidence_with_its_sources(tmp_path: Path) -> None:
    recipe = tmp_path / "lemon-drizzle-cake.md"
    recipe.write_text(RECIPE, encoding="utf-8")
    ingested = run_main("ingest", str(recipe), tmp_path=tmp_path)
    assert ingested.returncode == 0, ingested.stderr[-2000:]

    session = run_main("cli", tmp_path=tmp_path, stdin="\n".join([m for m, _, _ in WALK] + ["/quit"]) + "\n")
    assert session.returncode == 0, session.stderr[-2000:]
    assert "Saved the conversation." in session.stderr and "dedup_scan" not in session.stderr
    assert "DAEMON_PROVIDER" not in session.stdout + session.stderr  # the screens speak the user's language
    assert "model: SmolLM2 135M, built in" in session.stdout

    turns, facts = stored(tmp_path)
    replies = {t["user"]: t for t in turns}
    evidence = "\n".join([*(m for m, _, _ in WALK), RECIPE])
    failures = []
    for message, expected, from_memory in WALK:
        reply = replies[message]["assistant"]
        if not re.search(expected, reply):
            failures.append(f"{message!r} -> {reply!r} (expected {expected!r})")
        if from_memory and not re.search(r"\[\d+\]", reply):
            failures.append(f"{message!r} -> {reply!r} (no numbered source)")
        model = replies[message]["model"]
        grounds = reply if model == DIRECT_MODEL else evidence  # a tool's answer is its own evidence
        failed = objective_failures(reply, message, model, grounds, facts)
        failures += [f"{message!r} -> {reply!r}: {failure}" for failure in failed]
    assert not failures, "\n".join(failures)
    # each reply that rests on memory is followed by its sources, readable: the user's words or the file
    assert "Sources:\n[1] You told me: your name is Maya Lindqvist." in session.stdout
    assert "[1] lemon-drizzle-cake.md: " in session.stdout
    # the embedded model was offered no tool and answered none of the tool questions
    for message in ("What time is it now?", "What is 17.5% of 2480?", "How many kilometres is 10 miles?"):
        assert replies[message]["model"] == DIRECT_MODEL
