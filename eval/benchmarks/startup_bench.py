"""`bench startup`: process start -> ready to answer, on a data dir holding N memories.

The data dir is built once through the normal write path (`MemoryService.write_turns` for conversations,
`MemoryService.add` for the other 12 collections: store, lexical index, payloads) and cached in the temp
folder. Vectors are random unit vectors from an embedder that carries MiniLM's name and size, as in
`bench latency`: start-up does not depend on their values, and MiniLM on this 2-core machine embeds these
texts at ~25-50 a second (an hour for 100k). Each measurement is a fresh Python process that builds the
whole app as a front end does (`app.builders.services.build_services`) and reports the moment it returned:
"ready". The chat model and the embedding model load on first use, so neither is in the figure. Each process
closes the app as a front end does, so the next one starts after a clean close (the case the clean-shutdown
marker speeds up; `verified_runs` counts the timed starts that compared the store with the index all the
same).

The process's RSS once ready and every collection read ("idle": what a GUI holds before the first message
loads the models) is reported beside the goal of 600 MB. Beside it, from the same process: the time from
ready until one nearest-neighbour query has answered in each of the 13 collections ("first read": Chroma
loads a collection on its first read, so this is what a question asked at once would wait for), and the
time to rebuild the lexical index from the store (the start-up path before the index was persisted). With
`--baseline-tree`, a fresh process of another source tree (e.g. `git archive` of an older commit) starts on
a copy of the same data dir made before this tree first opened it (`<dir>-baseline`): another tree's process
changes the store's files, and this tree rightly verifies its index after that, so the two must not take
turns on one copy.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.benchmarks.latency_bench import _metadata, sentence, vocabulary
from memory.collections import COLLECTIONS, CONVERSATIONS
from memory.embeddings import MINILM_DIM, MINILM_NAME, Embedder
from memory.service import MemoryService
from memory.vector_store import Record

if TYPE_CHECKING:
    import numpy as np

ServiceFactory = Callable[[Path, Embedder], MemoryService]  # (chroma dir, embedder) -> an opened service
PROJECT_DIR = Path(__file__).resolve().parents[2]
SESSION_TURNS = 20

# The probe runs in a fresh interpreter: argv = tree root, data dir, mode ("ready" or "rebuild"); both
# time the first read of every collection after ready, "rebuild" then the lexical rebuild.
_PROBE = """
import json, os, sys, time
from pathlib import Path
root, data_dir, mode = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, root)
os.chdir(root)
if (Path(root) / "app" / "entry.py").is_file():
    from app.builders.services import build_services
    from app.entry import OFFLINE_DEFAULTS
else:  # a tree from before the composition root moved out of main.py into app/
    import main
    OFFLINE_DEFAULTS, build_services = main.OFFLINE_DEFAULTS, main.build_services
for name, value in OFFLINE_DEFAULTS.items():
    os.environ.setdefault(name, value)
from core.config import load_config, merged_environment
env = merged_environment(os.environ, Path(root) / ".env")
config = load_config(None, env, {"data_dir": data_dir})
services = build_services(config, env)
ready = time.time()
def rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
out = {"ready_at": ready, "verified": getattr(services.memory, "verified", True)}
import numpy as np
from memory.collections import COLLECTIONS
memory = services.memory
vector = np.ones(memory.store.embedder.dim, dtype=np.float32) / np.sqrt(memory.store.embedder.dim)
begin = time.perf_counter()
for spec in COLLECTIONS:
    memory.store.query(spec.name, vector, 10)
out["first_read_s"] = time.perf_counter() - begin
out["idle_rss_mb"] = rss_mb()  # ready, every collection loaded; the models load on the first message
if mode == "rebuild":
    from memory.lexical import LexicalIndexes
    from memory.service import MemoryService
    begin = time.perf_counter()
    MemoryService(memory.store, memory.profiles, lexical=LexicalIndexes()).open()
    out["rebuild_s"] = time.perf_counter() - begin
services.close()
print(json.dumps(out))
"""


IDLE_RSS_GOAL_MB = 600


class RandomVectors:
    """Random unit vectors under MiniLM's name: the stored collections then open with the real model."""

    name = MINILM_NAME
    dim = MINILM_DIM

    def __init__(self, seed: int = 7) -> None:
        import numpy as np

        self._rng = np.random.default_rng(seed)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        vectors = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def cached_data_dir(memories: int, make_service: ServiceFactory, root: Path | None = None) -> Path:
    """`<temp>/daemon-startup-<N>`, built on first use (a `complete` marker says the build finished)."""
    folder = (root or Path(tempfile.gettempdir())) / f"daemon-startup-{memories}"
    if (folder / "complete").exists():
        return folder
    if folder.exists():
        raise RuntimeError(f"{folder} holds an unfinished build; remove it to build again")
    folder.mkdir(parents=True)
    service = make_service(folder / "chroma", RandomVectors())
    try:
        populate(service, memories)
    finally:
        service.close()
    (folder / "complete").write_text(f"{memories}\n")
    return folder


def populate(service: MemoryService, total: int, seed: int = 7, batch: int = 500) -> None:
    """Write `total` synthetic memories over the 13 collections through the normal write path."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    now = time.time()
    names = [spec.name for spec in COLLECTIONS]
    per = {name: total // len(names) + (1 if i < total % len(names) else 0) for i, name in enumerate(names)}
    for name, count in per.items():
        step = SESSION_TURNS if name == CONVERSATIONS else batch
        for start in range(0, count, step):
            records = [
                Record(f"{name[:4]}_{i}", sentence(rng, words), _metadata(name, i, rng, now))
                for i in range(start, min(start + step, count))
            ]
            service.add(name, records)


def baseline_copy(data_dir: Path) -> Path:
    """`<data_dir>-baseline`: a copy for another tree's processes, made once (before this tree opens
    `data_dir` in this run, so a store built by an older tree is copied as that tree left it)."""
    copy = data_dir.with_name(f"{data_dir.name}-baseline")
    if not copy.exists():
        partial = copy.with_name(f"{copy.name}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(data_dir, partial, ignore=shutil.ignore_patterns("daemon.lock"))
        partial.rename(copy)
    return copy


def _probe(tree: Path, data_dir: Path, mode: str) -> dict[str, float]:
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tree), str(data_dir), mode],
        capture_output=True,
        text=True,
        check=False,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
    )
    if done.returncode != 0:
        raise RuntimeError(f"the start-up probe failed in {tree}: {done.stderr.strip()[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    result = {"ready_s": out["ready_at"] - started, "first_read_s": out["first_read_s"]}
    result["verified"] = float(bool(out["verified"]))
    if "idle_rss_mb" in out:  # an older tree's probe may not measure it
        result["idle_rss_mb"] = out["idle_rss_mb"]
    if "rebuild_s" in out:
        result["rebuild_s"] = out["rebuild_s"]
    return result


def run_startup_benchmark(
    memories: int, make_service: ServiceFactory, *, runs: int = 3, baseline_tree: Path | None = None
) -> dict[str, Any]:
    """Median process start -> ready over `runs` fresh processes (after one warm-up), and beside it the
    first read of every collection, the lexical rebuild from the store and, optionally, another tree's
    start-up on a copy of the same data."""
    build_started = time.perf_counter()
    data_dir = cached_data_dir(memories, make_service)
    build_s = time.perf_counter() - build_started
    other = baseline_copy(data_dir) if baseline_tree is not None else None
    _probe(PROJECT_DIR, data_dir, "ready")  # warm-up: the OS file cache, a first reconcile if any
    if baseline_tree is not None and other is not None:
        _probe(baseline_tree, other, "ready")
    mine: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(runs):
        mine.append(_probe(PROJECT_DIR, data_dir, "rebuild"))
        if baseline_tree is not None and other is not None:
            theirs.append(_probe(baseline_tree, other, "ready"))
    result: dict[str, Any] = {
        "memories": memories,
        "ready_s": _median(mine, "ready_s"),
        "ready_each_s": [round(found["ready_s"], 2) for found in mine],
        "first_read_s": _median(mine, "first_read_s"),
        "lexical_rebuild_s": _median(mine, "rebuild_s"),
        "verified_runs": int(sum(found["verified"] for found in mine)),
        # the process RSS once ready and every collection read, before any model loads (the GUI idle)
        "idle_rss_mb": round(statistics.median(found["idle_rss_mb"] for found in mine), 1),
        "idle_rss_goal_mb": IDLE_RSS_GOAL_MB,
        "runs": runs,
        "data_dir": str(data_dir),
        "build_s": round(build_s, 1),
    }
    if theirs:
        result["baseline_ready_s"] = _median(theirs, "ready_s")
        result["baseline_ready_each_s"] = [round(found["ready_s"], 2) for found in theirs]
        result["baseline_first_read_s"] = _median(theirs, "first_read_s")
        result["baseline_tree"] = str(baseline_tree)
        result["baseline_data_dir"] = str(other)
    return result


def _median(found: list[dict[str, float]], key: str) -> float:
    return round(statistics.median(item[key] for item in found), 2)
