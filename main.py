"""Daemon's composition root: parse arguments, load config, build objects, dispatch.

Nothing imports this module. Heavy packages are imported inside the functions that need them, so
`python main.py --help` answers at once.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.agent.loop import AgentRunner
    from core.config import AppConfig
    from core.orchestrator import Orchestrator
    from core.pipeline.analyzer import ContextAnalyzer
    from core.pipeline.rewrite import LlmRefiner
    from core.ports import FactExtractor, MemoryPort
    from core.providers.base import ChatProvider
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.tools.toolset import Toolset
    from knowledge.service import KnowledgeService
    from memory.embeddings import Embedder
    from memory.journal import Journal
    from memory.lock import DataDirLock
    from memory.service import MemoryService

from ui.arguments import build_parser

PROJECT_DIR = Path(__file__).resolve().parent
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
    args = build_parser(VERSION).parse_args(argv)
    for name, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(name, value)
    from core.errors import DaemonError

    try:
        config, env = _load_settings(args)
        _setup_logging(config)
        return _dispatch(args, config, env)
    except DaemonError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _load_settings(args: argparse.Namespace) -> tuple[AppConfig, dict[str, str]]:
    from core.config import load_config, merged_environment

    env = merged_environment(os.environ, Path.cwd() / ".env")
    overrides: dict[str, Any] = {}
    if args.data_dir is not None:
        overrides["data_dir"] = str(args.data_dir)
    if getattr(args, "host", None):
        overrides["gui.host"] = args.host
    if getattr(args, "port", None):
        overrides["gui.port"] = args.port
    config = load_config(args.config, env, overrides)
    if not config.data_dir.is_absolute():
        config = config.model_copy(update={"data_dir": (PROJECT_DIR / config.data_dir).resolve()})
    return config, env


def _setup_logging(config: AppConfig) -> None:
    # Logs go to stderr so that `--json` output on stdout stays one clean object.
    logging.basicConfig(
        level=config.log_level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )


def _dispatch(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    command = args.command or "gui"
    if command == "doctor":
        from installer.doctor import print_report, run_checks

        return print_report(run_checks(config, env), as_json=args.json)
    if command == "tool":
        return _tool_command(args, config)
    if command == "bench":
        return _bench_command(args, config)
    if command == "analyze":
        from memory.embeddings import MiniLMEmbedder
        from ui.analyze_cli import analyze_command

        return analyze_command(
            build_analyzer(MiniLMEmbedder(threads=1), config), args.text, args.file, as_json=args.json
        )

    services = build_services(config, env, with_memory=command != "history")
    try:
        return _run_front_end(command, args, services)
    finally:
        services.close()


def _run_front_end(command: str, args: argparse.Namespace, services: Services) -> int:
    from ui import cli

    if command == "ask":
        return cli.ask(services.orchestrator, args.text, session_id=args.session, as_json=args.json)
    if command == "history":
        return cli.history(
            services.orchestrator, session_id=args.session, as_json=args.json, limit=args.limit
        )
    if command == "cli":
        return cli.Repl(services.orchestrator, banner=services.banner()).run()
    if command == "memory":
        return _memory_command(args, services)
    return _run_gui(services)


def _memory_command(args: argparse.Namespace, services: Services) -> int:
    from ui.memory_cli import memory_search, memory_stats

    assert services.memory is not None
    if args.memory_command == "stats":
        return memory_stats(services.memory, as_json=args.json)
    return memory_search(
        services.memory,
        args.query,
        collection=args.collection,
        k=args.k,
        intent=args.intent,
        as_json=args.json,
    )


def _bench_command(args: argparse.Namespace, config: AppConfig) -> int:
    from eval.benchmarks.latency_bench import run_latency_benchmark
    from eval.benchmarks.retrieval_bench import run_retrieval_benchmark
    from memory.embeddings import MiniLMEmbedder
    from ui.memory_cli import bench, retrieval_headline

    embedder = MiniLMEmbedder(threads=1)

    def make_service(folder: Path) -> MemoryService:
        return build_memory_service(config, embedder, folder)

    if args.bench_command == "retrieval":
        if not args.dataset.is_file():
            from core.errors import UserInputError

            raise UserInputError(f"dataset not found: {args.dataset}")
        run = lambda: run_retrieval_benchmark(args.dataset, make_service, embedder, args.k)  # noqa: E731
        return bench(run, as_json=args.json, headline=retrieval_headline)
    run = lambda: run_latency_benchmark(make_service, args.memories, args.queries)  # noqa: E731
    return bench(run, as_json=args.json, headline=lambda r: json.dumps(r, indent=2))


def _run_gui(services: Services) -> int:
    from ui.gradio_app import build_app, launch
    from ui.security import check_bind, parse_auth

    gui = services.config.gui
    auth = parse_auth(services.env.get(gui.auth_env))
    check_bind(gui.host, auth)
    # Gradio keeps uploads in its temp dir: keep them inside the data dir, never in a shared /tmp.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(services.config.data_dir / "gradio-tmp"))
    app = build_app(services.orchestrator, model_notice=services.model_notice())
    print(f"Daemon is starting at http://{gui.host}:{gui.port}  (Ctrl-C to stop)", file=sys.stderr)
    launch(app, gui.host, gui.port, auth, blocked_paths=[services.config.data_dir], quiet=True)
    return 0


def _tool_command(args: argparse.Namespace, config: AppConfig) -> int:
    from ui.tools_cli import list_tools, run_tool

    toolset = build_toolset(config)
    if args.tool_command == "list":
        return list_tools(toolset, as_json=args.json)
    return run_tool(toolset, args.name, args.args, as_json=args.json)


@dataclass
class Services:
    """Everything a front end needs, built once from the config."""

    config: AppConfig
    env: dict[str, str]
    journal: Journal
    orchestrator: Orchestrator
    ledger: CostLedger
    main_provider: str
    memory: MemoryService | None = None
    lock: DataDirLock | None = None

    def model_notice(self) -> str | None:
        """A warning shown in the UIs while the tiny embedded model is answering."""
        if self.main_provider != "local":
            return None
        return (
            "Answering with the embedded offline model (SmolLM2-135M): it proves the whole pipeline works "
            "with no key and no network, but it is tiny and unreliable on facts. Set DAEMON_PROVIDER and an "
            "API key, or OPENAI_BASE_URL for a local server such as Ollama, for real answers."
        )

    def banner(self) -> str:
        notice = self.model_notice()
        head = f"Daemon {VERSION} - model: {self.orchestrator.default_model} - data: {self.config.data_dir}"
        return head + (f"\n{notice}" if notice else "")

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
        self.journal.close()
        if self.lock is not None:
            self.lock.close()


def build_analyzer(embedder: Embedder, config: AppConfig) -> ContextAnalyzer:
    """The context pipeline's analyzer; MiniLM exemplars settle unsure intents and borderline tones."""
    from core.pipeline.analyzer import ContextAnalyzer
    from core.pipeline.intent import IntentClassifier
    from core.pipeline.intent_exemplars import load_exemplars
    from core.pipeline.tone import ToneDetector
    from core.pipeline.topics import TopicExtractor

    tone = ToneDetector(embed=embedder.embed)
    exemplars = load_exemplars(embedder.embed, cache_dir=config.data_dir / "cache")
    return ContextAnalyzer(IntentClassifier(exemplars=exemplars), tone, TopicExtractor())


def build_knowledge(config: AppConfig) -> tuple[KnowledgeService, FactExtractor]:
    """The knowledge graph of the data dir and the extractor of the facts that feed it."""
    from knowledge.graph_store import GRAPH_FILE, GraphStore
    from knowledge.service import KnowledgeService
    from memory.facts.extraction import RuleFactExtractor

    return KnowledgeService(GraphStore(config.data_dir / GRAPH_FILE)), RuleFactExtractor()


def build_toolset(config: AppConfig) -> Toolset:
    """The tools the agent may call. Config-level timeout and retries apply to every tool."""
    from dataclasses import replace

    from core.tools.builtin import builtin_tools
    from core.tools.toolset import Toolset

    agent = config.agent
    return Toolset(
        replace(t, timeout_s=agent.tool_timeout_s, retries=agent.tool_retries) for t in builtin_tools()
    )


def build_memory_service(config: AppConfig, embedder: Embedder, chroma_dir: Path) -> MemoryService:
    """Chroma (embedded in `chroma_dir`, or the configured server) + the search pipeline, opened."""
    from memory.chroma_store import ChromaStore
    from memory.gating import reranker_from_config
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
    service = MemoryService(store, profiles_from_config(cfg), settings, reranker=reranker)
    service.open()
    return service


def _build_memory(
    config: AppConfig, journal: Journal, embedder: Embedder
) -> tuple[MemoryService, MemoryPort]:
    from memory.port import ConversationMemory
    from memory.turn_index import TurnIndexer

    service = build_memory_service(config, embedder, config.data_dir / "chroma")
    indexer = TurnIndexer(service.write_turns, journal)
    indexer.repair()  # turns acknowledged before a crash but never indexed
    return service, ConversationMemory(service, indexer)


def build_services(config: AppConfig, env: dict[str, str], *, with_memory: bool = True) -> Services:
    """Wire the lock, journal, memory, providers, agent loop and orchestrator together."""
    from core.orchestrator import ModelChoice, Orchestrator
    from core.pipeline.escalation import EscalationStore
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.system_prompt import build_system_prompt, load_personality
    from core.turn_context import ContextGatherer, JournalHistory
    from memory.journal import Journal
    from memory.lock import DataDirLock

    config.data_dir.mkdir(parents=True, exist_ok=True)
    lock = DataDirLock(config.data_dir)  # one process owns a data dir; a second one gets a clear error
    journal = Journal(config.data_dir / "journal.sqlite3")
    memory, port, analyzer, knowledge, facts = None, None, None, None, None
    if with_memory:
        from memory.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder(threads=1)  # one model for memory and tone exemplars
        memory, port = _build_memory(config, journal, embedder)
        analyzer = build_analyzer(embedder, config)
        knowledge, facts = build_knowledge(config)
    ledger = CostLedger(budget_usd=config.budget.max_usd)
    toolset = build_toolset(config)
    factory = ProviderFactory(config, env, ledger)
    names = factory.available()
    choices = [
        ModelChoice(
            name, _build_agent(factory.for_chat(name), toolset, config, name), config.providers[name].model
        )
        for name in names
    ]
    context = ContextGatherer(
        JournalHistory(journal, config.history.recent_turns), memory=port,
        recall_limit=config.memory.recall_limit, analyzer=analyzer, escalation=EscalationStore(),
        knowledge=knowledge, refiner=_build_refiner(config, factory, names[0]) if with_memory else None,
    )  # fmt: skip
    prompt = build_system_prompt(load_personality(config.data_dir))
    orchestrator = Orchestrator(
        choices, journal, context, prompt, memory=port, knowledge=knowledge, facts=facts
    )
    return Services(config, env, journal, orchestrator, ledger, names[0], memory, lock)


def _build_refiner(config: AppConfig, factory: ProviderFactory, main_name: str) -> LlmRefiner | None:
    """The context pipeline's LLM step: the `fast` role's model, else the main one; never the tiny
    embedded model (it cannot rewrite a query reliably) and not when switched off."""
    from core.pipeline.rewrite import LlmRefiner

    name = config.models.fast or main_name
    if not config.context.llm_refinement or config.providers[name].kind == "local":
        return None
    return LlmRefiner(factory.wrapped(name), timeout_s=config.context.refine_timeout_s)


def _build_agent(provider: ChatProvider, toolset: Toolset, config: AppConfig, name: str) -> AgentRunner:
    from core.agent.compaction import Compactor
    from core.agent.limits import RunLimits
    from core.agent.loop import AgentRunner
    from core.agent.tool_gate import HintedToolGate, OfferAll

    agent = config.agent
    limits = RunLimits(
        max_rounds=agent.max_rounds,
        max_tool_output_chars=agent.max_tool_output_chars,
        response_max_tokens=agent.max_tokens,
        temperature=agent.temperature,
    )
    # The embedded model calls any tool it is offered: offer only the tools the message asks for.
    gate = HintedToolGate() if config.providers[name].kind == "local" else OfferAll()
    compactor = Compactor(threshold=agent.compaction_threshold)
    return AgentRunner(provider, toolset, limits=limits, compactor=compactor, tool_gate=gate)


if __name__ == "__main__":
    sys.exit(main())
