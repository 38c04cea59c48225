"""Changes of any kind supersede, through the terminal chat (`python main.py cli` reading stdin) and
`facts list --json`, offline: per-turn facts come from the grammar reader whatever model answers (the echo
provider here, to keep the test short)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_cli_process import echo_config, run_main

pytestmark = pytest.mark.integration

# Each pair: a statement, then a change told with another verb (issue 30's examples, and a label).
TOLD = (
    "I play the cello in a community orchestra.",
    "I no longer play the cello.",
    "I go rock climbing every weekend.",
    "I've stopped climbing since my knee injury.",
    "I'm a nurse at St Mary's hospital.",
    "I retired from nursing in June.",
    "I drive a red Toyota Corolla.",
    "I sold the Corolla and bought an electric bike instead.",
    "My sister moved to Denver.",
    "My sister relocated to Austin.",
    "Our cat is called Miso.",
    "Correction: the cat is called Mochi.",
)


def test_changes_told_with_other_verbs_supersede_what_was_current(tmp_path: Path) -> None:
    config = str(echo_config(tmp_path))
    chat = run_main("--config", config, "cli", tmp_path=tmp_path, stdin="\n".join([*TOLD, "/quit"]) + "\n")
    assert chat.returncode == 0, chat.stderr[-2000:]
    listed = json.loads(run_main("--config", config, "facts", "list", "--json", tmp_path=tmp_path).stdout)
    status = {(f["subject"], f["predicate"], f["object"]): f["status"] for f in listed["facts"]}
    current = {fact for fact, state in status.items() if state == "current"}
    assert status[("user", "plays", "cello")] == "superseded"
    assert status[("user", "goes_rock_climbing", "every weekend")] == "superseded"
    assert status[("user", "is_a", "nurse")] == "superseded"
    assert status[("user", "works_at", "St Mary's hospital")] == "superseded"
    assert status[("user", "owns", "red Toyota Corolla")] == "superseded"
    assert ("user", "owns", "electric bike") in current
    assert (status[("my sister", "lives_in", "Denver")], status[("my sister", "lives_in", "Austin")]) == (
        "superseded",
        "current",
    )
    cat = (status[("my cat", "named", "Miso")], status[("my cat", "named", "Mochi")])
    assert cat == ("superseded", "current")
    # nothing that ended is still current under any relation
    ended = ("cello", "climbing", "nurse", "Corolla", "Denver", "Miso")
    assert not [fact for fact in current if any(word in " ".join(fact) for word in ended)], current
