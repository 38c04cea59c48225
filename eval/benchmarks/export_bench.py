"""`bench export`: `export` and `import` speed on a data dir of N turns, beside reading those turns raw.

The data dir is built here: N turns in the journal (sessions of 50) and their `conversations` records with
unit vectors (random: the archive copies vectors, it never embeds them). Three speeds, as turns per second,
each the median of `runs` runs: reading every turn from the journal with plain SQLite (the floor: the least
any copy of the turns costs), `export` of the whole data dir to a new archive, and `import` of that archive
into a new empty data dir (checked whole, then restored: databases, records with their vectors, files).
"""

from __future__ import annotations

import contextlib
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from core.ports import TurnRecord
from memory.archive.layout import ArchiveLayout
from memory.archive.reader import unpack
from memory.archive.restore import restore
from memory.archive.writer import export_data
from memory.collections import COLLECTION_NAMES, CONVERSATIONS
from memory.journal import JOURNAL_FILE, Journal
from memory.service import MemoryService
from memory.turn_index import turn_record

SESSION_TURNS = 50
BATCH = 1000
T0 = 1_700_000_000.0


def run_export_benchmark(
    memory_in: Callable[[Path], MemoryService],
    layout: ArchiveLayout,
    *,
    turns: int,
    runs: int,
    app_version: str,
) -> dict[str, Any]:
    """Build the data dir, then time the raw read, the export and the import; the figures."""
    with tempfile.TemporaryDirectory(prefix="daemon-bench-export-") as folder:
        root = Path(folder)
        data = root / "data"
        memory = memory_in(data / "chroma")
        try:
            _fill(data, memory, turns)
            raw = [_timed(lambda: _read_turns(data / JOURNAL_FILE)) for _ in range(runs)]
            archives = [root / f"export-{run}.zip" for run in range(runs)]
            store = memory.store

            def export_to(archive: Path) -> None:
                export_data(data, layout, store, COLLECTION_NAMES, archive, app_version=app_version)

            exports = [_timed(partial(export_to, archive)) for archive in archives]
        finally:
            memory.close()
        imports = [
            _import_once(archives[0], root / f"import-{run}", memory_in, layout, app_version)
            for run in range(runs)
        ]
        size_mb = archives[0].stat().st_size / 1e6
    return _figures(turns, runs, size_mb, raw, exports, imports)


def _fill(data: Path, memory: MemoryService, turns: int) -> None:
    Journal(data / JOURNAL_FILE).close()  # the app's schema, then the rows in one transaction
    rows = [_turn(i) for i in range(turns)]
    with contextlib.closing(sqlite3.connect(str(data / JOURNAL_FILE))) as db, db:
        sessions = {(t.session_id, t.created_at) for t in rows if t.seq == 1}
        db.executemany("INSERT INTO sessions VALUES (?, ?, ?)", [(s, at, at) for s, at in sessions])
        db.executemany(
            "INSERT INTO turns (turn_id, session_id, seq, user_text, assistant_text, status, model, "
            "created_at, completed_at, indexed_at) VALUES (?, ?, ?, ?, ?, 'complete', 'bench', ?, ?, ?)",
            [
                (
                    t.turn_id,
                    t.session_id,
                    t.seq,
                    t.user,
                    t.assistant,
                    t.created_at,
                    t.created_at,
                    t.created_at,
                )
                for t in rows
            ],
        )
    rng = np.random.default_rng(7)
    for start in range(0, turns, BATCH):
        chunk = rows[start : start + BATCH]
        vectors = rng.standard_normal((len(chunk), memory.embedder.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        memory.restore(CONVERSATIONS, [turn_record(t) for t in chunk], vectors)


def _turn(i: int) -> TurnRecord:
    session, seq = divmod(i, SESSION_TURNS)
    return TurnRecord(
        f"{i:013d}-bench",
        f"bench{session:06d}",
        f"Turn {i}: on day {i % 365} I walked {i % 17} km along the river and met friend number {i % 41}.",
        f"Noted: {i % 17} km on day {i % 365}.",
        T0 + i * 60.0,
        model="bench",
        seq=seq + 1,
    )


def _read_turns(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
        return len(db.execute("SELECT * FROM turns").fetchall())


def _import_once(
    archive: Path,
    folder: Path,
    memory_in: Callable[[Path], MemoryService],
    layout: ArchiveLayout,
    version: str,
) -> float:
    data = folder / "data"
    data.mkdir(parents=True)
    memory = memory_in(data / "chroma")
    try:
        started = time.perf_counter()
        restore(unpack(archive, folder / "unpacked", app_version=version), data, layout, memory)
        return time.perf_counter() - started
    finally:
        memory.close()


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _figures(
    turns: int, runs: int, size_mb: float, raw: list[float], exports: list[float], imports: list[float]
) -> dict[str, Any]:
    def speed(seconds: list[float]) -> dict[str, float]:
        median = statistics.median(seconds)
        return {"seconds": round(median, 3), "turns_per_s": round(turns / median, 1)}

    floor = speed(raw)
    out: dict[str, Any] = {"turns": turns, "runs": runs, "archive_mb": round(size_mb, 2), "raw_read": floor}
    for name, seconds in (("export", exports), ("import", imports)):
        out[name] = {
            **speed(seconds),
            "vs_raw_read": round(turns / statistics.median(seconds) / floor["turns_per_s"], 4),
        }
    return out


def export_headline(result: dict[str, Any]) -> str:
    """The benchmark as a small table."""
    lines = [
        f"{result['turns']} turns, archive {result['archive_mb']} MB; median of {result['runs']} runs",
        "step        seconds     turns/s   vs raw read",
    ]
    for step in ("raw_read", "export", "import"):
        row = result[step]
        share = f"{row['vs_raw_read']:.4f}" if "vs_raw_read" in row else "1 (baseline)"
        lines.append(f"{step:<10} {row['seconds']:>9.3f} {row['turns_per_s']:>11.1f}   {share}")
    return "\n".join(lines)
