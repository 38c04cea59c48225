"""`bench startup`: process start -> ready to answer, on a data dir holding N memories.

The data dir is built once through the normal write path (`MemoryService.write_turns` for conversations,
`MemoryService.add` for the other 12 collections: store, lexical index, payloads) and cached in the temp
folder. Vectors are random unit vectors from an embedder that carries MiniLM's name and size, as in
`bench latency`: start-up does not depend on their values, and MiniLM on this 2-core machine embeds these
texts at ~25-50 a second (an hour for 100k). Each measurement is a fresh Python process that builds the
whole app as a front end does (`main.build_services`) and reports the moment it returned: "ready". The chat
model and the embedding model load on first use, so neither is in the figure.

Beside it: the time the same process then takes to rebuild the lexical index from the store (the start-up
path before the index was persisted), and, with `--baseline-tree`, a fresh process of another source tree
(e.g. `git archive` of an older commit) on the same data dir.
"""

from __future__ import annotations

import json
import os
import random
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

# The probe runs in a fresh interpreter: argv = tree root, data dir, mode ("ready" or "rebuild").
_PROBE = """
import json, os, sys, time
root, data_dir, mode = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, root)
os.chdir(root)
import main
for name, value in main.OFFLINE_DEFAULTS.items():
    os.environ.setdefault(name, value)
from pathlib import Path
from core.config import load_config, merged_environment
env = merged_environment(os.environ, Path(root) / ".env")
config = load_config(None, env, {"data_dir": data_dir})
services = main.build_services(config, env)
ready = time.time()
out = {"ready_at": ready}
if mode == "rebuild":
    from memory.lexical import LexicalIndexes
    from memory.service import MemoryService
    memory = services.memory
    begin = time.perf_counter()
    MemoryService(memory.store, memory.profiles, lexical=LexicalIndexes()).open()
    out["rebuild_s"] = time.perf_counter() - begin
services.close()
print(json.dumps(out))
"""


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
    result = {"ready_s": out["ready_at"] - started}
    if "rebuild_s" in out:
        result["rebuild_s"] = out["rebuild_s"]
    return result


def run_startup_benchmark(
    memories: int, make_service: ServiceFactory, *, runs: int = 3, baseline_tree: Path | None = None
) -> dict[str, Any]:
    """Median process start -> ready over `runs` fresh processes (after one warm-up), and beside it the
    lexical rebuild from the store and, optionally, another tree's start-up on the same data."""
    build_started = time.perf_counter()
    data_dir = cached_data_dir(memories, make_service)
    build_s = time.perf_counter() - build_started
    _probe(PROJECT_DIR, data_dir, "ready")  # warm-up: the OS file cache, a first reconcile if any
    ready, rebuild, baseline = [], [], []
    for _ in range(runs):
        found = _probe(PROJECT_DIR, data_dir, "rebuild")
        ready.append(found["ready_s"])
        rebuild.append(found["rebuild_s"])
        if baseline_tree is not None:
            baseline.append(_probe(baseline_tree, data_dir, "ready")["ready_s"])
    result: dict[str, Any] = {
        "memories": memories,
        "ready_s": round(statistics.median(ready), 2),
        "lexical_rebuild_s": round(statistics.median(rebuild), 2),
        "runs": runs,
        "data_dir": str(data_dir),
        "build_s": round(build_s, 1),
    }
    if baseline:
        result["baseline_ready_s"] = round(statistics.median(baseline), 2)
        result["baseline_tree"] = str(baseline_tree)
    return result
