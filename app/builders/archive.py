"""What `export`, `import` and `purge` work on: the archive layout of a data dir (memory and knowledge each
name their own files here, since neither imports the other), the data dir's memory store held alone, and
every store a purge removes from."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import AppConfig
    from memory.archive.layout import ArchiveLayout
    from memory.service import MemoryService
    from ui.shared.purge import PurgeStores


def archive_layout() -> ArchiveLayout:
    """Every database and file of the data dir that is the user's. Left out: derived data (the lexical
    index, the visual index, caches, the web cache and credits), the lock and endpoint files, tokens,
    `secrets.json` and the log."""
    from core.config_user import SETTINGS_FILE
    from core.system_prompt import PERSONALITY_FILE
    from knowledge.graph_store import GRAPH_FILE, merge_graph_file
    from knowledge.jobs import JOBS_FILE
    from knowledge.synthesis.book import SYNTHESIS_FILE
    from memory.archive.layout import ArchiveLayout
    from memory.background import BACKGROUND_FILE
    from memory.facts.claims import CLAIMS_FILE
    from memory.facts.store import FACTS_FILE
    from memory.journal import JOURNAL_FILE
    from memory.notes import NOTES_FILE
    from memory.review import REVIEW_FILE
    from memory.session_state_store import SESSION_STATE_FILE
    from memory.shutdown.session_end import JOBS_FILE as SESSION_JOBS_FILE
    from memory.skills import SKILLS_DIR
    from memory.tasks import TASKS_FILE
    from ui.gui.documents_tab import UPLOADS

    return ArchiveLayout(
        databases=(
            JOURNAL_FILE,
            FACTS_FILE,
            CLAIMS_FILE,
            REVIEW_FILE,
            SESSION_STATE_FILE,
            SESSION_JOBS_FILE,
            JOBS_FILE,
            TASKS_FILE,
            NOTES_FILE,
            BACKGROUND_FILE,
            SYNTHESIS_FILE,
        ),
        files=(GRAPH_FILE, PERSONALITY_FILE, SETTINGS_FILE),
        folders=(UPLOADS, SKILLS_DIR),
        merges={GRAPH_FILE: merge_graph_file},
    )


@contextmanager
def sole_memory(config: AppConfig) -> Iterator[MemoryService]:
    """The data dir's lock, then its memory store, for as long as an export or an import runs (a running
    Daemon on the same folder gets the lock's clear error instead)."""
    from memory.lock import DataDirLock

    config.data_dir.mkdir(parents=True, exist_ok=True)
    with DataDirLock(config.data_dir), memory_store(config) as memory:
        yield memory


@contextmanager
def memory_store(config: AppConfig) -> Iterator[MemoryService]:
    """The data dir's memory store, opened and closed again; the caller holds the data dir's lock."""
    from app.builders.memory import build_memory_service, chroma_dir
    from memory.embeddings import MiniLMEmbedder

    memory = build_memory_service(config, MiniLMEmbedder(threads=1), chroma_dir(config))
    try:
        yield memory
    finally:
        memory.close()


@contextmanager
def purge_stores(config: AppConfig) -> Iterator[PurgeStores]:
    """Every store of the data dir a purge removes from, opened and closed again (the memory store last);
    the caller holds the data dir's lock."""
    from contextlib import ExitStack, closing

    from knowledge.graph_store import GRAPH_FILE, GraphStore
    from knowledge.synthesis.book import SYNTHESIS_FILE, SynthesisBook
    from memory.facts.claims import CLAIMS_FILE, ClaimIndex
    from memory.facts.store import FACTS_FILE, FactStore
    from memory.journal import JOURNAL_FILE, Journal
    from memory.review import REVIEW_FILE, ReviewQueue
    from memory.session_state_store import SESSION_STATE_FILE, SessionStateDB
    from memory.shutdown.jobs import JobTable
    from memory.shutdown.session_end import JOBS_FILE as SESSION_JOBS_FILE
    from ui.shared.purge import PurgeStores

    data = config.data_dir
    with memory_store(config) as memory, ExitStack() as stack:
        journal = stack.enter_context(closing(Journal(data / JOURNAL_FILE)))
        facts = stack.enter_context(closing(FactStore(data / FACTS_FILE)))
        claims = stack.enter_context(closing(ClaimIndex(data / CLAIMS_FILE)))
        states = stack.enter_context(closing(SessionStateDB(data / SESSION_STATE_FILE)))
        jobs = stack.enter_context(closing(JobTable(data / SESSION_JOBS_FILE)))
        review = stack.enter_context(closing(ReviewQueue(data / REVIEW_FILE)))
        synthesis = stack.enter_context(closing(SynthesisBook(data / SYNTHESIS_FILE)))
        graph = GraphStore(data / GRAPH_FILE)
        yield PurgeStores(journal, facts, claims, states, jobs, review, memory, graph, synthesis)
