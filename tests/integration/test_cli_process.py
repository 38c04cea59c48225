"""The CLI as a user runs it: real processes, real journal, a fake provider where no model is needed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "chromadb",
    "gradio",
    "spacy",
    "openai",
    "anthropic",
    "google",
    "llama_cpp",
    "pydantic",
    "yaml",
)
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"

pytestmark = pytest.mark.integration


def run_main(
    *args: str,
    tmp_path: Path,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), **(env or {})}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=tmp_path,
        input=stdin,
    )


def echo_config(tmp_path: Path) -> Path:
    path = tmp_path / "echo.yaml"
    path.write_text(ECHO_CONFIG)
    return path


def test_help_imports_no_heavy_package() -> None:
    code = (
        "import sys, main\n"
        "try:\n    main.main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "print('HEAVY', heavy, file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=30
    )
    assert "usage: main.py" in result.stdout
    assert "HEAVY []" in result.stderr


def test_ask_json_prints_exactly_one_object_with_the_contract_keys(tmp_path: Path) -> None:
    result = run_main(
        "--config", str(echo_config(tmp_path)), "ask", "hello there", "--json", tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)  # one object, nothing else on stdout
    for key in ("answer", "session_id", "turn_id", "model", "tool_calls", "citations", "usage"):
        assert key in payload
    assert payload["answer"].strip() == "hello there"
    history = run_main("--config", str(echo_config(tmp_path)), "history", "--json", tmp_path=tmp_path)
    turns = json.loads(history.stdout)["turns"]
    assert [(t["turn_id"], t["user"]) for t in turns] == [(payload["turn_id"], "hello there")]
    assert set(turns[0]) >= {"turn_id", "session_id", "user", "assistant", "created_at"}


def test_ask_continues_a_session(tmp_path: Path) -> None:
    config = str(echo_config(tmp_path))
    first = json.loads(run_main("--config", config, "ask", "one", "--json", tmp_path=tmp_path).stdout)
    second = json.loads(
        run_main(
            "--config", config, "ask", "two", "--session", first["session_id"], "--json", tmp_path=tmp_path
        ).stdout
    )
    assert second["session_id"] == first["session_id"]
    history = json.loads(
        run_main(
            "--config", config, "history", "--session", first["session_id"], "--json", tmp_path=tmp_path
        ).stdout
    )
    assert [t["user"] for t in history["turns"]] == ["one", "two"]


def test_bad_config_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("gui:\n  port: high\n")
    result = run_main("--config", str(bad), "history", tmp_path=tmp_path)
    assert result.returncode == 2
    assert "gui.port" in result.stderr and str(bad) in result.stderr
    assert "Traceback" not in result.stderr


def test_non_loopback_gui_without_auth_is_refused(tmp_path: Path) -> None:
    result = run_main("--config", str(echo_config(tmp_path)), "gui", "--host", "0.0.0.0", tmp_path=tmp_path)
    assert result.returncode == 2
    assert "DAEMON_GUI_AUTH" in result.stderr


def test_repl_commands_and_turns(tmp_path: Path) -> None:
    script = "/help\nfirst message\n/model\n/new\nsecond message\n/history\n/quit\n"
    result = run_main("--config", str(echo_config(tmp_path)), "cli", tmp_path=tmp_path, stdin=script)
    assert result.returncode == 0, result.stderr
    assert "/new" in result.stdout and "first message" in result.stdout
    assert "new session" in result.stdout
    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    turns = journal.turns()
    assert [t.user for t in turns] == ["first message", "second message"]
    assert turns[0].session_id != turns[1].session_id


@pytest.mark.slow
def test_acknowledged_turns_survive_kill_9(tmp_path: Path) -> None:
    """Feed the REPL a burst of turns, kill -9 it mid-burst: every answer it showed is in the journal."""
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), "--config", str(echo_config(tmp_path)), "cli"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write("".join(f"burst message {i}\n" for i in range(400)))
    proc.stdin.flush()
    acknowledged: list[str] = []
    deadline = time.monotonic() + 60
    while len(acknowledged) < 25 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "daemon> burst message" in line:
            acknowledged.append(line.split("daemon> ", 1)[1].strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert len(acknowledged) >= 25
    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    stored = {t.user: t for t in journal.turns()}
    for text in acknowledged:
        assert stored[text].status == "complete" and stored[text].assistant.strip() == text
    journal.close()
    # Restart: start-up repair copies every finished turn into `conversations`, each exactly once.
    restart = run_main("--config", str(echo_config(tmp_path)), "memory", "stats", "--json", tmp_path=tmp_path)
    assert restart.returncode == 0, restart.stderr[-2000:]
    from memory.chroma_store import ChromaStore
    from memory.collections import COLLECTIONS
    from memory.embeddings import MiniLMEmbedder

    store = ChromaStore.embedded(tmp_path / "data" / "chroma", MiniLMEmbedder())  # reads only: never loads
    store.ensure_collections(COLLECTIONS)
    try:
        for text in acknowledged:
            copies = store.get("conversations", where={"turn_id": stored[text].turn_id})
            assert len(copies) == 1, (text, copies)
        finished = [t for t in stored.values() if t.status in ("complete", "cancelled")]
        assert json.loads(restart.stdout)["collections"]["conversations"] == len(finished)
    finally:
        store.close()


@pytest.mark.slow
def test_ask_answers_from_the_embedded_model_with_no_key_and_no_network(tmp_path: Path) -> None:
    """The acceptance path: no provider configured, the bundled SmolLM2 answers through the whole stack."""
    question = "What is the capital of France?"  # general knowledge: the model's (a greeting is not)
    result = run_main("ask", question, "--json", tmp_path=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    payload = json.loads(result.stdout)
    assert payload["answer"].strip()
    assert payload["model"].startswith("smollm2")
    assert payload["tool_calls"] == []  # the tiny model is offered no tools
    assert payload["usage"]["output_tokens"] > 0 and payload["usage"]["cost_usd"] == 0.0
    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    assert [(t.user, t.status) for t in journal.turns()] == [(question, "complete")]
    # The model's tokenizer was saved on load: the next prompt counts real tokens.
    cached = tmp_path / "data" / "cache" / "local-tokenizer.json"
    if "llama_cpp" not in result.stderr:  # only the transformers backend has a tokenizer.json to save
        assert cached.is_file()
        from core.prompt.tokens import TokenizerCounter

        assert TokenizerCounter(cached).count("Hello there, Daemon!") > 3


def test_analyze_json_has_the_contract_keys_and_file_mode_keeps_order(tmp_path: Path) -> None:
    one = run_main(
        "analyze", "My sister Jo moved to Lisbon last May, when was that?", "--json", tmp_path=tmp_path
    )
    assert one.returncode == 0, one.stderr[-2000:]
    payload = json.loads(one.stdout)
    for key in ("intent", "confidence", "tone", "topics", "entities", "rewritten_query"):
        assert key in payload
    assert payload["tone"] in ("crisis", "elevated", "concern", "conversational")
    assert {"text": "Lisbon", "label": "GPE"} in payload["entities"]
    lines = tmp_path / "queries.txt"
    lines.write_text(
        "hello there!\nthe build fails with ModuleNotFoundError: numpy\nI feel so alone lately\n"
    )
    many = run_main("analyze", "--file", str(lines), "--json", tmp_path=tmp_path)
    results = json.loads(many.stdout)["results"]
    assert [r["intent"] for r in results] == ["casual_social", "technical_help", "emotional_support"]
    assert results[2]["tone"] != "conversational"


def test_analyze_needs_text_or_file(tmp_path: Path) -> None:
    result = run_main("analyze", "--json", tmp_path=tmp_path)
    assert result.returncode == 2 and "either a message or --file" in result.stderr


def test_facts_stated_in_a_turn_reach_the_persisted_knowledge_graph(tmp_path: Path) -> None:
    config = str(echo_config(tmp_path))
    said = run_main("--config", config, "ask", "My sister Jo moved to Denver last year.", tmp_path=tmp_path)
    assert said.returncode == 0, said.stderr
    graph_file = tmp_path / "data" / "knowledge_graph.json"
    saved = json.loads(graph_file.read_text(encoding="utf-8"))
    edges = {(e["source"], e["relation"], e["target"]) for e in saved["graph"]["edges"]}
    assert ("jo", "sister_of", "user") in edges
    assert ("jo", "lives_in", "denver") in edges
    # The next turn resolves "my sister" through the saved graph; any failure on that path is logged.
    asked = run_main("--config", config, "ask", "what is the weather like for my sister?", tmp_path=tmp_path)
    assert asked.returncode == 0 and "failed" not in asked.stderr, asked.stderr


@pytest.mark.slow
def test_state_confirm_correct_through_the_real_orchestrator(tmp_path: Path) -> None:
    """The truth-maintenance scenario: the old fact is kept as superseded, the new one is current, the
    summary written from the old fact is stale and labelled in the prompt, and the graph agrees."""
    config = str(echo_config(tmp_path))

    def daemon(*args: str) -> subprocess.CompletedProcess[str]:
        return run_main("--config", config, *args, tmp_path=tmp_path)

    session = json.loads(daemon("ask", "I live in Boston.", "--json").stdout)["session_id"]
    confirmed = daemon("ask", "Yes, I live in Boston.", "--session", session)
    assert confirmed.returncode == 0, confirmed.stderr
    ended = daemon("session", "end", "--session", session, "--json")
    steps = {s["name"]: s for s in json.loads(ended.stdout)["steps"]}
    assert steps["block_summaries"]["result"]["claims"] == 1  # the summary relies on the Boston fact
    corrected = daemon("ask", "Actually, I moved to Denver.")
    assert corrected.returncode == 0, corrected.stderr

    listed = json.loads(daemon("facts", "list", "--json").stdout)["facts"]
    facts = {(f["predicate"], f["object"]): f for f in listed}
    boston, denver = facts[("lives_in", "Boston")], facts[("lives_in", "Denver")]
    assert (boston["status"], denver["status"]) == ("superseded", "current")
    assert boston["superseded_by"] == denver["id"]
    assert set(boston) >= {"id", "subject", "predicate", "object", "status", "truth"}

    prompt = json.loads(daemon("prompt", "where do I live?", "--json", "--explain").stdout)
    summaries = [i for s in prompt["sections"] if "summaries" in s["key"] for i in s["items"]]
    assert summaries and all(i["text"].startswith("[HISTORICAL -- PARTIALLY OUTDATED]") for i in summaries)
    profile = next(s for s in prompt["sections"] if s["key"] == "user_profile")
    assert [i["text"] for i in profile["items"]] == ["location: The user lives in Denver."]
    relevant = next(s for s in prompt["sections"] if s["key"] == "relevant_information")
    recalled = [i["text"] for i in relevant["items"]]
    old = [text for text in recalled if "lives in Boston" in text]
    assert old and all(text.startswith("[NO LONGER TRUE]") for text in old), recalled
    assert prompt["sections"][-1]["key"] == "current_query" and prompt["total_tokens"] <= prompt["budget"]

    graph = json.loads((tmp_path / "data" / "knowledge_graph.json").read_text(encoding="utf-8"))["graph"]
    homes = {e["target"]: e.get("superseded", False) for e in graph["edges"] if e["relation"] == "lives_in"}
    assert homes == {"boston": True, "denver": False}

    # The same for someone else, named in their own sentence.
    assert daemon("ask", "My boyfriend Sam lives in Lisbon.").returncode == 0
    assert daemon("ask", "Actually, Sam moved to Porto last week.").returncode == 0
    listed = json.loads(daemon("facts", "list", "--json").stdout)["facts"]
    sams = {f["object"]: f["status"] for f in listed if (f["subject"], f["predicate"]) == ("Sam", "lives_in")}
    assert sams == {"Lisbon": "superseded", "Porto": "current"}


def test_history_reads_while_another_instance_owns_the_data_dir(tmp_path: Path) -> None:
    from memory.lock import DataDirLock

    config = str(echo_config(tmp_path))
    first = json.loads(run_main("--config", config, "ask", "one", "--json", tmp_path=tmp_path).stdout)
    with DataDirLock(tmp_path / "data"):  # the GUI or a REPL is running
        journal = Journal(tmp_path / "data" / "journal.sqlite3")
        journal.complete_turn(journal.begin_turn(first["session_id"], "two"), "2")
        history = run_main("--config", config, "history", "--json", tmp_path=tmp_path)
        assert history.returncode == 0, history.stderr
        assert [t["user"] for t in json.loads(history.stdout)["turns"]] == ["one", "two"]
        ask = run_main("--config", config, "ask", "three", "--json", tmp_path=tmp_path)
        assert ask.returncode != 0 and "in use by another Daemon instance" in ask.stderr
        journal.close()
