"""`bench retrieval | latency | session-end | prompt | startup | ingest`: the README's figures."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.config import AppConfig
from core.errors import UserInputError
from memory.embeddings import Embedder
from memory.service import MemoryService
from ui.shared.services import Services
from ui.terminal.memory import bench, retrieval_headline


def bench_command(
    args: argparse.Namespace,
    config: AppConfig,
    embedder: Embedder,
    memory_in: Callable[[Path], MemoryService],
    services_for: Callable[[AppConfig], Services],
    memory_with: Callable[[Path, Embedder], MemoryService] | None = None,
    *,
    answering: Callable[[], tuple[Any, Any, Any]] | None = None,
) -> int:
    """Run one benchmark; `memory_in(folder)` opens a memory service, `memory_with(folder, embedder)` one
    with another embedder, `services_for(config)` a whole app, `answering()` the extractive answerer, the
    prompt builder and the embedded model (`bench answers`)."""
    as_json = args.json
    if args.bench_command == "answers":
        from eval.benchmarks.answers_bench import answers_headline, run_answers_benchmark

        if not args.dataset.is_file():
            raise UserInputError(f"dataset not found: {args.dataset}")
        if answering is None:
            raise UserInputError("bench answers needs the answering parts")
        answerer, prompt, model = answering()
        run = lambda: run_answers_benchmark(  # noqa: E731
            args.dataset,
            memory_in,
            answerer,
            prompt,
            model if args.model_sample else None,
            sample=args.sample,
            model_sample=args.model_sample,
            seed=args.seed,
        )
        return bench(run, as_json=as_json, headline=answers_headline)

    def offline_in(folder: Path) -> Services:  # the embedded defaults: no model for side jobs
        models = config.models.model_copy(update={"main": "local", "fast": None})
        return services_for(config.model_copy(update={"data_dir": folder, "models": models}))

    if args.bench_command == "prompt":
        from eval.benchmarks.prompt_bench import run_prompt_benchmark

        run = lambda: run_prompt_benchmark(offline_in, args.budget)  # noqa: E731
        return bench(run, as_json=as_json, headline=_dump)
    if args.bench_command == "session-end":
        from eval.benchmarks.session_end_bench import run_session_end_benchmark

        run = lambda: run_session_end_benchmark(offline_in, args.turns)  # noqa: E731
        return bench(run, as_json=as_json, headline=_dump)
    if args.bench_command == "retrieval":
        from eval.benchmarks.retrieval_bench import run_retrieval_benchmark

        if not args.dataset.is_file():
            raise UserInputError(f"dataset not found: {args.dataset}")
        run = lambda: run_retrieval_benchmark(args.dataset, memory_in, embedder, args.k)  # noqa: E731
        return bench(run, as_json=as_json, headline=retrieval_headline)
    if args.bench_command == "images":
        from eval.benchmarks.image_bench import image_headline, run_image_benchmark
        from memory.visual.encoder import ClipEncoder

        visual = config.visual
        encoder = ClipEncoder(visual.model, visual.weights, threads=visual.threads)
        return bench(
            lambda: run_image_benchmark(encoder, args.images), as_json=as_json, headline=image_headline
        )
    if args.bench_command == "startup":
        from eval.benchmarks.startup_bench import run_startup_benchmark

        if memory_with is None:
            raise UserInputError("bench startup needs a memory factory that takes an embedder")
        run = lambda: run_startup_benchmark(  # noqa: E731
            args.memories, memory_with, runs=args.runs, baseline_tree=args.baseline_tree
        )
        return bench(run, as_json=as_json, headline=_dump)
    from eval.benchmarks.latency_bench import run_latency_benchmark

    return bench(
        lambda: run_latency_benchmark(
            memory_in, args.memories, args.queries, empty_sources=getattr(args, "empty_sources", False)
        ),
        as_json=as_json,
        headline=_dump,
    )


def _dump(result: dict[str, Any]) -> str:
    return json.dumps(result, indent=2)


def bench_ingest(
    args: argparse.Namespace, config: AppConfig, memory_in: Callable[[Path], MemoryService]
) -> int:
    """`bench ingest`: document ingestion throughput beside plain text extraction (eval/benchmarks)."""
    from eval.benchmarks.ingest_bench import ingest_headline, run_ingest_benchmark

    run = lambda: run_ingest_benchmark(  # noqa: E731
        memory_in, config.documents, docs=args.docs, pages=args.pages, runs=args.runs
    )
    return bench(run, as_json=args.json, headline=ingest_headline)
