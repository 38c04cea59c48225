"""Memory: the vector store and its search, the knowledge graph, facts, and the parts that remember a turn
(the context pipeline and session-end processing) over one journal."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.builders.models import build_analyzer, build_extractor
from app.builders.synthesis import build_synthesis, open_synthesis_book, session_end_synthesis

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.nlp import SpacyPipeline
    from core.pipeline.analyzer import ContextAnalyzer
    from core.ports import FactExtractor
    from core.providers.base import ChatProvider
    from core.providers.local import LocalModelProvider
    from core.turn_context import ContextGatherer, JournalHistory
    from knowledge.service import KnowledgeService
    from knowledge.synthesis.engine import SynthesisEngine
    from memory.embeddings import Embedder
    from memory.facts.service import FactMemory
    from memory.journal import Journal
    from memory.port import ConversationMemory
    from memory.review import ReviewQueue
    from memory.service import MemoryService
    from memory.shutdown.processor import Step
    from memory.shutdown.session_end import SessionEnd
    from memory.skills import SkillLibrary


def chroma_dir(config: AppConfig) -> Path:
    """Where the embedded Chroma store of the data dir lives."""
    return config.data_dir / "chroma"


def lexical_file(store_dir: Path) -> Path:
    """The persisted lexical index beside a store folder (`chroma` -> `chroma_lexical.sqlite3`)."""
    from memory.lexical_store import LEXICAL_FILE

    return store_dir.parent / f"{store_dir.name}_{LEXICAL_FILE}"


def build_memory_service(
    config: AppConfig,
    embedder: Embedder,
    store_dir: Path,
    hidden: Callable[[str], set[str]] | None = None,
    *,
    persist_lexical: bool = True,
) -> MemoryService:
    """Chroma (embedded in `store_dir`, or the configured server) + the search pipeline, opened; the caller
    closes it. The lexical index persists beside the store; `persist_lexical=False` (benchmarks: the old
    start-up path) keeps it in memory only, rebuilt from the store."""
    from knowledge.wikipedia import WIKI_KNOWLEDGE, load_wikipedia
    from memory.chroma_store import ChromaStore
    from memory.gating import reranker_from_config
    from memory.lexical import LexicalIndexes
    from memory.lexical_store import open_lexical_store
    from memory.profiles import profiles_from_config
    from memory.retrieval import RetrievalSettings
    from memory.schema import STORE_MIGRATIONS, StoreSchema
    from memory.service import MemoryService

    cfg = config.memory
    if cfg.chroma_host:
        store = ChromaStore.http(cfg.chroma_host, cfg.chroma_port, embedder)
    else:
        store = ChromaStore.embedded(store_dir, embedder)
    settings = RetrievalSettings(cfg.dense_candidates, cfg.lexical_candidates, cfg.timeout_s)
    lexical = LexicalIndexes()
    if persist_lexical:  # a damaged file is moved aside and the index rebuilt from the store
        persisted = open_lexical_store(lexical_file(store_dir))
        lexical = LexicalIndexes(persisted=persisted)
    wiki = config.wikipedia  # the user's optional FAISS index answers as `wiki_knowledge`
    index = load_wikipedia(wiki.index_dir, top_k=wiki.top_k, nprobe=wiki.nprobe)
    service = MemoryService(
        store,
        profiles_from_config(cfg),
        settings,
        reranker=reranker_from_config(cfg.reranker),
        hidden=hidden,
        lexical=lexical,
        sources={WIKI_KNOWLEDGE: index} if index is not None else None,
    )
    store.embed_for_rebuild = service.vectors_for  # a damaged vector index is rebuilt as live writes embed
    # The schema version lives beside the store (temp -> fsync -> rename, with a backup).
    StoreSchema(store_dir.parent / f"{store_dir.name}_schema.json", STORE_MIGRATIONS).migrate(store)
    service.open()
    return service


def open_memory(
    config: AppConfig, journal: Journal, embedder: Embedder, review: ReviewQueue, stack: ExitStack
) -> tuple[MemoryService, ConversationMemory]:
    """The data dir's memory store, with the turns acknowledged before a crash but never indexed indexed
    now, and the port the orchestrator writes turns through (the agent's store tools read through it too)."""
    from memory.port import ConversationMemory
    from memory.turn_index import TurnIndexer

    service = build_memory_service(config, embedder, chroma_dir(config), review.hidden.hidden_ids)
    stack.callback(service.close)
    indexer = TurnIndexer(service.write_turns, journal)
    indexer.repair()
    return service, ConversationMemory(service, indexer)


def open_review(config: AppConfig, stack: ExitStack) -> ReviewQueue:
    """The dedup review queue of the data dir (what the user hid stays unseen by search)."""
    from memory.review import REVIEW_FILE, ReviewQueue

    review = ReviewQueue(config.data_dir / REVIEW_FILE)
    stack.callback(review.close)
    return review


def open_journal(
    config: AppConfig, stack: ExitStack, *, read_only: bool = False, clock: Callable[[], float] | None = None
) -> Journal:
    """The data dir's turn journal; its owner (not `read_only`) marks a turn still pending as interrupted:
    the process that began it died. `clock` dates its turns (default: the wall clock; a benchmark's replay
    of a dated conversation sets its own)."""
    import time

    from memory.journal import JOURNAL_FILE, Journal

    journal = Journal(config.data_dir / JOURNAL_FILE, clock or time.time, read_only=read_only)
    stack.callback(journal.close)
    if not read_only:
        journal.interrupt_pending()
    return journal


def build_knowledge(config: AppConfig) -> KnowledgeService:
    """The knowledge graph of the data dir."""
    from knowledge.graph_store import GRAPH_FILE, GraphStore
    from knowledge.service import KnowledgeService

    return KnowledgeService(GraphStore(config.data_dir / GRAPH_FILE))


@dataclass(frozen=True)
class Remembering:
    """The parts that remember: memory, facts, the graph, the context pipeline and session-end work."""

    memory: MemoryService
    port: ConversationMemory  # the orchestrator's MemoryPort and the store tools' MemoryBrowser
    facts: FactMemory
    knowledge: KnowledgeService
    extractor: FactExtractor
    context: ContextGatherer
    sessions: SessionEnd
    review: ReviewQueue
    nlp: SpacyPipeline
    embedder: Embedder  # the one MiniLM: memory, the heads, and recall's matching by meaning
    skills: SkillLibrary  # the skills folder, indexed into memory (learned ones are written there too)
    synthesis: SynthesisEngine  # connections between distant memories, and their blind audit


def build_remembering(
    config: AppConfig,
    journal: Journal,
    history: JournalHistory,
    model: ChatProvider | None,
    stack: ExitStack,
    *,
    judge: ChatProvider | None = None,
    local: LocalModelProvider | None = None,
) -> Remembering:
    """Memory, facts, the graph and the context pipeline over `journal`; `model` (the side model, if any)
    adjudicates facts, refines queries and writes session-end summaries; `judge` (a capable model, if
    any) rates synthesis candidates, and `local` (the embedded model) reads their bridges' word order."""
    from core.nlp import SpacyPipeline
    from core.pipeline.escalation import EscalationConfig
    from core.turn_context import ContextGatherer
    from memory.embeddings import MiniLMEmbedder
    from memory.facts.adjudicator import LlmAdjudicator
    from memory.facts.object_types import ObjectTypes
    from memory.facts.service import open_fact_memory
    from memory.facts.updates import UpdateReader
    from memory.session_state_store import SESSION_STATE_FILE, SessionStateDB
    from memory.shutdown.session_end import open_session_end

    embedder = MiniLMEmbedder(threads=1)  # one model for memory, facts and the intent and tone heads
    review = open_review(config, stack)
    memory, port = open_memory(config, journal, embedder, review, stack)
    nlp = SpacyPipeline()  # one spaCy model for topics and facts, loaded on the first message
    knowledge, extractor = build_knowledge(config), build_extractor(nlp)
    types = ObjectTypes(nlp, knowledge)  # the gate rejects a fact whose object does not fit its relation
    facts, close_facts = open_fact_memory(
        config.data_dir,
        memory,
        LlmAdjudicator(model) if model else None,
        types,
        UpdateReader(nlp, embedder.embed),  # "he's at Microsoft" read against what is known
        clock=journal.clock,
    )
    stack.callback(close_facts)
    knowledge.catch_up(facts.changes_since(knowledge.saved_at))  # a crash between the two saves
    analyzer = build_analyzer(embedder, nlp)
    refiner = None
    if model is not None and config.context.llm_refinement:
        from core.pipeline.rewrite import LlmRefiner

        refiner = LlmRefiner(model, timeout_s=config.context.refine_timeout_s)
    states = SessionStateDB(config.data_dir / SESSION_STATE_FILE)  # each session's escalation, tones, context
    stack.callback(states.close)
    context = ContextGatherer(
        history,
        memory=port,
        recall_limit=config.memory.recall_limit,
        evidence_limit=config.memory.evidence_limit,
        knowledge=knowledge,
        analyzer=analyzer,
        escalation=EscalationConfig(),
        refiner=refiner,
        facts=facts,
        states=states,
        clock=journal.clock,  # "now" is when the journal dates the turn
    )
    skills = open_skills(config, memory)
    synthesis = build_synthesis(
        config.synthesis,
        open_synthesis_book(config.data_dir, config.synthesis, stack),
        memory,
        nlp,
        graph=knowledge.snapshot,
        judge=judge,
        local=local,
    )
    synthesis.keep_accepted()  # connections accepted by `synthesis audit` while memory was closed
    synthesize = session_end_synthesis(synthesis, config.synthesis) if config.synthesis.enabled else None
    steps = _session_end_steps(
        memory, facts, journal, extractor, knowledge, analyzer, model, review, skills, synthesize
    )
    sessions, close_sessions = open_session_end(
        config.data_dir, journal, steps, llm_available=model is not None
    )
    stack.callback(close_sessions)
    return Remembering(
        memory, port, facts, knowledge, extractor, context, sessions, review, nlp, embedder, skills, synthesis
    )


def open_skills(config: AppConfig, memory: MemoryService | None) -> SkillLibrary:
    """The skills folder, its index in `memory` made to match it (only changed skills are embedded)."""
    from memory.skills import SKILLS_DIR, SkillLibrary

    skills = SkillLibrary(config.data_dir / SKILLS_DIR, memory)
    if memory is not None:
        skills.sync()
    return skills


def _session_end_steps(
    memory: MemoryService,
    facts: FactMemory,
    journal: Journal,
    extractor: FactExtractor,
    knowledge: KnowledgeService,
    analyzer: ContextAnalyzer,
    model: ChatProvider | None,
    review: ReviewQueue,
    skills: SkillLibrary,
    synthesize: Callable[[str], Awaitable[dict[str, Any]]] | None,
) -> list[Step]:
    from memory.facts.llm_extraction import LlmFactExtractor
    from memory.shutdown.session_end import build_steps

    return build_steps(
        memory,
        facts,
        journal,
        extractor,
        model=model,
        model_facts=LlmFactExtractor(model) if model else None,
        learn=knowledge.learn,
        tone=analyzer.tone_of,
        review=review,
        skills=skills.learn,
        synthesize=synthesize,
    )
