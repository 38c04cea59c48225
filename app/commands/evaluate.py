"""`python main.py eval locomo …`: LoCoMo answered end to end through the real write and read paths, beside
`bench answers`' method on the same questions (`eval/locomo_eval.py`); it works in temporary data dirs of its
own, and of the user's only the `eval` folder gets the reports asked for (`eval/reports.py`).
`python main.py eval variants …`: answers to saved prompts and their variants, in resumable batches, judged
blind against the full prompt's answer (`eval/ablation.py`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.base import Command
from core.errors import UserInputError
from ui.shared.boundary import count_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from eval.judge import LocomoJudge


def _arguments(parser: argparse.ArgumentParser) -> None:
    evaluations = parser.add_subparsers(dest="eval_command", metavar="EVALUATION", required=True)
    locomo = evaluations.add_parser("locomo", help="LoCoMo answered end to end, beside bench answers' method")
    locomo.add_argument("--dataset", type=Path, required=True, help="a LoCoMo JSON file")
    locomo.add_argument("--sample", type=count_arg(0, 100_000), default=0, help="questions (default 0: all)")
    conversations_help = "the first K conversations of the file (default 0: all)"
    locomo.add_argument("--conversations", type=count_arg(0, 10_000), default=0, help=conversations_help)
    locomo.add_argument("--seed", type=int, default=19, help="the question sample's seed (default 19)")
    locomo.add_argument("--json", action="store_true", help="print one JSON object")
    judge_help = "a configured model that grades each answer CORRECT or WRONG (mem0's LoCoMo judge protocol)"
    locomo.add_argument("--judge", metavar="MODEL", help=judge_help)
    report_help = "also write a markdown and an HTML report (with plots) to the data dir's eval folder"
    locomo.add_argument("--report", action="store_true", help=report_help)
    _variants_arguments(
        evaluations.add_parser("variants", help="answers to saved prompts and their variants, judged")
    )
    corpus = evaluations.add_parser(
        "corpus", help="seed queries, three or more per intent, checked without an LLM"
    )
    corpus.add_argument(
        "--corpus", type=Path, metavar="FILE", help="a corpus file (default: the shipped one)"
    )
    corpus.add_argument("--json", action="store_true", help="print one JSON object")


def _variants_arguments(parser: argparse.ArgumentParser) -> None:
    from eval.variants import STRATEGIES

    parser.add_argument(
        "--snapshot", type=Path, nargs="+", required=True, metavar="FILE", help="saved prompts"
    )
    parser.add_argument(
        "--model", required=True, help="the configured model that answers (the embedded one too)"
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="results; a rerun resumes there"
    )
    strategies_help = f"which variants (default: all of {', '.join(STRATEGIES)})"
    parser.add_argument(
        "--strategies", nargs="+", choices=STRATEGIES, default=list(STRATEGIES), help=strategies_help
    )
    parser.add_argument(
        "--judge",
        metavar="MODEL",
        help="a configured model that compares each variant's answer with the full prompt's",
    )
    parser.add_argument("--concurrency", type=count_arg(1, 64), default=2, help="answers at once (default 2)")
    parser.add_argument("--rate", type=count_arg(1, 100_000), help="at most this many calls a minute")
    parser.add_argument("--seed", type=int, default=7, help="the judge's A/B placement seed (default 7)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    if args.eval_command == "variants":
        return _variants(args, config, env)
    if args.eval_command == "corpus":
        return _corpus(args, config)
    return _locomo(args, config, env)


def _corpus(args: argparse.Namespace, config: AppConfig) -> int:
    import asyncio
    import tempfile

    from app.builders.models import build_analyzer
    from app.commands.bench import Stores
    from eval.corpus import CORPUS, corpus_headline, load_corpus, run_corpus
    from memory.embeddings import MiniLMEmbedder
    from ui.shared.payloads import print_json

    path = args.corpus or CORPUS
    if not path.is_file():
        raise UserInputError(f"corpus not found: {path}")
    seed, queries = load_corpus(path)
    analyzer = build_analyzer(MiniLMEmbedder(threads=1))
    with tempfile.TemporaryDirectory(prefix="daemon-eval-corpus-") as folder:
        services = Stores(config).offline_in(Path(folder))
        try:
            progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
            run = run_corpus(services.orchestrator, analyzer.analyze, seed, queries, progress)
            result = asyncio.run(run)
        finally:
            services.close()
    if args.json:
        print_json(result)
    else:
        print(corpus_headline(result))
    return 0


def _variants(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    import asyncio

    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from eval.ablation import run_ablation
    from ui.shared.payloads import print_json

    if args.model not in config.providers:  # the judge's name is checked by `_judge`
        raise UserInputError(f"unknown model {args.model!r}; configured: {', '.join(config.providers)}")
    factory = ProviderFactory(config, env, CostLedger(budget_usd=config.budget.max_usd))
    judge = _judge(config, env, args.judge).provider if args.judge else None
    result = asyncio.run(
        run_ablation(
            args.snapshot,
            factory.wrapped(args.model),
            args.out,
            strategies=args.strategies,
            judge=judge,
            concurrency=args.concurrency,
            per_minute=args.rate,
            seed=args.seed,
        )
    )
    if args.json:
        print_json(result)
    else:
        for name, row in result["variants"].items():
            wins = row.get("vs_full", {}).get("accuracy")
            judged = (
                f"  accuracy vs full: {wins['variant']} won, {wins['full']} lost, {wins['tie']} tied"
                if wins
                else ""
            )
            print(f"{name:<40} {row.get('tokens', 0):>7} tokens{judged}")
        print(f"results in {args.out}", file=sys.stderr)
    return 0


def _locomo(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.models import offline_answering
    from app.commands.bench import Stores
    from eval.locomo_eval import bench_answers_baseline, locomo_headline, run_locomo_eval
    from ui.shared.payloads import print_json

    if not args.dataset.is_file():
        raise UserInputError(f"dataset not found: {args.dataset}")
    stores = Stores(config)
    answerer, prompt, _ = offline_answering(config)
    judge = _judge(config, env, args.judge) if args.judge else None
    result: dict[str, Any] = run_locomo_eval(
        args.dataset,
        stores.offline_in,
        bench_answers_baseline(stores.memory_in, answerer, prompt),
        judge,
        conversations=args.conversations,
        sample=args.sample,
        seed=args.seed,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    if judge is not None:
        result["judge"]["model"] = args.judge
    if args.report:
        from eval.reports import write_locomo_report

        for path in write_locomo_report(result, config.data_dir):
            print(f"report: {path}", file=sys.stderr)
    if args.json:
        print_json(result)
    else:
        print(locomo_headline(result))
    return 0


def _judge(config: AppConfig, env: dict[str, str], name: str) -> LocomoJudge:
    """The judge over the configured model `name` (not the embedded one: too small to grade)."""
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from eval.judge import LocomoJudge

    if name not in config.providers:
        raise UserInputError(f"unknown model {name!r} for --judge; configured: {', '.join(config.providers)}")
    provider = ProviderFactory(config, env, CostLedger(budget_usd=config.budget.max_usd)).capable(name)
    if provider is None:
        raise UserInputError(f"{name!r} is the embedded model, too small to grade answers; choose another")
    return LocomoJudge(provider)


COMMAND = Command(
    "eval",
    "answer quality: LoCoMo end to end, prompt variants answered and judged",
    _arguments,
    _run,
    keeps_data=False,
)
