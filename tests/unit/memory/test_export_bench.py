"""`bench export` on a small data dir: every turn reaches the archive and comes back, each speed beside the
raw read of the same turns."""

from __future__ import annotations

from pathlib import Path

from eval.benchmarks.export_bench import export_headline, run_export_benchmark
from memory.service import MemoryService
from tests.unit.memory.archive_helpers import LAYOUT, VERSION, memory


def test_the_benchmark_exports_and_imports_every_turn_beside_the_raw_read() -> None:
    imported: list[int] = []

    class Counted(MemoryService):
        def close(self) -> None:  # each import's store: count what it holds before it closes
            imported.append(self.store.count("conversations"))
            super().close()

    def memory_in(folder: Path) -> MemoryService:
        base = memory(384)
        counted = Counted(base.store, base.profiles)
        counted.open()
        return counted

    result = run_export_benchmark(memory_in, LAYOUT, turns=120, runs=2, app_version=VERSION)
    assert imported == [120, 120, 120]  # the filled store, then each of the two imports
    assert result["turns"] == 120 and result["raw_read"]["turns_per_s"] > 0
    for step in ("export", "import"):
        assert result[step]["turns_per_s"] > 0 and result[step]["vs_raw_read"] > 0
    assert "raw_read" in export_headline(result) and "1 (baseline)" in export_headline(result)
