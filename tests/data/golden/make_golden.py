"""Write the golden data folder `tests/integration/test_golden_data_folder.py` opens: run it once per Chroma
or schema change, from the commit that makes the change *before* it (so the folder is what users have).

    .venv/bin/python tests/data/golden/make_golden.py

It runs Daemon's own CLI (echo model, a fixed clock-independent script of turns) on a fresh folder, then
writes `data_folder.tar.gz` and `manifest.json`: the versions that wrote it and what a later Daemon must
read back from it (turns, memory counts, facts, graph entities, the top search hit).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
ECHO = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
TURNS = (
    "My sister Ana lives in Porto.",
    "I work as a pharmacist at the Kelsey Street clinic.",
    "Our tortoise is called Sir Reginald.",
    "I play the cello in a community orchestra on Thursdays.",
)
QUERY = "Where does my sister live?"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "echo.yaml").write_text(ECHO)
        env = {**os.environ, "DAEMON_DATA_DIR": str(work / "data")}

        def daemon(*args: str) -> dict:
            done = subprocess.run(
                [sys.executable, str(ROOT / "main.py"), "--config", str(work / "echo.yaml"), *args, "--json"],
                capture_output=True,
                text=True,
                env=env,
                cwd=work,
                check=True,
            )
            return json.loads(done.stdout)

        session = str(daemon("ask", TURNS[0])["session_id"])
        for text in TURNS[1:]:
            daemon("ask", text, "--session", session)
        daemon("session", "end", "--session", session)
        facts = daemon("facts", "list")["facts"]
        manifest = {
            "written_by": {
                "daemon_commit": subprocess.run(
                    ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
                ).stdout.strip(),
                "chromadb": importlib.metadata.version("chromadb"),
            },
            "turns": [t["user"] for t in daemon("history", "--limit", "100")["turns"]],
            "collections": daemon("memory", "stats")["collections"],
            "facts": sorted([f["subject"], f["predicate"], f["object"], f["status"]] for f in facts),
            "query": QUERY,
            "top_hit": daemon("memory", "search", QUERY)["results"][0]["id"],
        }
        for name in ("daemon.lock", "daemon.log"):
            (work / "data" / name).unlink(missing_ok=True)
        with tarfile.open(HERE / "data_folder.tar.gz", "w:gz") as archive:
            archive.add(work / "data", arcname="data")
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
