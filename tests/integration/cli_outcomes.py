"""What the commands answer as processes: exit code and the top-level keys of their `--json` object.

`test_cli_contract_process.py` runs `INVOCATIONS` on a fresh data dir (the echo provider answers, so no
model call decides the outcome) and compares with `cli_outcomes.json`, recorded before the composition root
was split into one module per command. Regenerate only for an intended change of the contract:
`PYTHONPATH=. python tests/integration/cli_outcomes.py > tests/integration/cli_outcomes.json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
INVOCATIONS: tuple[tuple[str, ...], ...] = (
    ("--version",),
    ("no-such-command",),
    ("ask",),
    ("bench",),
    ("ask", "hello there", "--json"),
    ("history", "--json"),
    ("facts", "list", "--json"),
    ("memory", "stats", "--json"),
    ("memory", "search", "hello", "--json"),
    ("analyze", "I feel fine today", "--json"),
    ("prompt", "hello", "--json"),
    ("session", "end", "--json"),
    ("review", "list", "--json"),
    ("docs", "list", "--json"),
    ("docs", "jobs", "--json"),
    ("image", "list", "--json"),
    ("tool", "list", "--json"),
    ("tool", "run", "calculator", "--args", '{"expression": "2+3"}', "--json"),
    ("tool", "run", "no_such_tool", "--json"),
    ("doctor", "--json"),
)


def outcome(args: tuple[str, ...], data_dir: Path) -> dict[str, object]:
    """Exit code and sorted top-level JSON keys (None when stdout is not one JSON object)."""
    config = data_dir.parent / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=data_dir.parent,
    )
    try:
        keys: list[str] | None = sorted(json.loads(done.stdout))
    except (json.JSONDecodeError, TypeError):
        keys = None
    return {"exit": done.returncode, "keys": keys}


def record(base: Path) -> dict[str, dict[str, object]]:
    """Every invocation's outcome, each on its own fresh data dir under `base`."""
    results = {}
    for number, args in enumerate(INVOCATIONS):
        folder = base / str(number)
        folder.mkdir(parents=True)
        results[" ".join(args)] = outcome(args, folder / "data")
    return results


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(record(Path(tmp)), indent=1))
