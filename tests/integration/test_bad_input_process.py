"""Bad input as an adversarial user types it (issue 18): real processes, a clear line, never a traceback.

Each test is one reproduction of the issue; docs/bad_input.md's table is these.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory.journal import Journal
from tests.unit.memory.journal_helpers import damaged_journal

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
BAD = b"bad \xff end"  # not UTF-8
STORED_BAD = "bad \ufffd end"
ESCAPES = "x\x1b]0;pwned\x07y\x1b[2Jz"  # retitle the window, clear the screen

pytestmark = pytest.mark.integration


def daemon(
    tmp_path: Path,
    *args: str | bytes,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    config: bool = True,
    timeout: float = 180,
) -> subprocess.CompletedProcess[bytes]:
    """`python main.py [--config echo.yaml] ARGS` with the data dir in tmp_path; output as bytes."""
    echo = tmp_path / "echo.yaml"
    echo.write_text(ECHO_CONFIG)
    full_env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), **(env or {})}
    head: list[str | bytes] = [sys.executable, str(ROOT / "main.py")]
    head += ["--config", str(echo)] if config else []
    return subprocess.run(
        [*head, *args], input=stdin, capture_output=True, env=full_env, cwd=tmp_path, timeout=timeout
    )


def script(
    tmp_path: Path, code: str, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `code` (which patches something, then calls main.main) in a process like `daemon`."""
    (tmp_path / "echo.yaml").write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "echo.yaml"), *args],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=180,
    )


def stored(tmp_path: Path) -> list[tuple[str, str, str]]:
    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    try:
        return [(t.user, t.assistant.strip(), t.status) for t in journal.turns()]
    finally:
        journal.close()


def clean(result: subprocess.CompletedProcess[bytes]) -> str:
    """stderr, after checking it holds no traceback."""
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    return err


# 1. Invalid UTF-8 and lone surrogates


def test_the_repl_survives_a_line_that_is_not_utf8(tmp_path: Path) -> None:
    result = daemon(tmp_path, "cli", stdin=b"first\n" + BAD + b"\nthird\n/quit\n")
    clean(result)
    assert result.returncode == 0
    assert [user for user, _, _ in stored(tmp_path)] == ["first", STORED_BAD, "third"]


def test_ask_and_session_with_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    result = daemon(tmp_path, "ask", BAD, "--session", b"s\xfe1", "--json")
    clean(result)
    assert result.returncode == 0
    payload = json.loads(result.stdout)
    assert payload["answer"].strip() == STORED_BAD and payload["session_id"] == "s\ufffd1"
    assert stored(tmp_path) == [(STORED_BAD, STORED_BAD, "complete")]
    listed = daemon(tmp_path, "history", "--session", b"s\xfe1", "--json")
    clean(listed)
    assert [t["user"] for t in json.loads(listed.stdout)["turns"]] == [STORED_BAD]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [("analyze", BAD, "--json"), ("prompt", BAD, "--json"), ("memory", "search", BAD, "--json")],
    ids=["analyze", "prompt", "memory-search"],
)
def test_commands_that_read_a_message_take_bytes_that_are_not_utf8(tmp_path: Path, args: tuple) -> None:
    result = daemon(tmp_path, *args)
    clean(result)
    assert result.returncode == 0
    json.loads(result.stdout)


def test_other_arguments_take_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    tool = daemon(tmp_path, "tool", "run", "calculator", "--args", b'{"expression": "1+\xff"}')
    assert tool.returncode == 1 and b"not a valid arithmetic expression" in tool.stdout, clean(tool)
    review = daemon(tmp_path, "review", "approve", b"x\xff")
    assert review.returncode == 2 and "no review item 'x\ufffd'" in clean(review)


def test_blank_and_invisible_messages_and_session_ids_are_refused(tmp_path: Path) -> None:
    for args in (("ask", "\u200b\u200d\ufeff"), ("ask", "   "), ("ask", "hi", "--session", "   ")):
        result = daemon(tmp_path, *args)
        err = clean(result)
        assert result.returncode == 2 and ("text is empty" in err or "cannot be blank" in err), err
    assert not (tmp_path / "data" / "journal.sqlite3").exists() or stored(tmp_path) == []


# 2. A damaged journal


def test_history_on_a_damaged_journal_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    damaged_journal(path)
    for command in ("history", "ask"):
        result = daemon(tmp_path, command, *(["hi"] if command == "ask" else []))
        err = clean(result)
        assert result.returncode == 1, err
        assert f"the journal at {path}" in err and "malformed" in err
        assert len(err.strip().splitlines()) == 1, err


# 3. A data dir that cannot be a directory


def test_a_data_dir_that_is_a_file_or_under_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    cases = ((blocker, "is a file, not a directory"), (blocker / "sub", "a part of that path is a file"))
    for path, says in cases:
        result = daemon(tmp_path, "--data-dir", str(path), "history")
        assert result.returncode == 2 and says in clean(result) and str(path) in clean(result)


def test_a_relative_data_dir_flag_is_relative_to_the_working_directory(tmp_path: Path) -> None:
    result = daemon(tmp_path, "--data-dir", "mine", "ask", "hello")
    assert result.returncode == 0, clean(result)
    assert (tmp_path / "mine" / "journal.sqlite3").is_file()


# 4. A config file that is not UTF-8


def test_a_config_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"models:\n  main: local\n# caf\xe9\n")
    result = daemon(tmp_path, "--config", str(bad), "history", config=False)
    err = clean(result)
    assert result.returncode == 2 and str(bad) in err and "not UTF-8" in err and "line 3" in err


# 5. Numbers and choices out of range


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("history", "--limit", "100000000000000000000"), "--limit: must be from 1"),
        (("history", "--limit", "0"), "--limit: must be from 1"),
        (("memory", "search", "hi", "--k", "0"), "--k: must be from 1"),
        (("memory", "search", "hi", "--k", "-5"), "--k: must be from 1"),
        (("prompt", "hi", "--budget", "99999999999999999999999"), "--budget: must be from 1"),
    ],
    ids=["huge-limit", "zero-limit", "zero-k", "negative-k", "huge-budget"],
)
def test_numbers_out_of_range_are_refused(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    result = daemon(tmp_path, *args)
    assert result.returncode == 2 and says in clean(result)


@pytest.mark.slow
def test_an_unknown_intent_or_collection_lists_the_valid_ones(tmp_path: Path) -> None:
    intent = daemon(tmp_path, "memory", "search", "hi", "--intent", "bogus")
    assert intent.returncode == 2 and "unknown intent 'bogus'" in clean(intent)
    assert "factual_recall" in clean(intent)
    collection = daemon(tmp_path, "memory", "search", "hi", "--collection", "bogus")
    assert collection.returncode == 2 and "conversations" in clean(collection)


# 6. A chosen provider without its key


def test_a_chosen_provider_without_its_key_is_named_at_once(tmp_path: Path) -> None:
    env = {"DAEMON_PROVIDER": "openai"}
    started = time.monotonic()
    asked = daemon(tmp_path, "ask", "hello", env=env, config=False)
    assert time.monotonic() - started < 30  # no retries, no fallback answer after a minute
    err = clean(asked)
    assert asked.returncode == 2 and "OPENAI_API_KEY is not set" in err and "DAEMON_PROVIDER" in err
    doctor = daemon(tmp_path, "doctor", env=env, config=False)
    lines = [line for line in doctor.stdout.decode().splitlines() if "providers" in line]
    assert doctor.returncode == 1 and lines[0].startswith("FAIL") and "OPENAI_API_KEY" in lines[0]


# 7. The data dir is private


def _modes(data: Path) -> dict[str, int]:
    return {str(p.relative_to(data)): stat.S_IMODE(p.stat().st_mode) for p in [data, *data.rglob("*")]}


@pytest.mark.slow
def test_the_data_dir_is_private_whatever_the_umask(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    (data / "personality.md").write_text("old file, world-readable")
    os.chmod(data / "personality.md", 0o644)
    doctor = daemon(tmp_path, "doctor")
    assert "warn  data privacy" in doctor.stdout.decode() and "personality.md" in doctor.stdout.decode()
    old = os.umask(0o022)
    try:
        assert daemon(tmp_path, "ask", "hello").returncode == 0
        assert daemon(tmp_path, "memory", "search", "hello").returncode == 0  # Chroma's files too
    finally:
        os.umask(old)
    modes = _modes(data)
    assert any(name.startswith("chroma/") for name in modes) and "journal.sqlite3" in modes
    loose = {name: oct(mode) for name, mode in modes.items() if mode & 0o077}
    assert not loose
    dirs = {name for name in modes if (data / name).is_dir()} | {"."}
    assert all(modes[name] == 0o700 for name in dirs if name in modes)
    assert all(modes[name] == 0o600 for name in modes if name not in dirs)
    assert "ok   data privacy" in daemon(tmp_path, "doctor").stdout.decode()


# 8. Terminal escape sequences


def test_escape_sequences_never_reach_the_terminal_but_are_stored_as_said(tmp_path: Path) -> None:
    asked = daemon(tmp_path, "ask", ESCAPES)
    assert asked.returncode == 0 and b"\x1b" not in asked.stdout and b"\x07" not in asked.stdout
    assert asked.stdout.decode().strip() == "xyz"
    listed = daemon(tmp_path, "history")
    assert b"\x1b" not in listed.stdout + listed.stderr and b"you: xyz" in listed.stdout
    as_json = daemon(tmp_path, "history", "--json")
    assert b"\x1b" not in as_json.stdout and json.loads(as_json.stdout)["turns"][0]["user"] == ESCAPES
    assert stored(tmp_path)[0][0] == ESCAPES


# 9. Smaller ones


def test_a_turn_cut_off_before_its_answer_is_said_so_and_offered_once(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    session = journal.new_session()
    journal.complete_turn(journal.begin_turn(session, "hello"), "hi")
    journal.begin_turn(session, "what is my sister's name?")  # the process dies here
    journal.close()
    listed = daemon(tmp_path, "history")
    assert b"no answer: Daemon stopped before answering" in listed.stdout, clean(listed)
    assert [status for *_, status in stored(tmp_path)] == ["complete", "interrupted"]


def test_the_next_prompt_sees_the_unanswered_message_once(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    session = journal.new_session()
    journal.complete_turn(journal.begin_turn(session, "hello"), "hi")
    journal.begin_turn(session, "what is my sister's name?")
    journal.close()
    code = (
        "import asyncio, sys\nfrom app.entry import main\n"
        "from ui.terminal import chat as cli\n"
        "def show(orchestrator, text, *, session_id, as_json):\n"
        "    prompt = asyncio.run(orchestrator.preview(text, session_id=session_id))\n"
        "    print('\\n'.join(m.content for m in prompt.messages()))\n"
        "    return cli.original(orchestrator, text, session_id=session_id, as_json=as_json)\n"
        "cli.original, cli.ask = cli.ask, show\n"
        "sys.exit(main(['--config', sys.argv[1], 'ask', sys.argv[2], '--session', sys.argv[3]]))\n"
    )
    first = script(tmp_path, code, "are you there?", session)
    assert first.returncode == 0, clean(first)
    assert "what is my sister's name?\n(Not answered: Daemon stopped" in first.stdout.decode()
    second = script(tmp_path, code, "and now?", session)
    assert "what is my sister's name?" not in second.stdout.decode()


def test_sigterm_during_ask_json_prints_a_cancelled_object(tmp_path: Path) -> None:
    code = (
        "import asyncio, sys\n"
        "from core.providers import fake\n"
        "async def slow(self, request):\n"
        "    yield fake.TextPart('partial ')\n"
        # The text passes through the agent loop and the orchestrator's tasks before `ask` holds it: let
        # those hand-offs (no work, only awaits) happen before telling the test the text was streamed.
        "    await asyncio.sleep(1)\n"
        "    print('STREAMING', file=sys.stderr, flush=True)\n"
        "    await asyncio.sleep(120)\n"
        "fake.EchoProvider.stream = slow\n"
        "from app.entry import main\n"
        "sys.exit(main(['--config', sys.argv[1], 'ask', 'hello', '--json']))\n"
    )
    (tmp_path / "echo.yaml").write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path / "echo.yaml")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
        text=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "STREAMING" not in proc.stderr.readline():
        pass
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    payload = json.loads(out)
    assert payload["exit_reason"] == "cancelled" and payload["answer"] == "partial "


def test_the_calculator_says_what_went_wrong_in_words(tmp_path: Path) -> None:
    huge = daemon(tmp_path, "tool", "run", "calculator", "--args", '{"expression": "10**5000"}', "--json")
    assert b"Exceeds the limit" not in huge.stdout + huge.stderr and b"5001 digits" in huge.stdout
    inf = daemon(tmp_path, "tool", "run", "calculator", "--args", '{"expression": "1e308*10"}')
    assert b"too large" in inf.stdout + inf.stderr and b"inf" not in inf.stdout


# The one top-level handler


def test_an_unexpected_error_is_one_line_that_names_the_log(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom app.entry import main\nfrom ui.terminal import chat as cli\n"
        "def boom(*args, **kwargs):\n    raise RuntimeError('something internal broke')\n"
        "cli.history = boom\n"
        "sys.exit(main(['--config', sys.argv[1], 'history']))\n"
    )
    result = script(tmp_path, code)
    err = clean(result)
    log = tmp_path / "data" / "daemon.log"
    assert result.returncode == 1
    assert err.strip() == (
        "error: `history` failed unexpectedly (RuntimeError: something internal broke); "
        f"the details are in {log}"
    )
    assert "Traceback" in log.read_text() and "something internal broke" in log.read_text()


def test_the_repl_survives_an_unexpected_error_in_one_turn(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom app.entry import main\nfrom ui.terminal import chat as cli\n"
        "original = cli.run_turn\n"
        "async def flaky(orchestrator, text, *args, **kwargs):\n"
        "    if text == 'explode':\n        raise RuntimeError('kaboom')\n"
        "    await original(orchestrator, text, *args, **kwargs)\n"
        "cli.run_turn = flaky\n"
        "sys.exit(main(['--config', sys.argv[1], 'cli']))\n"
    )
    result = script(tmp_path, code, stdin=b"before\nexplode\nafter\n/quit\n")
    err = clean(result)
    assert result.returncode == 0
    assert "this turn failed unexpectedly (RuntimeError: kaboom)" in err
    assert [user for user, _, _ in stored(tmp_path)] == ["before", "after"]
