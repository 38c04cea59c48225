"""`kill -9` at named points inside a turn, each in its own `ask` process on one data folder, then a restart.

Each process wraps one function so that it SIGKILLs itself at the worst moment: after the user's text is
committed and before the model answers (`begin`), at the first streamed words (`stream`), right after the
answer is committed and before anything is remembered (`commit`), after the `conversations` write and
before the journal marks the turn indexed (`upsert`), and mid graph save, the new file written and not yet
renamed over the old one (`graph`). After a normal turn and a restart: what the user wrote is in the
journal exactly once, every answered turn is in memory exactly once, the killed ones wait as `interrupted`,
the knowledge graph loads whole, and the fact the killed graph save carried is in it (replayed from the
fact store at the next start).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
KILLER = """
import os, signal, sys
point, config, message = sys.argv[1:4]

def die():
    os.kill(os.getpid(), signal.SIGKILL)

import memory.journal as journal
if point == "begin":
    begin = journal.Journal.begin_turn
    def begin_turn(self, *args, **kwargs):
        turn_id = begin(self, *args, **kwargs)
        die()
    journal.Journal.begin_turn = begin_turn
elif point == "commit":
    complete = journal.Journal.complete_turn
    def complete_turn(self, *args, **kwargs):
        turn = complete(self, *args, **kwargs)
        die()
    journal.Journal.complete_turn = complete_turn
elif point == "upsert":
    begin, mark = journal.Journal.begin_turn, journal.Journal.mark_indexed
    this_turn = []
    def begin_turn(self, *args, **kwargs):
        this_turn.append(begin(self, *args, **kwargs))
        return this_turn[-1]
    def mark_indexed(self, turn_ids):
        if set(this_turn) & set(turn_ids):  # not the start-up repair of earlier turns: this turn's
            die()  # its conversations record is written; the journal has not marked it
        return mark(self, turn_ids)
    journal.Journal.begin_turn, journal.Journal.mark_indexed = begin_turn, mark_indexed
elif point == "stream":
    import core.orchestrator as orchestrator
    from core.events import TextDelta
    unmarked = orchestrator.without_markup
    def without_markup(*args, **kwargs):
        async def run():
            async for event in unmarked(*args, **kwargs):
                if isinstance(event, TextDelta):
                    die()
                yield event
        return run()
    orchestrator.without_markup = without_markup
elif point == "graph":
    import core.durable as durable
    replace = os.replace
    class Os:
        def __getattr__(self, name):
            return getattr(os, name)
        @staticmethod
        def replace(source, target):
            if str(target).endswith("knowledge_graph.json"):
                die()  # the new version is written and synced beside the old one, not yet renamed
            return replace(source, target)
    durable.os = Os()
import main
sys.exit(main.main(["--config", config, "ask", message, "--json"]))
"""
KILLED = {
    "begin": "Kill after begin: the first note.",
    "stream": "Kill mid-stream: the second note.",
    "commit": "Kill after the commit: the third note.",
    "upsert": "Kill after the upsert: the fourth note.",
    "graph": "My brother Rui lives in Lisbon.",
}

pytestmark = pytest.mark.slow


def test_a_turn_killed_at_each_named_point_loses_nothing_and_doubles_nothing(tmp_path: Path) -> None:
    data, config = tmp_path / "data", tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}

    def daemon(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(ROOT / "main.py"), "--config", str(config), *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)

    first = daemon("ask", "My sister Ana lives in Porto.", "--json")
    assert first.returncode == 0, first.stderr[-2000:]
    graph_before = (data / "knowledge_graph.json").read_bytes()
    for point, message in KILLED.items():
        killed = subprocess.run(
            [sys.executable, "-c", KILLER, point, str(config), message],
            capture_output=True,
            text=True,
            env={**env, "PYTHONPATH": str(ROOT)},
            cwd=tmp_path,
            timeout=300,
        )
        assert killed.returncode == -9, (point, killed.returncode, killed.stderr[-2000:])
        if point == "graph":  # killed between writing the new version and renaming it
            assert (data / "knowledge_graph.json").read_bytes() == graph_before
    last = daemon("ask", "Where does Ana live?", "--json")
    assert last.returncode == 0, last.stderr[-2000:]
    stats = daemon("memory", "stats", "--json")
    assert stats.returncode == 0, stats.stderr[-2000:]

    journal = Journal(data / "journal.sqlite3")
    try:
        turns = list(journal.turns())
    finally:
        journal.close()
    said = [t.user for t in turns]
    wrote = ["My sister Ana lives in Porto.", *KILLED.values(), "Where does Ana live?"]
    assert sorted(said) == sorted(wrote)  # each message once: none lost, none doubled
    status = {t.user: t.status for t in turns}
    assert status[KILLED["begin"]] == status[KILLED["stream"]] == "interrupted"  # kept, offered again
    for text in (wrote[0], KILLED["commit"], KILLED["upsert"], KILLED["graph"], wrote[-1]):
        assert status[text] == "complete", text

    from memory.chroma_store import ChromaStore
    from memory.collections import COLLECTIONS
    from memory.embeddings import MiniLMEmbedder

    store = ChromaStore.embedded(data / "chroma", MiniLMEmbedder())
    store.ensure_collections(COLLECTIONS)
    try:
        for turn in turns:
            copies = store.get("conversations", where={"turn_id": turn.turn_id})
            assert len(copies) == (1 if turn.status == "complete" else 0), (turn.user, turn.status)
    finally:
        store.close()
    assert json.loads(stats.stdout)["collections"]["conversations"] == 5

    from knowledge.graph_store import GraphStore

    graph = GraphStore(data / "knowledge_graph.json").load()  # whole: loads without falling back
    assert graph.find("Ana") is not None and graph.find("Porto") is not None
    # The fact the killed save carried was stored first: the next start replayed it into the graph.
    assert graph.find("Rui") is not None and graph.find("Lisbon") is not None
    assert not list(data.glob(".knowledge_graph.json.*.tmp"))  # the killed save's partial copy is gone
