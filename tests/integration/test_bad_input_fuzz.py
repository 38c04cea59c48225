"""Random bytes and Unicode through every command that reads a user's text, in real processes (issue 18).

Surrogates (bytes that are not UTF-8), right-to-left overrides, zero-width characters, control characters
and escape sequences, very long text: whatever comes in, a process prints no traceback and no escape
sequence, exits 0 or 2 (bad input) with a message, and every turn stored before it is unchanged.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memory.journal import Journal
from ui.shared.boundary import user_text

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
TRICKY = (
    "\u202eevil\u202c",
    "\u200b\u200d\u2060\ufeff",
    "x\x1b]0;pwned\x07y\x1b[2Jz",
    "\x1b[31mred\x1b[0m",
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "a\u0301\u0302\u0303",
    "\U0001f468\u200d\U0001f469",
    "\t\x0b\x0c\r",
    "\x7f\x85\x9b2J",
)
TEXT = st.one_of(
    st.binary(max_size=300),
    st.text(st.characters(codec="utf-8"), max_size=300).map(str.encode),
    st.lists(st.sampled_from(TRICKY), min_size=1, max_size=6).map(lambda parts: "".join(parts).encode()),
).map(lambda raw: raw.replace(b"\x00", b""))  # argv cannot carry NUL
LINE = TEXT.map(lambda raw: raw.replace(b"\n", b" ")).filter(
    lambda raw: not user_text(os.fsdecode(raw)).strip().startswith(("/quit", "/exit"))
)
# About 120 kB (argv takes at most 128 kB a string): 48,000 characters, every kind of trouble.
LONG = b"long \xff\xfe " + "\u202e\u200b\x1b[2J".encode() * 12_000
FUZZ = settings(
    deadline=None, database=None, print_blob=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class Daemon:
    """One data dir with a seeded conversation; runs main.py against it and checks what it stored."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "echo.yaml").write_text(ECHO_CONFIG)
        journal = Journal(folder / "data" / "journal.sqlite3")
        self.session = journal.new_session()
        for text in ("My sister Jo lives in Denver.", "remember the milk"):
            journal.complete_turn(journal.begin_turn(self.session, text), f"Noted: {text}")
        journal.close()

    def turns(self) -> dict[str, tuple[str, str, str]]:
        journal = Journal(self.folder / "data" / "journal.sqlite3", read_only=True)
        try:
            return {t.turn_id: (t.user, t.assistant, t.status) for t in journal.turns()}
        finally:
            journal.close()

    def run(self, *args: str | bytes, stdin: bytes | None = None, stores: bool = False) -> bytes:
        """Run one command; assert the contract; return its stdout."""
        before = self.turns()
        env = {**os.environ, "DAEMON_DATA_DIR": str(self.folder / "data")}
        command = [sys.executable, str(ROOT / "main.py"), "--config", str(self.folder / "echo.yaml"), *args]
        result = subprocess.run(
            command, input=stdin, capture_output=True, env=env, cwd=self.folder, timeout=300
        )
        err = result.stderr.decode("utf-8", "replace")
        assert "Traceback" not in err, err[-3000:]
        assert result.returncode in (0, 2), err[-3000:]
        if result.returncode == 2:
            assert "error:" in err  # a message says what was wrong
        assert b"\x1b" not in result.stdout + result.stderr
        after = self.turns()
        assert {turn_id: after.get(turn_id) for turn_id in before} == before  # nothing stored changed
        if not stores:
            assert after == before
        return result.stdout


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    yield Daemon(tmp_path_factory.mktemp("fuzz"))


# Seven new inputs a run (each `ask` is a process loading the models: ~13 s on a busy CI machine); every run
# draws others (no example database), so the inputs tried grow with the runs.
@settings(FUZZ, max_examples=7)
@given(text=TEXT)
@example(text=b"bad \xff end").via("issue 18")
@example(text=LONG).via("very long")
def test_ask(daemon: Daemon, text: bytes) -> None:
    daemon.run("ask", text, "--session", daemon.session, stores=True)


@settings(FUZZ, max_examples=12)
@given(text=TEXT)
@example(text=b"s\xfe1").via("issue 18")
@example(text=b"   ").via("blank")
def test_history_session(daemon: Daemon, text: bytes) -> None:
    daemon.run("history", "--session", text)
    daemon.run("history", "--session", text, "--json")


@settings(FUZZ, max_examples=3)
@given(lines=st.lists(LINE, max_size=15))
@example(lines=[b"first", b"bad \xff end", LONG, b"third"]).via("issue 18")
def test_repl_stdin(daemon: Daemon, lines: list[bytes]) -> None:
    daemon.run("cli", stdin=b"\n".join([*lines, b"survived", b"/quit"]) + b"\n", stores=True)
    assert list(daemon.turns().values())[-1][0] == "survived"  # every line before it was read


@settings(FUZZ, max_examples=4)
@given(text=TEXT)
@example(text=b"bad \xff end").via("issue 18")
def test_prompt(daemon: Daemon, text: bytes) -> None:
    daemon.run("prompt", text, "--session", daemon.session, "--json")


@settings(FUZZ, max_examples=4)
@given(text=TEXT)
@example(text=b"bad \xff end").via("issue 18")
def test_analyze(daemon: Daemon, text: bytes) -> None:
    daemon.run("analyze", text, "--json")


@settings(FUZZ, max_examples=4)
@given(text=TEXT)
@example(text=b"bad \xff end").via("issue 18")
def test_memory_search(daemon: Daemon, text: bytes) -> None:
    daemon.run("memory", "search", text)
