"""Daemon's composition root: parse arguments, load config, build objects, dispatch.

Nothing imports this module. Heavy packages are imported inside the functions that need them, so
`python main.py --help` answers at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.agent.factory import AgentGuards
    from core.config import AppConfig
    from core.generation.extractive import ExtractiveRecall
    from core.mcp.runtime import McpRuntime
    from core.nlp import SpacyPipeline
    from core.orchestrator import Orchestrator
    from core.pipeline.analyzer import ContextAnalyzer
    from core.ports import FactExtractor, FactPort, ImageFinder, MemoryBrowser, MemoryPort
    from core.prompt.builder import PromptBuilder
    from core.providers.base import ChatProvider
    from core.providers.registry import ProviderFactory
    from core.tools.base import Tool
    from core.tools.catalog import ToolCatalog
    from core.turn_context import ContextGatherer, JournalHistory
    from knowledge.service import KnowledgeService
    from memory.embeddings import Embedder
    from memory.facts.service import FactMemory
    from memory.journal import Journal
    from memory.review import ReviewQueue
    from memory.service import MemoryService
    from memory.shutdown.processor import Step
    from memory.shutdown.session_end import SessionEnd
    from memory.visual.retrieval import ImageRecall
    from memory.visual.store import VisualMemory
    from ui.shared.inventory import Inventory
    from ui.shared.services import Services

from core.data_dir import PRIVATE_UMASK
from ui.arguments import build_parser
from ui.shared.boundary import protect_streams

log = logging.getLogger("daemon")

PROJECT_DIR = Path(__file__).resolve().parent
WEB_TOOL_NAMES = frozenset({"web_search", "wolfram_alpha"})  # withdrawn while the user is recalling
BUILTIN_NAMES = frozenset({"current_time", "calculator"})  # core/tools/builtin.py
VERSION = "0.1.0"
OFFLINE_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TQDM_DISABLE": "1",
}


def main(argv: Sequence[str] | None = None) -> int:
    protect_streams()  # stdin never fails to decode, stdout/stderr pass no escape sequence (ui/shared/boundary.py)
    args = build_parser(VERSION).parse_args(argv)
    for name, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(name, value)
    os.umask(PRIVATE_UMASK)  # whatever this process creates (journal, Chroma, logs) is the user's alone
    from core.torch_compat import install_import_hook

    install_import_hook()  # any import of transformers/torchvision/open_clip gets the torchvision shim first
    # SIGTERM unwinds the main thread like Ctrl-C: the front end's own cleanup (session-end processing,
    # closing files) then runs on its own event loop, never inside a signal handler.
    from ui.shared.termination import install_termination

    install_termination()
    from ui.shared.failures import run_guarded

    return run_guarded(lambda: _run(args), f"`{args.command or 'gui'}`")


def _run(args: argparse.Namespace) -> int:
    from core.data_dir import prepare_data_dir
    from ui.shared.failures import setup_logging

    config, env = _load_settings(args)
    keeps_data = args.command not in ("doctor", "analyze", "tool", "bench")  # doctor reports a bad one
    if keeps_data:
        prepare_data_dir(config.data_dir)  # private (0700/0600); a clear error if it cannot be a folder
    # stderr, one line a record (`--json` keeps stdout one object); tracebacks go to the data dir's log
    setup_logging(config.log_level, config.data_dir if keeps_data or config.data_dir.is_dir() else None)
    return _dispatch(args, config, env)


def _load_settings(args: argparse.Namespace) -> tuple[AppConfig, dict[str, str]]:
    from core.config import load_config, merged_environment

    env = merged_environment(os.environ, Path.cwd() / ".env")
    overrides: dict[str, Any] = {}
    if args.data_dir is not None:  # a relative flag is relative to where the user is
        overrides["data_dir"] = os.path.abspath(args.data_dir)
    if getattr(args, "host", None):
        overrides["gui.host"] = args.host
    if getattr(args, "port", None):
        overrides["gui.port"] = args.port
    config = _absolute_data_dir(load_config(args.config, env, overrides))
    # What the wizard saved in the data dir: keys under the environment (a set variable wins), settings
    # under --config FILE, .env, the environment and flags (core/config_user.py, core/secrets.py).
    from core.config_user import settings_path
    from core.secrets import SecretStore, under_environment

    env = under_environment(SecretStore(config.data_dir).as_env(), env)
    settings = settings_path(config.data_dir)
    return _absolute_data_dir(load_config(args.config, env, overrides, settings_file=settings)), env


def _absolute_data_dir(config: AppConfig) -> AppConfig:
    if config.data_dir.is_absolute():
        return config
    return config.model_copy(update={"data_dir": (PROJECT_DIR / config.data_dir).resolve()})


def _dispatch(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    command = args.command or "gui"
    if command == "doctor":
        from installer.doctor import print_report, run_checks

        return print_report(run_checks(config, env), as_json=args.json)
    if command == "tool":
        return _tool_command(args, config, env)
    if command == "bench":
        return _bench_command(args, config)
    if command == "image":
        return _image_command(args, config, env)
    if command == "mcp":
        return _mcp_command(args, config, env)
    if command == "api":
        from ui.api.serve import api_command

        return api_command(args, env, lambda: build_services(config, env))
    if command == "analyze":
        from memory.embeddings import MiniLMEmbedder
        from memory.session_state import read_session_states
        from ui.terminal.analyze import analyze_command

        states = read_session_states(config.data_dir) if args.session else None  # reads only: takes no lock
        try:
            return analyze_command(
                build_analyzer(MiniLMEmbedder(threads=1)),
                args.text,
                args.file,
                as_json=args.json,
                session_id=args.session,
                states=states,
                explain=args.explain,
            )
        finally:
            if states is not None:
                states.close()

    if command in ("ingest", "docs"):
        return _documents_command(args, config)
    if command == "sync":
        return _sync_command(args, config)
    from ui.commands import run_command

    # ask/history/memory/facts/cli go to a Daemon already running on this data dir when one answers
    def build() -> Services:
        return build_services(config, env, with_memory=command != "history")

    return run_command(command, args, config.data_dir, build)


def _bench_command(args: argparse.Namespace, config: AppConfig) -> int:
    from memory.embeddings import MiniLMEmbedder
    from ui.terminal.bench import bench_command

    embedder = MiniLMEmbedder(threads=1)
    if args.bench_command == "ingest":
        from ui.terminal.bench import bench_ingest

        return bench_ingest(args, config, lambda folder: build_memory_service(config, embedder, folder))
    return bench_command(
        args,
        config,
        embedder,
        lambda folder: build_memory_service(config, embedder, folder),
        lambda other: build_services(other, {}),
        lambda folder, other: build_memory_service(config, other, folder),
        answering=lambda: _offline_answering(config),
    )


def _sync_command(args: argparse.Namespace, config: AppConfig) -> int:
    """`sync obsidian|git`: the source into memory (and the vault's links into the graph), under the data
    dir's lock like every writer."""
    from memory.embeddings import MiniLMEmbedder
    from memory.lock import DataDirLock
    from ui.terminal.sync import sync_command

    lock = DataDirLock(config.data_dir)
    try:
        return sync_command(
            args.sync_command,
            config,
            lambda: build_memory_service(config, MiniLMEmbedder(), config.data_dir / "chroma"),
            lambda: build_knowledge(config),
            as_json=args.json,
            resume=args.resume,
        )
    finally:
        lock.close()


def _documents_command(args: argparse.Namespace, config: AppConfig) -> int:
    """`ingest` and `docs`: the job ledger always; the memory store (under the data dir's lock) only for
    the commands that read or write documents (`docs jobs|cancel` work beside a running job)."""
    from knowledge.jobs import JOBS_FILE, JobLedger
    from ui.terminal.documents import IngestParts, docs_command, ingest_command

    closers: list[Callable[[], None]] = []
    try:
        ledger = JobLedger(config.data_dir / JOBS_FILE)
        closers.append(ledger.close)
        needs_store = args.command == "ingest" or args.docs_command not in ("jobs", "cancel")
        if needs_store:  # a job handed to a detached process waits for this one to let go of the folder
            closers.append(
                _hold_data_dir(config.data_dir, wait_s=30.0 if os.environ.get(_JOB_CHILD) else 0.0)
            )

        def open_ingester() -> Any:
            return _build_ingester(config, closers)

        spawn = (lambda: _spawn_resume(args, config)) if args.command == "ingest" else None
        parts = IngestParts(ledger, open_ingester, spawn)
        return ingest_command(args, parts) if args.command == "ingest" else docs_command(args, parts)
    finally:
        while closers:
            closers.pop()()


_JOB_CHILD = "DAEMON_INGEST_CHILD"


def _hold_data_dir(data_dir: Path, *, wait_s: float) -> Callable[[], None]:
    """Take the data dir's lock, retrying for up to `wait_s` seconds; its release function."""
    import time

    from core.errors import StorageError
    from memory.lock import DataDirLock

    deadline = time.monotonic() + wait_s
    while True:
        try:
            return DataDirLock(data_dir).close
        except StorageError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def _build_ingester(config: AppConfig, closers: list[Callable[[], None]]) -> Any:
    """The document ingester over the data dir's memory store (what the user hid stays unlisted)."""
    from knowledge.documents.pipeline import DocumentIngester
    from memory.document_store import ReferenceDocStore, minilm_token_counter
    from memory.embeddings import MiniLMEmbedder
    from memory.review import REVIEW_FILE, ReviewQueue

    review = ReviewQueue(config.data_dir / REVIEW_FILE)
    closers.append(review.close)
    # No chat shares this process: the embedder may use every core.
    memory = build_memory_service(
        config, MiniLMEmbedder(), config.data_dir / "chroma", review.hidden.hidden_ids
    )
    closers.append(memory.close)
    return DocumentIngester(ReferenceDocStore(memory), config.documents, minilm_token_counter())


def _spawn_resume(args: argparse.Namespace, config: AppConfig) -> int:
    """Start `ingest --resume` detached from this terminal (output to nowhere: the ledger has the progress,
    the data dir's log the failures); returns its pid."""
    import subprocess

    command = [sys.executable, str(PROJECT_DIR / "main.py"), "--data-dir", str(config.data_dir)]
    if args.config is not None:
        command += ["--config", str(Path(args.config).resolve())]
    child = subprocess.Popen(
        [*command, "ingest", "--resume", "--json"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, _JOB_CHILD: "1"},
        cwd=Path.cwd(),
    )
    return child.pid


def _image_command(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    """`image add|list|remove|search`: visual memory over the data dir's stores (held like any front end);
    the vision model captions only for `add`."""
    from memory.embeddings import MiniLMEmbedder
    from memory.lock import DataDirLock
    from memory.review import REVIEW_FILE, ReviewQueue
    from ui.terminal.images import image_command

    closers: list[Callable[[], None]] = [DataDirLock(config.data_dir).close]
    try:
        review = ReviewQueue(config.data_dir / REVIEW_FILE)
        closers.append(review.close)

        def open_visual() -> VisualMemory:
            chroma = config.data_dir / "chroma"
            memory = build_memory_service(config, MiniLMEmbedder(threads=1), chroma, review.hidden.hidden_ids)
            closers.append(memory.close)
            captions = args.image_command == "add"
            visual = build_visual(config, memory, build_knowledge(config), env, captions=captions)
            closers.append(visual.close)
            return visual

        return image_command(args, open_visual, config.visual.min_clip_score)
    finally:
        while closers:
            closers.pop()()


def build_visual(
    config: AppConfig,
    memory: MemoryService,
    knowledge: KnowledgeService,
    env: Mapping[str, str],
    *,
    captions: bool = False,
) -> VisualMemory:
    """Visual memory over `memory`: CLIP vectors in a FAISS index of the data dir when `visual.weights` is
    set (else caption/tag search only), tags resolved through the graph, captions from `models.vision` when
    `captions` (adding images) and it is set."""
    from core.providers.vision_caption import build_captioner
    from knowledge.visual_entities import GraphEntities
    from memory.visual.decode import ImageLimits
    from memory.visual.encoder import ClipEncoder
    from memory.visual.index import FaissImageIndex
    from memory.visual.store import VisualMemory

    cfg = config.visual
    limits = ImageLimits(int(cfg.max_file_mb * 1_000_000), cfg.max_pixels, cfg.max_side)
    encoder = ClipEncoder(cfg.model, cfg.weights, threads=cfg.threads) if cfg.weights else None
    index = FaissImageIndex(config.data_dir / cfg.index_file, encoder.name, encoder.dim) if encoder else None
    return VisualMemory(
        memory,
        limits,
        index=index,
        encoder=encoder,
        captioner=build_captioner(config, env) if captions else None,
        entities=GraphEntities(knowledge.graph),
    )


def _image_recall(
    config: AppConfig,
    memory: MemoryService,
    knowledge: KnowledgeService,
    env: Mapping[str, str] | None = None,
) -> ImageRecall:
    """What `recall_image` searches through: visual memory's entity, CLIP and caption retrieval. With `env`
    (the app: the GUI adds images through it) `models.vision` captions, when it can."""
    from core.errors import ConfigError
    from memory.visual.retrieval import ImageRecall

    try:
        visual = build_visual(config, memory, knowledge, env or {}, captions=env is not None)
    except ConfigError as error:  # a misconfigured caption model must not stop the chat
        log.warning("images are captioned without a vision model: %s", error)
        visual = build_visual(config, memory, knowledge, {})
    return ImageRecall(visual, min_clip_score=config.visual.min_clip_score)


def _mcp_command(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    """`mcp`: the memory tools for MCP clients, over the stores of the data dir (held like any front end)."""
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.turn_context import JournalHistory
    from memory.journal import Journal
    from memory.lock import DataDirLock
    from ui.mcp_server.server import MemoryBridge, build_mcp_server, serve_http, serve_stdio, stdout_to_stderr
    from ui.shared.bearer_auth import TOKEN_FILE

    closers: list[Callable[[], None]] = [DataDirLock(config.data_dir).close]
    try:
        with stdout_to_stderr():  # over stdio, stdout is the protocol's: nothing a model loader prints
            journal = Journal(config.data_dir / "journal.sqlite3")
            closers.append(journal.close)
            journal.interrupt_pending()
            factory = ProviderFactory(config, env, CostLedger(budget_usd=config.budget.max_usd))
            side = _side_model(config, factory, factory.available()[0])  # the gate's adjudicator, as in chat
            history = JournalHistory(journal, config.history.recent_turns)
            parts = _build_remembering(config, journal, history, side, closers)
        bridge = MemoryBridge(
            parts.memory, journal, parts.port, parts.facts, parts.knowledge, parts.extractor
        )
        server = build_mcp_server(bridge, VERSION)
        if args.http is None:
            return serve_stdio(server)
        return serve_http(server, args.http, config.data_dir / TOKEN_FILE)
    finally:
        while closers:
            closers.pop()()


def _offline_answering(config: AppConfig) -> tuple[Any, PromptBuilder, ChatProvider]:
    """`bench answers`: the extractive answerer, the embedded model and the prompt the app gives it."""
    from core.generation.extractive import ExtractiveAnswerer
    from core.nlp import SpacyPipeline
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory

    model = ProviderFactory(config, {}, CostLedger()).for_chat("local")
    return ExtractiveAnswerer(SpacyPipeline()), build_prompt(config, "local", None), model


def _tool_command(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    """`tool list|run`: the catalog and the agent's guards; the memory stores are opened only when the
    command needs them (listing every tool, or running one that is not among the light ones)."""
    from ui.terminal.tools import ToolRunner, list_tools, run_tool

    closers: list[Callable[[], None]] = []
    try:
        mcp = _mcp_runtime(config, closers)
        catalog = build_tool_catalog(config, env, mcp=mcp)
        if args.tool_command == "list" or args.name not in _catalog_names(catalog):
            catalog = build_tool_catalog(config, env, mcp=mcp, **_tool_stores(config, closers))
        if args.tool_command == "list":
            return list_tools(catalog, as_json=args.json)
        runner = ToolRunner(catalog, build_tool_policy(config).policy)
        return run_tool(runner, args.name, args.args, as_json=args.json, approve=args.approve)
    finally:
        while closers:
            closers.pop()()


def _catalog_names(catalog: ToolCatalog) -> set[str]:
    return {*catalog.available.names(), *(u.name for u in catalog.unavailable)}


def _tool_stores(config: AppConfig, closers: list[Callable[[], None]]) -> dict[str, Any]:
    """The memory and fact stores the store tools read, for `tool`: opened under the data dir's lock (the
    embedding model loads only if a search needs it), or why they cannot be."""
    from core.data_dir import prepare_data_dir
    from core.errors import StorageError
    from memory.embeddings import MiniLMEmbedder
    from memory.facts.service import open_fact_memory
    from memory.journal import Journal
    from memory.lock import DataDirLock
    from memory.review import REVIEW_FILE, ReviewQueue

    prepare_data_dir(config.data_dir)
    try:
        closers.append(DataDirLock(config.data_dir).close)
    except StorageError as error:  # the GUI or a chat holds the folder: the light tools still work
        return {"stores_unavailable": f"the data folder is in use ({error})"}
    journal = Journal(config.data_dir / "journal.sqlite3")
    closers.append(journal.close)
    review = ReviewQueue(config.data_dir / REVIEW_FILE)
    closers.append(review.close)
    memory, port = _build_memory(config, journal, MiniLMEmbedder(threads=1), review)
    closers.append(memory.close)
    facts, close_facts = open_fact_memory(config.data_dir, memory)
    closers.append(close_facts)
    return {"memory": port, "facts": facts, "images": _image_recall(config, memory, build_knowledge(config))}


def build_analyzer(embedder: Embedder, nlp: SpacyPipeline | None = None) -> ContextAnalyzer:
    """The context pipeline's analyzer; MiniLM heads settle unsure intents and paraphrased distress."""
    from core.nlp import SpacyPipeline
    from core.pipeline.analyzer import ContextAnalyzer
    from core.pipeline.intent import IntentClassifier
    from core.pipeline.linear_head import INTENT_HEAD, TONE_HEAD, HeadError, LinearHead
    from core.pipeline.tone import ToneDetector
    from core.pipeline.tone_danger import DangerReader
    from core.pipeline.topics import TopicExtractor
    from memory.tuned_encoder import load_head_for

    heads: dict[str, LinearHead] = {}
    for spec in (INTENT_HEAD, TONE_HEAD):
        try:
            heads[spec.name] = load_head_for(spec, embedder)
        except HeadError as exc:  # the cues and the lexicon alone still classify every message
            log.warning("%s head not used: %s", spec.name, exc)
    intent = IntentClassifier(second_opinion=heads.get(INTENT_HEAD.name))
    nlp = nlp or SpacyPipeline()  # one spaCy model for topics and the tone's danger reader
    tone = ToneDetector(head=heads.get(TONE_HEAD.name), danger=DangerReader(nlp))
    return ContextAnalyzer(intent, tone, TopicExtractor(nlp))


def build_knowledge(config: AppConfig) -> KnowledgeService:
    """The knowledge graph of the data dir."""
    from knowledge.graph_store import GRAPH_FILE, GraphStore
    from knowledge.service import KnowledgeService

    return KnowledgeService(GraphStore(config.data_dir / GRAPH_FILE))


def build_extractor(nlp: SpacyPipeline) -> FactExtractor:
    """Offline facts: spaCy's parse as verb frames, rules for the rest (an LLM pass runs at session end)."""
    from memory.facts.grammar import GrammarFactExtractor

    return GrammarFactExtractor(nlp)


def build_recall(nlp: SpacyPipeline) -> ExtractiveRecall:
    """Recall questions answered from memory, extractively, for the embedded model (which cannot)."""
    from core.generation.extractive import ExtractiveAnswerer, ExtractiveRecall

    return ExtractiveRecall(ExtractiveAnswerer(nlp))


def build_tool_catalog(
    config: AppConfig,
    env: Mapping[str, str],
    *,
    memory: MemoryBrowser | None = None,
    facts: FactPort | None = None,
    nlp: SpacyPipeline | None = None,
    side: ChatProvider | None = None,
    stores_unavailable: str | None = None,
    images: ImageFinder | None = None,
    mcp: McpRuntime | None = None,
) -> ToolCatalog:
    """Every tool Daemon knows, available or with the reason it is not: the built-in ones (config-level
    timeout and retries), the store tools over `memory` and `facts` (left out without `memory`; listed as
    unavailable when `stores_unavailable` says why), web search and Wolfram|Alpha, Python execution, and
    the tools of the configured MCP servers (started through `mcp`, which the caller closes)."""
    from dataclasses import replace

    from core.tools.builtin import builtin_tools
    from core.tools.catalog import ToolCatalog, UnavailableTool
    from core.tools.code_exec.tool import code_tools
    from core.tools.store_tools import MEMORY_TOOL_NAMES, store_tools
    from core.tools.web.factory import web_tools

    agent, tools = config.agent, config.tools
    entries: list[Tool | UnavailableTool] = [
        replace(t, timeout_s=agent.tool_timeout_s, retries=agent.tool_retries) for t in builtin_tools()
    ]
    if memory is not None:
        entries += store_tools(memory, facts, tools.git_stats, config.session.git_repos, images=images)
    elif stores_unavailable is not None:
        about = "A tool over your memory."
        entries += [UnavailableTool(n, about, stores_unavailable) for n in sorted(MEMORY_TOOL_NAMES)]
    entries += web_tools(tools, env, config.data_dir, nlp=nlp, side_model=side)
    entries += code_tools(tools.execute_python, env)
    if mcp is not None and config.mcp_servers:
        from core.mcp.tools import mcp_tools

        entries += mcp_tools(config.mcp_servers, mcp, env)
    return ToolCatalog.of(entries)


def _mcp_runtime(config: AppConfig, closers: list[Callable[[], None]]) -> McpRuntime | None:
    """The runtime that holds the configured MCP servers' sessions (none configured: None); the caller's
    closers stop their processes."""
    if not config.mcp_servers:
        return None
    from core.mcp.runtime import McpRuntime

    runtime = McpRuntime()
    closers.append(runtime.close)
    return runtime


def build_tool_policy(config: AppConfig, judge: ChatProvider | None = None) -> AgentGuards:
    """The guards every agent and `tool run` apply: per-tool budgets (`tools.max_calls_per_turn`, else
    `agent.max_rounds`), which tools stay on this machine (the exfiltration guard skips them), which read
    memory and which search the web (the gate prefers memory while the user recalls), and the gate's judge."""
    from core.agent.call_guard import ToolPolicy
    from core.agent.factory import AgentGuards
    from core.tools.store_tools import LOCAL_TOOL_NAMES, MEMORY_TOOL_NAMES

    policy = ToolPolicy(
        budgets=dict(config.tools.max_calls_per_turn),
        default_budget=config.agent.max_rounds,
        local_tools=LOCAL_TOOL_NAMES | BUILTIN_NAMES,
        memory_tools=MEMORY_TOOL_NAMES,
        web_tools=WEB_TOOL_NAMES,
    )
    return AgentGuards(policy, judge, config.context.refine_timeout_s)


def build_memory_service(
    config: AppConfig,
    embedder: Embedder,
    chroma_dir: Path,
    hidden: Callable[[str], set[str]] | None = None,
    *,
    persist_lexical: bool = True,
) -> MemoryService:
    """Chroma (embedded in `chroma_dir`, or the configured server) + the search pipeline, opened. The
    lexical index persists beside the store; `persist_lexical=False` (benchmarks: the old start-up path)
    keeps it in memory only, rebuilt from the store."""
    from knowledge.wikipedia import WIKI_KNOWLEDGE, load_wikipedia
    from memory.chroma_store import ChromaStore
    from memory.gating import reranker_from_config
    from memory.lexical import LexicalIndexes
    from memory.lexical_store import LEXICAL_FILE, open_lexical_store
    from memory.profiles import profiles_from_config
    from memory.retrieval import RetrievalSettings
    from memory.schema import STORE_MIGRATIONS, StoreSchema
    from memory.service import MemoryService

    cfg = config.memory
    if cfg.chroma_host:
        store = ChromaStore.http(cfg.chroma_host, cfg.chroma_port, embedder)
    else:
        store = ChromaStore.embedded(chroma_dir, embedder)
    # The schema version lives beside the store (temp -> fsync -> rename, with a backup).
    StoreSchema(chroma_dir.parent / f"{chroma_dir.name}_schema.json", STORE_MIGRATIONS).migrate(store)
    settings = RetrievalSettings(cfg.dense_candidates, cfg.lexical_candidates, cfg.timeout_s)
    reranker = reranker_from_config(cfg.reranker)
    lexical = LexicalIndexes()
    if persist_lexical:  # a damaged file is moved aside and the index rebuilt from the store
        persisted = open_lexical_store(chroma_dir.parent / f"{chroma_dir.name}_{LEXICAL_FILE}")
        lexical = LexicalIndexes(persisted=persisted)
    wiki = config.wikipedia  # the user's optional FAISS index answers as `wiki_knowledge`
    index = load_wikipedia(wiki.index_dir, top_k=wiki.top_k, nprobe=wiki.nprobe)
    service = MemoryService(
        store,
        profiles_from_config(cfg),
        settings,
        reranker=reranker,
        hidden=hidden,
        lexical=lexical,
        sources={WIKI_KNOWLEDGE: index} if index is not None else None,
    )
    service.open()
    return service


def _build_memory(
    config: AppConfig, journal: Journal, embedder: Embedder, review: ReviewQueue
) -> tuple[MemoryService, MemoryPort]:
    from memory.port import ConversationMemory
    from memory.turn_index import TurnIndexer

    service = build_memory_service(config, embedder, config.data_dir / "chroma", review.hidden.hidden_ids)
    indexer = TurnIndexer(service.write_turns, journal)
    indexer.repair()  # turns acknowledged before a crash but never indexed
    return service, ConversationMemory(service, indexer)


def build_services(config: AppConfig, env: dict[str, str], *, with_memory: bool = True) -> Services:
    """Wire the lock, journal, providers, agent loop, memory, facts, graph and orchestrator together."""
    from core.errors import StorageError
    from core.generation.main_model import ModelKit, main_model_choices, model_switcher
    from core.orchestrator import Orchestrator
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.tools.store_tools import LOCAL_TOOL_NAMES
    from core.turn_context import JournalHistory
    from memory.journal import Journal
    from memory.lock import DataDirLock
    from memory.visual.attach import turn_images_for
    from ui.shared.inventory import Inventory
    from ui.shared.services import Services
    from ui.terminal.tools import ToolRunner

    config.data_dir.mkdir(parents=True, exist_ok=True)
    journal_path = config.data_dir / "journal.sqlite3"
    try:
        lock = DataDirLock(config.data_dir)  # one process owns a data dir; a second one gets a clear error
    except StorageError:
        if with_memory or not journal_path.exists():
            raise
        lock = None  # `history` only reads: SQLite's WAL lets it read beside the owner (the GUI, a REPL)
    closers = [lock.close] if lock else []
    journal = Journal(journal_path, read_only=lock is None)
    if lock is not None:  # the owner: a turn still pending was cut off by its process dying
        journal.interrupt_pending()
    closers.append(journal.close)
    ledger = CostLedger(budget_usd=config.budget.max_usd)
    factory = ProviderFactory(config, env, ledger)
    names = factory.available()
    history = JournalHistory(journal, config.history.recent_turns)
    if not with_memory:  # `history` reads the journal only: no models to load, no tools to offer
        orchestrator = _journal_only(config, factory, names, journal, history)
        return Services(config, env, orchestrator, ledger, names[0], VERSION, closers=closers)
    side = _side_model(config, factory, names[0])
    parts = _build_remembering(config, journal, history, side, closers)
    images = _image_recall(config, parts.memory, parts.knowledge, env)
    turn_images = turn_images_for(images, config.visual)  # the chat's and the Images tab's (one store)
    catalog = build_tool_catalog(
        config,
        env,
        memory=parts.port,
        facts=parts.facts,
        nlp=parts.nlp,
        side=side,
        images=images,
        mcp=_mcp_runtime(config, closers),
    )
    # The store tools go to capable models only (the embedded one gets extractive recall instead).
    stores = catalog.available.filtered(lambda t: t.name in LOCAL_TOOL_NAMES and t.name not in BUILTIN_NAMES)
    general = catalog.available.filtered(lambda t: t.name not in stores)
    guards = build_tool_policy(config, side)  # the same gate and guards for every model and front end
    inventory = Inventory(
        names,
        side.name if side else None,
        parts.memory,
        parts.facts,
        parts.knowledge,
        catalog.available,
        idle_end_minutes=config.session.idle_end_minutes,
    )
    kit = ModelKit(
        general,
        tuple(stores),
        side,
        build_recall(parts.nlp),
        guards,
        lambda chosen, name: build_prompt(chosen, name, side, inventory),  # the budget follows the window
    )
    choices = main_model_choices(config, factory, names, kit)
    prompt = choices[0].prompt
    assert prompt is not None  # main_model_choices gives the default model its own
    orchestrator = Orchestrator(
        choices,
        journal,
        parts.context,
        prompt,
        memory=parts.port,
        knowledge=parts.knowledge,
        extractor=parts.extractor,
        facts=parts.facts,
        images=turn_images,
    )
    return Services(
        config,
        env,
        orchestrator,
        ledger,
        names[0],
        VERSION,
        parts.memory,
        parts.facts,
        parts.sessions,
        parts.review,
        closers,
        tools=ToolRunner(catalog, guards.policy),
        knowledge=parts.knowledge,
        images=turn_images,
        use_model=model_switcher(config, env, ledger, orchestrator, kit),
    )


def _journal_only(
    config: AppConfig, factory: ProviderFactory, names: list[str], journal: Journal, history: JournalHistory
) -> Orchestrator:
    """The orchestrator of `history`: it reads the journal only, so no tools, memory or models load."""
    from core.generation.setup import model_choices
    from core.orchestrator import Orchestrator
    from core.tools.toolset import Toolset
    from core.turn_context import ContextGatherer

    choices = model_choices(config, factory, names, Toolset())
    return Orchestrator(choices, journal, ContextGatherer(history), build_prompt(config, names[0], None))


@dataclass(frozen=True)
class _Remembering:
    """The parts that remember: memory, facts, the graph, the context pipeline and session-end work."""

    memory: MemoryService
    port: MemoryPort
    facts: FactMemory
    knowledge: KnowledgeService
    extractor: FactExtractor
    context: ContextGatherer
    sessions: SessionEnd
    review: ReviewQueue
    nlp: SpacyPipeline


def _build_remembering(
    config: AppConfig,
    journal: Journal,
    history: JournalHistory,
    model: ChatProvider | None,
    closers: list[Callable[[], None]],
) -> _Remembering:
    from core.nlp import SpacyPipeline
    from core.pipeline.escalation import EscalationConfig
    from core.turn_context import ContextGatherer
    from memory.embeddings import MiniLMEmbedder
    from memory.facts.adjudicator import LlmAdjudicator
    from memory.facts.object_types import ObjectTypes
    from memory.facts.service import open_fact_memory
    from memory.review import REVIEW_FILE, ReviewQueue
    from memory.session_state import SESSION_STATE_FILE, SessionStateDB
    from memory.shutdown.session_end import open_session_end

    embedder = MiniLMEmbedder(threads=1)  # one model for memory, facts and the intent and tone heads
    review = ReviewQueue(config.data_dir / REVIEW_FILE)  # dedup proposals; what the user hid stays unseen
    closers.append(review.close)
    memory, port = _build_memory(config, journal, embedder, review)
    closers.append(memory.close)
    nlp = SpacyPipeline()  # one spaCy model for topics and facts, loaded on the first message
    knowledge, extractor = build_knowledge(config), build_extractor(nlp)
    types = ObjectTypes(nlp, knowledge)  # the gate rejects a fact whose object does not fit its relation
    facts, closer = open_fact_memory(config.data_dir, memory, LlmAdjudicator(model) if model else None, types)
    closers.append(closer)
    analyzer = build_analyzer(embedder, nlp)
    refiner = None
    if model is not None and config.context.llm_refinement:
        from core.pipeline.rewrite import LlmRefiner

        refiner = LlmRefiner(model, timeout_s=config.context.refine_timeout_s)
    states = SessionStateDB(config.data_dir / SESSION_STATE_FILE)  # each session's escalation, tones, context
    closers.append(states.close)
    context = ContextGatherer(
        history,
        memory=port,
        recall_limit=config.memory.recall_limit,
        knowledge=knowledge,
        analyzer=analyzer,
        escalation=EscalationConfig(),
        refiner=refiner,
        facts=facts,
        states=states,
    )
    steps = _session_end_steps(memory, facts, journal, extractor, knowledge, analyzer, model, review)
    sessions, closer = open_session_end(config.data_dir, journal, steps, llm_available=model is not None)
    closers.append(closer)
    return _Remembering(memory, port, facts, knowledge, extractor, context, sessions, review, nlp)


def _session_end_steps(
    memory: MemoryService,
    facts: FactMemory,
    journal: Journal,
    extractor: FactExtractor,
    knowledge: KnowledgeService,
    analyzer: ContextAnalyzer,
    model: ChatProvider | None,
    review: ReviewQueue,
) -> list[Step]:
    from memory.facts.llm_extraction import LlmFactExtractor
    from memory.shutdown.session_end import build_steps

    model_facts = LlmFactExtractor(model) if model else None
    return build_steps(
        memory,
        facts,
        journal,
        extractor,
        model=model,
        model_facts=model_facts,
        learn=knowledge.learn,
        tone=analyzer.tone_of,
        review=review,
    )


def build_prompt(
    config: AppConfig, main_name: str, side: ChatProvider | None, inventory: Inventory | None = None
) -> PromptBuilder:
    """The prompt builder for the main model: its token counter, its budget (the configured one, capped by
    the context window minus the reply), compression by the side model when there is one."""
    from core.prompt.assembly import MIN_BUDGET
    from core.prompt.builder import PromptBuilder
    from core.prompt.compression import ModelCompressor
    from core.prompt.tokens import counter_for
    from core.system_prompt import system_prompt_reader
    from knowledge.git_changes import GitChanges

    provider = config.providers[main_name]
    counter = counter_for(provider.kind, config.data_dir / "cache" / f"{main_name}-tokenizer.json")
    room = provider.context_window - config.agent.max_tokens - 64
    budget = max(MIN_BUDGET, min(config.prompt.budget_tokens, room))
    return PromptBuilder(
        system_prompt_reader(config.data_dir),  # re-read each turn: the Settings tab's edits apply at once
        counter,
        budget,
        floor_turns=config.prompt.floor_turns,
        compressor=ModelCompressor(side, counter) if side else None,
        disabled=frozenset(config.prompt.disabled_sections),
        inventory=inventory,
        changes=GitChanges(config.session.git_repos) if config.session.git_repos else None,
    )


def _side_model(config: AppConfig, factory: ProviderFactory, main_name: str) -> ChatProvider | None:
    """The model for side jobs (query rewrite, session-end summaries and facts): the `fast` role's, else
    the main one; never the tiny embedded model, which cannot do them reliably (offline heuristics do)."""
    return factory.for_role("fast", main_name)


if __name__ == "__main__":
    sys.exit(main())
