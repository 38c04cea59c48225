"""A clean close as a real process meets it: SIGKILL between the store write and the index write is
repaired at the next start."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.unit.memory.test_clean_shutdown import open_service, written_and_closed

ROOT = Path(__file__).resolve().parents[2]


def test_kill_9_between_the_store_write_and_the_index_write_is_repaired_at_the_next_start(
    tmp_path: Path,
) -> None:
    """A real process starts after a clean close, writes a turn to the store but not yet to the index, and
    is killed with SIGKILL: the next start finds no marker, compares, and indexes the turn."""
    written_and_closed(tmp_path)
    child = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from tests.unit.memory.test_clean_shutdown import open_service, turn
        service = open_service(Path({str(tmp_path)!r}))
        assert not service.verified
        record = turn(3, "a new espresso machine")
        service.store.upsert("conversations", [record], service.embedder.embed([record.text]))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    again = open_service(tmp_path)
    try:
        assert again.verified and again.reindexed == {"conversations": 1}
        assert "conv_t3" in again.lexical.search("conversations", "espresso", 5)
    finally:
        again.close()
    assert open_service(tmp_path).reindexed == {}  # the repair was persisted
