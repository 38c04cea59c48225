"""One running Daemon, many front ends, as a user meets it: `python main.py api` on a free port over a
temporary data dir with the echo provider, then `ask`, `history`, `facts`, `memory` and `cli` as separate
processes. They are answered by the running Daemon (the data dir's lock would refuse them otherwise), its
control files are private and its token required; once it is killed with SIGKILL the stale endpoint is
ignored and the commands run on their own, printing what they printed through it."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.test_api_process import Server, daemon_env, main_args, start

pytestmark = [pytest.mark.integration, pytest.mark.slow]
COMMAND_TIMEOUT_S = 240  # a command that runs on its own loads MiniLM on a busy 2-core machine


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start(tmp_path_factory.mktemp("attached"))
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait(timeout=60)


def run(server: Server, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        main_args(server.folder, *args),
        env=daemon_env(server.folder),
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        cwd=server.folder,
    )


def through(server: Server) -> str:
    return f"(through the running Daemon (api, pid {server.proc.pid}, port "


def data(server: Server) -> Path:
    return server.folder / "data"


def control_token(server: Server) -> str:
    return (data(server) / "daemon_token").read_text().strip()


def test_ask_is_answered_by_the_running_daemon_and_history_lists_it(server: Server) -> None:
    asked = run(server, "ask", "--json", "hello through the daemon")
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)  # one JSON object: the stderr note stays off stdout
    assert answer["answer"].strip() == "hello through the daemon" and answer["exit_reason"] == "answer"
    assert through(server) in asked.stderr  # the marker: no models were loaded in that process
    listed = run(server, "history", "--json", "--session", answer["session_id"])
    assert listed.returncode == 0, listed.stderr
    assert through(server) in listed.stderr
    turns = json.loads(listed.stdout)["turns"]
    assert [(t["turn_id"], t["user"], t["status"]) for t in turns] == [
        (answer["turn_id"], "hello through the daemon", "complete")
    ]


def test_facts_and_memory_answer_through_the_running_daemon(server: Server) -> None:
    told = run(server, "ask", "I live in Lyon")
    assert told.returncode == 0, told.stderr
    facts = run(server, "facts", "list", "--json")
    assert facts.returncode == 0 and through(server) in facts.stderr, facts.stderr
    assert any(f["object"] == "Lyon" for f in json.loads(facts.stdout)["facts"])
    found = run(server, "memory", "search", "Lyon", "--json")
    assert found.returncode == 0 and through(server) in found.stderr, found.stderr
    assert any("Lyon" in r["text"] for r in json.loads(found.stdout)["results"])
    stats = run(server, "memory", "stats", "--json")
    assert stats.returncode == 0 and json.loads(stats.stdout)["total"] >= 2
    refused = run(server, "memory", "search", "Lyon", "--intent", "bogus")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert "error: unknown intent 'bogus'" in refused.stderr


def test_the_repl_says_it_is_attached_and_answers(server: Server) -> None:
    session = run(server, "cli", stdin="typed in the repl\n/history\n/quit\n")
    assert session.returncode == 0, session.stderr
    assert f"Attached to the running Daemon (api, pid {server.proc.pid}, port " in session.stdout
    assert "daemon> typed in the repl" in session.stdout
    assert "you: typed in the repl" in session.stdout  # /history, through the daemon


def test_the_control_files_are_private_and_the_token_is_required(server: Server) -> None:
    for name in ("daemon_token", "daemon_endpoint.json"):
        assert stat.S_IMODE((data(server) / name).stat().st_mode) == 0o600
    endpoint = json.loads((data(server) / "daemon_endpoint.json").read_text())
    assert (endpoint["pid"], endpoint["kind"]) == (server.proc.pid, "api")
    health = f"http://127.0.0.1:{endpoint['port']}/daemon/v1/health"
    assert httpx.get(health).status_code == 401
    assert httpx.get(health, headers={"authorization": "Bearer wrong-token-0123456789"}).status_code == 401
    api_token = {"authorization": f"Bearer {server.token}"}
    assert httpx.get(health, headers=api_token).status_code == 401  # the API's token is not this one
    good = httpx.get(health, headers={"authorization": f"Bearer {control_token(server)}"})
    assert good.status_code == 200 and good.json()["pid"] == server.proc.pid
    models = f"http://127.0.0.1:{endpoint['port']}/v1/models"
    assert httpx.get(models, headers={"authorization": f"Bearer {control_token(server)}"}).status_code == 401


def test_after_sigkill_the_stale_endpoint_is_ignored_and_commands_run_alone(server: Server) -> None:
    # Last in this module: it ends the shared server.
    told = run(server, "ask", "--json", "before the kill")
    assert told.returncode == 0, told.stderr
    before = {args: run(server, *args) for args in (("history", "--json"), ("facts", "list", "--json"))}
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(timeout=60)
    assert (data(server) / "daemon_endpoint.json").exists()  # nobody removed it: stale
    for args, attached in before.items():
        alone = run(server, *args)
        assert alone.returncode == 0, alone.stderr
        assert "through the running Daemon" not in alone.stderr
        assert alone.stdout == attached.stdout  # the same output, whichever process served it
    asked = run(server, "ask", "--json", "after the kill")
    assert asked.returncode == 0, asked.stderr
    assert "through the running Daemon" not in asked.stderr
    assert json.loads(asked.stdout)["answer"].strip() == "after the kill"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_gui_serves_attached_front_ends_and_removes_its_files_on_exit(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    import time

    folder = tmp_path_factory.mktemp("attached-gui")
    gui = subprocess.Popen(
        main_args(folder, "gui", "--port", str(free_port())),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=daemon_env(folder),
        cwd=folder,
    )
    endpoint_file = folder / "data" / "daemon_endpoint.json"
    try:
        deadline = time.monotonic() + COMMAND_TIMEOUT_S  # a bound on waiting, not an assertion on speed
        while not endpoint_file.exists() and gui.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert endpoint_file.exists(), "the GUI did not publish its endpoint"
        asked = subprocess.run(
            main_args(folder, "ask", "--json", "hello through the gui"),
            env=daemon_env(folder),
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            cwd=folder,
        )
        assert asked.returncode == 0, asked.stderr
        assert f"(through the running Daemon (gui, pid {gui.pid}, port " in asked.stderr
        assert json.loads(asked.stdout)["answer"].strip() == "hello through the gui"
        gui.send_signal(signal.SIGTERM)  # a clean exit: session-end processing, then the files go
        gui.wait(timeout=COMMAND_TIMEOUT_S)
        assert not endpoint_file.exists() and not (folder / "data" / "daemon_token").exists()
    finally:
        if gui.poll() is None:
            gui.kill()
            gui.wait(timeout=60)
