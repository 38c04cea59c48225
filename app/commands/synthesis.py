"""`python main.py synthesis run|list|show|audit|stats`: connections between distant memories.

`run` needs the data dir's memory (not beside a running Daemon: use the GUI's Connections tab there);
`list`, `show`, `stats` and `audit` read the synthesis book only (SQLite, safe beside a running Daemon); a
connection accepted there is kept in memory at Daemon's next start.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from ui.shared.boundary import count_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from knowledge.synthesis.book import StoredCandidate
    from ui.shared.services import Services

STATUSES = ("queued", "waiting", "rejected", "accepted", "declined")


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="synthesis_command", metavar="ACTION", required=True)
    run = actions.add_parser("run", help="look for connections now, within a time budget")
    run.add_argument(
        "--seconds", type=count_arg(5, 86_400), default=None, help="budget (synthesis.run_seconds)"
    )
    run.add_argument("--resume", action="store_true", help="lift an auto-halt first (after reviewing why)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    listing = actions.add_parser("list", help="the newest candidates")
    listing.add_argument("--status", choices=STATUSES, default=None, help="only candidates in this state")
    listing.add_argument("--limit", type=count_arg(1, 10_000), default=50)
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    show = actions.add_parser("show", help="one candidate: its ideas, bridge, generator and every stage")
    show.add_argument("candidate_id")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    audit = actions.add_parser(
        "audit", help="review waiting connections blind (interactive; or grade one with --id)"
    )
    audit.add_argument("--id", dest="candidate_id", default=None, help="grade this candidate")
    audit.add_argument("--answers", default=None, help="the three screens as y/n letters, e.g. yyn")
    audit.add_argument("--rating", type=count_arg(1, 5), default=None, help="1-5")
    audit.add_argument("--json", action="store_true", help="print one JSON object (the next one, blind)")
    stats = actions.add_parser("stats", help="counts by state and stage, reviews and the auto-halt")
    stats.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    if args.synthesis_command == "run":
        return on_services(config, env, lambda services: _run_now(args, config, services))
    from app.builders.synthesis import open_synthesis_book
    from core.errors import UserInputError
    from knowledge.synthesis.book import Grade
    from ui.terminal import synthesis as out

    with ExitStack() as stack:
        book = open_synthesis_book(config.data_dir, config.synthesis, stack)
        if args.synthesis_command == "list":
            return out.show_list(book.candidates(args.status, args.limit), as_json=args.json)
        if args.synthesis_command == "show":
            return out.show_candidate(book.get(args.candidate_id), as_json=args.json)
        if args.synthesis_command == "stats":
            return out.show_stats(book.stats(), as_json=args.json)

        def grade(candidate_id: str, grade: Grade) -> tuple[StoredCandidate, bool]:
            return book.grade(candidate_id, grade), False  # kept in memory at the next start

        if args.candidate_id is not None:
            if args.answers is None or args.rating is None:
                raise UserInputError("grading with --id needs --answers (e.g. yyn) and --rating (1-5)")
            graded, kept = grade(args.candidate_id, Grade.of(out.read_answers(args.answers), args.rating))
            return out.show_graded(graded, kept, as_json=args.json)
        if args.json:
            return out.show_next(book.next_for_audit(), len(book.candidates("queued", 10_000)))
        return out.audit_interactively(lambda: list(reversed(book.candidates("queued", 10_000))), grade)


def _run_now(args: argparse.Namespace, config: AppConfig, services: Services) -> int:
    import asyncio
    import sys

    from core.errors import UserInputError
    from knowledge.synthesis.engine import RunBudget
    from ui.terminal.synthesis import show_report

    engine = services.synthesis
    if engine is None:
        raise UserInputError("synthesis needs the data dir's memory")
    if args.resume:
        engine.book.resume()
    settings = config.synthesis
    budget = RunBudget(
        seconds=args.seconds or settings.run_seconds, candidates=settings.candidates_per_generator
    )
    report = asyncio.run(engine.run(budget, progress=lambda line: print(line, file=sys.stderr, flush=True)))
    return show_report(report, as_json=args.json)


COMMAND = Command(
    "synthesis",
    "connections between distant ideas in your memory: run, list, show, audit (blind review), stats",
    _arguments,
    _run,
)
