"""Run Daemon's CLI on a data folder whose disk fills up; run inside a fresh mount namespace (see
test_full_disk_process.py), where DISK is a small tmpfs of its own.

Usage: full_disk_driver.py DISK CONFIG OUT. A first turn is answered with room to spare; then, for each
slack, the disk is filled with a filler file leaving that many KB free and a turn is asked; the filler is
removed and one more turn is asked. Every run's exit code, stdout and stderr go to OUT/runs.json; at the
end `memory stats` and `facts list` run (the start-up repair re-copies what a full disk kept out of the
indexes) and the data folder is copied to OUT/data, since the tmpfs goes when the namespace does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

MAIN = Path(__file__).resolve().parents[2] / "main.py"
SLACK_KB = (8, 128, 512)


def main(disk: Path, config: Path, out: Path) -> None:
    env = {**os.environ, "DAEMON_DATA_DIR": str(disk / "data")}

    def daemon(*args: str) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, str(MAIN), "--config", str(config), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        return {"args": list(args), "rc": done.returncode, "out": done.stdout, "err": done.stderr}

    runs = [daemon("ask", "My sister Ana lives in Porto.", "--json")]
    for slack in SLACK_KB:
        fill(disk, leave_kb=slack)
        runs.append(daemon("ask", f"With {slack} KB left: my brother Rui plays the cello.", "--json"))
        runs[-1]["slack_kb"] = slack
        (disk / "filler").unlink()
    runs.append(daemon("ask", "Where does Ana live?", "--json"))
    runs.append(daemon("memory", "stats", "--json"))
    runs.append(daemon("facts", "list", "--json"))
    (out / "runs.json").write_text(json.dumps(runs, indent=1), encoding="utf-8")
    shutil.copytree(disk / "data", out / "data")


def fill(disk: Path, leave_kb: int) -> None:
    """Fill `disk` with a filler file until only about `leave_kb` KB are free."""
    spare = disk / "spare"
    spare.write_bytes(b"\0" * leave_kb * 1024)  # held back while the filler takes the rest
    block = b"\0" * 4096
    with open(disk / "filler", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(block)
        except OSError:  # ENOSPC: the disk is full
            pass
    spare.unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
