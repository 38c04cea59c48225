"""`python main.py bench NAME …`: the README's figures, each measured beside its baseline in the same run
(docs/architecture.md, "Benchmark rules"). One entry of `BENCHMARKS` per benchmark: its flags, and how it
runs on stores built here."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.base import Command
from ui.shared.boundary import count_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from memory.embeddings import Embedder
    from memory.service import MemoryService
    from ui.shared.services import Services
    from ui.terminal.bench import Headline


@dataclass(frozen=True)
class Stores:
    """What the benchmarks run on: temporary stores of the app's own kind, made on demand."""

    config: AppConfig

    @cached_property
    def embedder(self) -> Embedder:
        from memory.embeddings import MiniLMEmbedder

        return MiniLMEmbedder(threads=1)

    def memory_in(self, folder: Path) -> MemoryService:
        """A memory service (the app's search pipeline) over a store in `folder`."""
        return self.memory_with(folder, self.embedder)

    def memory_with(self, folder: Path, embedder: Embedder) -> MemoryService:
        """The same with another embedder (`bench startup` times loading one)."""
        from app.builders.memory import build_memory_service

        return build_memory_service(self.config, embedder, folder)

    def offline_in(self, folder: Path, clock: Callable[[], float] | None = None) -> Services:
        """The whole app on the embedded defaults in `folder`: no model for side jobs. `clock` dates the
        journal's turns (default: the wall clock)."""
        from app.builders.services import build_services

        models = self.config.models.model_copy(update={"main": "local", "fast": None})
        config = self.config.model_copy(update={"data_dir": folder, "models": models})
        return build_services(config, {}, clock=clock)

    @contextmanager
    def echo_answered(self) -> Iterator[Services]:
        """The whole app in a temporary folder, answered by the echo provider (no model's time in the
        figures); closed on leaving."""
        import tempfile

        from app.builders.services import build_services
        from core.config import ProviderConfig

        with tempfile.TemporaryDirectory(prefix="daemon-bench-") as folder:
            providers = {**self.config.providers, "echo": ProviderConfig(kind="echo", model="echo")}
            models = self.config.models.model_copy(update={"main": "echo", "fast": None})
            config = self.config.model_copy(
                update={"data_dir": Path(folder), "models": models, "providers": providers}
            )
            services = build_services(config, {})
            try:
                yield services
            finally:
                services.close()


@dataclass(frozen=True)
class Benchmark:
    """One `bench NAME`: its help, its flags (`--json` is added to all), what it runs, how it prints."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Stores], dict[str, Any]]
    headline: Callable[[], Headline] | None = None  # imported when printed: eval and ui load lazily


def _dataset(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", type=Path, required=True, help="a LoCoMo JSON file")


def _existing(dataset: Path) -> Path:
    from core.errors import UserInputError

    if not dataset.is_file():
        raise UserInputError(f"dataset not found: {dataset}")
    return dataset


def _retrieval_arguments(parser: argparse.ArgumentParser) -> None:
    _dataset(parser)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])


def _retrieval(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.retrieval_bench import run_retrieval_benchmark

    return run_retrieval_benchmark(_existing(args.dataset), stores.memory_in, stores.embedder, args.k)


def _retrieval_headline() -> Headline:
    from ui.terminal.bench import retrieval_headline

    return retrieval_headline


def _answers_arguments(parser: argparse.ArgumentParser) -> None:
    _dataset(parser)
    parser.add_argument("--sample", type=count_arg(1, 10_000), default=200, help="questions (default 200)")
    parser.add_argument(
        "--model-sample",
        type=int,
        default=40,
        help="of those, how many the embedded model answers (default 40)",
    )
    parser.add_argument("--seed", type=int, default=19)


def _answers(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from app.builders.models import offline_answering
    from eval.benchmarks.answers_bench import run_answers_benchmark

    dataset = _existing(args.dataset)
    answerer, prompt, model = offline_answering(stores.config)
    return run_answers_benchmark(
        dataset,
        stores.memory_in,
        answerer,
        prompt,
        model if args.model_sample else None,
        sample=args.sample,
        model_sample=args.model_sample,
        seed=args.seed,
    )


def _answers_headline() -> Headline:
    from eval.benchmarks.answers_bench import answers_headline

    return answers_headline


def _prompt_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--budget", type=int, default=15_000)


def _prompt(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.prompt_bench import run_prompt_benchmark

    return run_prompt_benchmark(stores.offline_in, args.budget)


def _session_end_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=int, default=50)


def _session_end(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.session_end_bench import run_session_end_benchmark

    return run_session_end_benchmark(stores.offline_in, args.turns)


def _latency_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument(
        "--empty-sources", action="store_true", help="5 source collections empty; beside a search of them all"
    )


def _latency(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.latency_bench import run_latency_benchmark

    return run_latency_benchmark(
        stores.memory_in, args.memories, args.queries, empty_sources=args.empty_sources
    )


def _ingest_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=count_arg(1, 1000), default=5, help="PDFs, and as many .md (5)")
    parser.add_argument("--pages", type=count_arg(1, 500), default=6, help="pages per document (default 6)")
    parser.add_argument("--runs", type=count_arg(1, 50), default=3)


def _ingest(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.ingest_bench import run_ingest_benchmark

    documents = stores.config.documents
    return run_ingest_benchmark(stores.memory_in, documents, docs=args.docs, pages=args.pages, runs=args.runs)


def _ingest_headline() -> Headline:
    from eval.benchmarks.ingest_bench import ingest_headline

    return ingest_headline


def _startup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--baseline-tree", type=Path, help="another source tree (e.g. an older commit) timed on the same data"
    )


def _startup(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.startup_bench import run_startup_benchmark

    return run_startup_benchmark(
        args.memories, stores.memory_with, runs=args.runs, baseline_tree=args.baseline_tree
    )


def _images_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--images", type=count_arg(1, 10_000), default=40, help="generated images (40)")


def _images(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.image_bench import run_image_benchmark
    from memory.visual.encoder import ClipEncoder

    visual = stores.config.visual
    encoder = ClipEncoder(visual.model, visual.weights, threads=visual.threads)
    return run_image_benchmark(encoder, args.images)


def _images_headline() -> Headline:
    from eval.benchmarks.image_bench import image_headline

    return image_headline


def _tone_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset",
        type=Path,
        nargs="+",
        required=True,
        help="one utterance a line (ordinary chat), or a labelled TSV text<TAB>level; several files allowed",
    )
    parser.add_argument(
        "--evidence", type=Path, help="crisis rows labelled file<TAB>text<TAB>evidence<TAB>kind"
    )


def _tone(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from app.builders.models import build_tone_detector
    from core.nlp import SpacyPipeline
    from core.pipeline.tone import ToneDetector
    from eval.benchmarks.tone_bench import run_tone_benchmark

    datasets = [_existing(path) for path in args.dataset]
    evidence = _existing(args.evidence) if args.evidence else None
    detectors = {
        "lexicon alone": ToneDetector(),
        "shipped": build_tone_detector(stores.embedder, SpacyPipeline()),
    }
    return run_tone_benchmark(datasets, detectors, evidence)


def _tone_headline() -> Headline:
    from eval.benchmarks.tone_bench import tone_headline

    return tone_headline


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=count_arg(1, 1_000_000), default=10_000, help="turns (10,000)")
    parser.add_argument("--runs", type=count_arg(1, 50), default=3)


def _export(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from app import VERSION
    from app.builders.archive import archive_layout
    from eval.benchmarks.export_bench import run_export_benchmark

    return run_export_benchmark(
        stores.memory_in, archive_layout(), turns=args.turns, runs=args.runs, app_version=VERSION
    )


def _tracing_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=count_arg(2, 10_000), default=40, help="turns each way (40)")
    parser.add_argument("--seed", type=count_arg(0, 100_000), default=200, help="exchanges in memory (200)")


def _tracing(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    from eval.benchmarks.tracing_bench import run_tracing_benchmark

    with stores.echo_answered() as services:
        return run_tracing_benchmark(services.orchestrator, turns=args.turns, seed=args.seed)


def _api_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sessions", type=count_arg(1, 200), default=20, help="clients at once (20)")
    parser.add_argument("--turns", type=count_arg(1, 1000), default=5, help="turns per client (5)")


def _api(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    import secrets

    from eval.benchmarks.api_load_bench import run_api_load_benchmark
    from ui.api.serve import services_health
    from ui.api.server import build_api

    with stores.echo_answered() as services:
        token = secrets.token_urlsafe(24)
        app = build_api(services.orchestrator, token, "127.0.0.1", services_health(services))
        return run_api_load_benchmark(
            app, token, services.orchestrator.history, sessions=args.sessions, turns=args.turns
        )


def _api_headline() -> Headline:
    from eval.benchmarks.api_load_bench import api_load_headline

    return api_load_headline


def _tracing_headline() -> Headline:
    from eval.benchmarks.tracing_bench import tracing_headline

    return tracing_headline


def _synthesis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed", type=count_arg(0, 1_000_000), default=7, help="corpus and sampling seed (7)"
    )
    parser.add_argument(
        "--pairs", type=count_arg(1, 100_000), default=100, help="random baseline pairs (100)"
    )


def _synthesis(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    import tempfile

    from app.builders.synthesis import build_synthesis
    from core.config_synthesis import SynthesisConfig
    from core.nlp import SpacyPipeline
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from eval.benchmarks.synthesis_bench import run_synthesis_benchmark

    nlp = SpacyPipeline()
    local = ProviderFactory(stores.config, {}, CostLedger()).local_model()  # reads bridges' word order
    with tempfile.TemporaryDirectory(prefix="daemon-bench-synthesis-") as folder:
        memory = stores.memory_in(Path(folder) / "chroma")

        def engine_for(book: Any, graph: Any, seed: int) -> Any:  # the app's engine, with no judge
            return build_synthesis(
                SynthesisConfig(), book, memory, nlp, graph=graph, judge=None, local=local, seed=seed
            )

        try:
            return run_synthesis_benchmark(
                memory, Path(folder), engine_for, seed=args.seed, baseline_pairs=args.pairs
            )
        finally:
            memory.close()


def _synthesis_headline() -> Headline:
    from eval.benchmarks.synthesis_bench import synthesis_headline

    return synthesis_headline


def _export_headline() -> Headline:
    from eval.benchmarks.export_bench import export_headline

    return export_headline


BENCHMARKS = (
    Benchmark(
        "retrieval",
        "LoCoMo recall@k/MRR with dense and BM25 baselines",
        _retrieval_arguments,
        _retrieval,
        _retrieval_headline,
    ),
    Benchmark(
        "answers",
        "LoCoMo answers offline: the extractive answerer beside the embedded model",
        _answers_arguments,
        _answers,
        _answers_headline,
    ),
    Benchmark("prompt", "prompt assembly time at a budget, beside gathering", _prompt_arguments, _prompt),
    Benchmark("session-end", "session-end processing time for N turns", _session_end_arguments, _session_end),
    Benchmark("latency", "search latency against its floor on N memories", _latency_arguments, _latency),
    Benchmark(
        "ingest",
        "document ingestion pages/s and MB/s beside extraction",
        _ingest_arguments,
        _ingest,
        _ingest_headline,
    ),
    Benchmark("startup", "process start to ready on a data dir of N memories", _startup_arguments, _startup),
    Benchmark(
        "tone",
        "tone false alarms on chat, crisis recall on labelled sets, beside the lexicon alone",
        _tone_arguments,
        _tone,
        _tone_headline,
    ),
    Benchmark(
        "export",
        "export and import turns/s beside reading the turns raw",
        _export_arguments,
        _export,
        _export_headline,
    ),
    Benchmark(
        "tracing",
        "turn latency with local tracing beside without it (echo model: the pipeline only)",
        _tracing_arguments,
        _tracing,
        _tracing_headline,
    ),
    Benchmark(
        "api",
        "clients at once on the OpenAI-compatible API over HTTP, beside one alone; isolation checked",
        _api_arguments,
        _api,
        _api_headline,
    ),
    Benchmark(
        "synthesis",
        "the synthesis filter on a generated corpus: per-stage rates, planted candidates, random baseline",
        _synthesis_arguments,
        _synthesis,
        _synthesis_headline,
    ),
    Benchmark(
        "images",
        "image encode latency beside decode+resize alone",
        _images_arguments,
        _images,
        _images_headline,
    ),
)


def _arguments(parser: argparse.ArgumentParser) -> None:
    benchmarks = parser.add_subparsers(dest="bench_command", metavar="BENCHMARK", required=True)
    for benchmark in BENCHMARKS:
        sub = benchmarks.add_parser(benchmark.name, help=benchmark.help)
        benchmark.arguments(sub)
        sub.add_argument("--json", action="store_true")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.bench import print_benchmark

    benchmark = next(b for b in BENCHMARKS if b.name == args.bench_command)
    result = benchmark.run(args, Stores(config))
    headline = benchmark.headline() if benchmark.headline else None
    return print_benchmark(result, as_json=args.json, headline=headline)


COMMAND = Command("bench", "retrieval quality and latency benchmarks", _arguments, _run, keeps_data=False)
