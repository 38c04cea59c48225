"""A whole GUI back end for browser tests: real journal, memory service (in-memory vectors with a hashing
embedder, so no model loads), facts, review queue, job ledger and ingester, and a scripted model that cites.

`CitingAgent` echoes like the chat page's scripted agent, but a message starting with `cite` is answered
with the first memory marker the prompt holds (`[M1]`), so the answer cites the recalled document
deterministically; `propose …` asks for a call with side effects, `remind … to X` for a reminder,
`todo X` for a to-do.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from app.builders.synthesis import build_synthesis
from core.agent.call_guard import ToolPolicy
from core.config import GenerationConfig, load_config
from core.config_synthesis import SynthesisConfig
from core.events import Done, RunEvent, TextDelta, ToolProposal
from core.generation.setup import turn_modes
from core.learning import FactLearning
from core.nlp import SpacyPipeline
from core.orchestrator import ModelChoice, Orchestrator
from core.ports import ExtractedFact, TurnRecord
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.fake import EchoProvider
from core.tools.base import Tool
from core.tools.catalog import ToolCatalog, UnavailableTool
from core.tools.note_tools import NOTE_TOOL_NAMES, note_tools
from core.tools.task_tools import TASK_TOOL_NAMES, task_tools
from core.tracing import TRACE_DIR, TraceLog
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, ToolCall, Usage
from knowledge.documents.chunk import estimate_tokens
from knowledge.documents.pipeline import DocumentIngester
from knowledge.graph_store import GRAPH_FILE, GraphStore
from knowledge.jobs import JobLedger
from knowledge.service import KnowledgeService
from knowledge.synthesis.book import SYNTHESIS_FILE, SynthesisBook
from memory.document_store import ReferenceDocStore
from memory.embeddings import HashingEmbedder
from memory.facts.service import open_fact_memory
from memory.inmemory_store import InMemoryStore
from memory.journal import Journal
from memory.notes import NOTES_FILE, NoteStore
from memory.port import ConversationMemory
from memory.review import ReviewQueue
from memory.service import MemoryService
from memory.shutdown.session_end import build_steps, open_session_end
from memory.skills import SKILLS_DIR, SkillLibrary
from memory.tasks import TASKS_FILE, TaskStore
from memory.turn_index import TurnIndexer
from tests.unit.memory.profile_helpers import committed_profiles
from ui.gui.backends import GuiBackends
from ui.gui.data_tab import DataDesk
from ui.gui.documents_tab import DocumentDesk
from ui.gui.reminders_tab import ReminderDesk
from ui.shared.tool_runner import ToolRunner

_MARKER = re.compile(r"\[M\d+\]")


class CitingAgent:
    """Echo; `cite …` answers with the first memory marker in the prompt; `slow …` streams 200 words."""

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        prompt = "\n".join(m.content for m in messages)
        text = messages[-1].content.rsplit("The user says: ", 1)[-1]
        if text.startswith("propose"):
            call = ToolCall("p1", "save_note", {"text": text})
            yield ToolProposal(call, "Saves a note to a file.")
        if text.startswith("todo "):  # the call a capable model makes for "add … to my to-dos"
            wanted = text.removeprefix("todo ")
            yield ToolProposal(
                ToolCall("n1", "add_todo", {"text": wanted}), "Add a to-do.", f"Add a to-do: {wanted}"
            )
        if text.startswith("remind"):  # "remind me in 3 seconds to stretch": the call a capable model makes
            arguments = {"what": text.split(" to ", 1)[-1], "when": "in 3 seconds"}
            yield ToolProposal(
                ToolCall("r1", "set_reminder", arguments), "Set a reminder.", "Remind you soon"
            )
        answer = f"Echo: {text}"
        if text.startswith("cite"):
            found = _MARKER.search(prompt)
            answer = f"From your documents {found.group(0)}." if found else "Nothing recalled."
        async for event in stream_words(answer, text.startswith("slow"), cancel):
            yield event


async def stream_words(answer: str, slow: bool, cancel: asyncio.Event | None) -> AsyncIterator[RunEvent]:
    """A scripted model's stream: `answer` word by word (`slow`: 200 words, 0.1 s apart, for Stop), then
    `Done`; a set `cancel` ends it with what was streamed, as the agent loop does."""
    if slow:
        answer = " ".join(f"w{i}" for i in range(200))
    streamed: list[str] = []
    for word in answer.split(" "):
        if cancel is not None and cancel.is_set():
            yield Done(answer=" ".join(streamed), exit_reason="cancelled", model="scripted")
            return
        streamed.append(word)
        yield TextDelta(word + " ")
        await asyncio.sleep(0.1 if slow else 0.005)
    yield Done(answer=answer, usage=Usage(12, len(streamed)), model="scripted")


def scripted_choice(make: Callable[[], Any]) -> ModelChoice:
    """The scripted model with the per-turn modes the composition root gives a model (`turn_modes`): stream,
    and best-of with the echo provider judging; a duel is unavailable (one model only)."""
    config = GenerationConfig(n=2)
    modes, unavailable = turn_modes(lambda _temperature: make(), {}, config, EchoProvider())
    return ModelChoice("scripted", make(), modes=modes, unavailable=unavailable)


class NoFacts:
    """The offline fact extractor's place (spaCy is not loaded here): finds nothing."""

    def extract(self, text: str) -> list[ExtractedFact]:
        return []


@dataclass
class Stack:
    orchestrator: Orchestrator
    backends: GuiBackends
    journal: Journal
    memory: MemoryService
    notes: list[str]
    knowledge: KnowledgeService
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        while self.closers:
            self.closers.pop()()


def _tools(notes: list[str], book: TaskStore, notebook: NoteStore) -> ToolRunner:
    def save_note(text: str) -> str:
        notes.append(text)
        return "saved"

    tool = Tool(
        "save_note",
        "Saves a note to a file.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        save_note,
        side_effects=True,
    )
    missing = UnavailableTool("web_search", "Search the web.", "needs TAVILY_API_KEY")
    reminders = task_tools(book, lambda: datetime.now(book.zone))
    local = frozenset({"save_note"}) | TASK_TOOL_NAMES | NOTE_TOOL_NAMES
    catalog = ToolCatalog.of([tool, missing, *reminders, *note_tools(notebook)])
    return ToolRunner(catalog, ToolPolicy(local_tools=local))


def build_stack(data: Path) -> Stack:
    """Every part wired as the composition root wires it, on `data`; close() releases them."""
    closers: list[Callable[[], None]] = []
    journal = Journal(data / "journal.sqlite3")
    closers.append(journal.close)
    memory = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles())
    memory.open()
    closers.append(memory.close)
    review = ReviewQueue(data / "review.sqlite3")
    closers.append(review.close)
    facts, close_facts = open_fact_memory(data, memory)
    closers.append(close_facts)
    port = ConversationMemory(memory, TurnIndexer(memory.write_turns, journal))
    context = ContextGatherer(JournalHistory(journal, 8), memory=port, facts=facts)
    traces = TraceLog(data / TRACE_DIR)
    orchestrator = Orchestrator(
        [scripted_choice(CitingAgent)],
        journal,
        context,
        PromptBuilder("You are a test.", EstimateCounter(), 8000),
        memory=port,
        facts=facts,
        traces=traces,
    )
    steps = build_steps(memory, facts, journal, NoFacts(), review=review)
    sessions, close_sessions = open_session_end(data, journal, steps, llm_available=False)
    closers.append(close_sessions)
    settings = load_config().documents.model_copy(update={"max_file_mb": 2.0})
    ledger = JobLedger(data / "jobs.sqlite3")
    desk = DocumentDesk(
        ledger,
        lambda: DocumentIngester(ReferenceDocStore(memory), settings, estimate_tokens),
        data / "uploads",
        memory,
    )
    closers.append(desk.close)
    notes: list[str] = []
    book = TaskStore(data / TASKS_FILE, ZoneInfo("Europe/Paris"))
    closers.append(book.close)
    notebook = NoteStore(data / NOTES_FILE, memory)
    closers.append(notebook.close)
    skills = SkillLibrary(data / SKILLS_DIR, memory)
    knowledge = KnowledgeService(GraphStore(data / GRAPH_FILE))
    synthesis_book = SynthesisBook(data / SYNTHESIS_FILE)
    closers.append(synthesis_book.close)
    synthesis = build_synthesis(
        SynthesisConfig(), synthesis_book, memory, SpacyPipeline(), graph=knowledge.snapshot, judge=None
    )
    backends = GuiBackends(
        memory=memory,
        facts=facts,
        learning=FactLearning(facts, knowledge),
        review=review,
        sessions=sessions,
        tools=_tools(notes, book, notebook),
        documents=desk,
        knowledge=knowledge,
        version="test",
        provider="scripted",
        upload_mb=2.0,
        data=_data_desk(data, memory),
        reminders=ReminderDesk(book),
        traces=traces,
        notes=notebook,
        skills=skills,
        synthesis=synthesis,
    )
    return Stack(orchestrator, backends, journal, memory, notes, knowledge, closers)


def _data_desk(data: Path, memory: MemoryService) -> DataDesk:
    """The "Your data" tab over this stack, exporting and taking snapshots as the app does."""
    from app import VERSION
    from app.builders.archive import archive_layout
    from memory.archive.backups import Backups
    from memory.archive.writer import export_data
    from memory.collections import COLLECTION_NAMES
    from ui.gui.app import upload_folder
    from ui.gui.data_tab import EXPORTS
    from ui.shared.scheduled_snapshots import SnapshotSchedule

    layout = archive_layout()
    backups = Backups(data.with_name(f"{data.name}-backups"), keep=3)

    def export(target: Path) -> object:
        return export_data(data, layout, memory.store, COLLECTION_NAMES, target, app_version=VERSION)

    def take() -> object:
        return backups.take(data, layout, memory.store, COLLECTION_NAMES, app_version=VERSION)

    schedule = SnapshotSchedule(backups, take, 86_400.0)
    return DataDesk(data, memory, [], schedule, export, upload_folder() / EXPORTS)


def seed_fact(stack: Stack, subject: str, predicate: str, value: str) -> None:
    """A fact as if the user had said it (through the verification gate)."""
    fact = ExtractedFact(subject, predicate, value, "location", "user", f"I {predicate} {value}", 0.95)
    turn = TurnRecord(f"seed-{value}", "seed", f"I {predicate} {value}", "", time.time())
    facts: Any = stack.backends.facts
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API may hold this thread's event loop
        pool.submit(asyncio.run, facts.record([fact], turn)).result()


def seed_graph(stack: Stack, triples: list[tuple[str, str, str, str, str]], source: str) -> None:
    """Entities and relations as a session's facts would leave them: (subject, its type, relation,
    object, its type), each relation recorded with `source`."""

    def add(graph: Any) -> None:
        for subject, subject_type, relation, obj, object_type in triples:
            head = graph.add_entity(subject, subject_type)
            tail = graph.add_entity(obj, object_type)
            graph.add_relation(head, relation, tail, fact_id=source)

    stack.knowledge.edit(add)
