"""The services a front end runs on: the data dir's lock, the journal, the providers, memory, tools and
the orchestrator, wired together once; `Services.close` closes them, the lock last."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from app import VERSION
from app.builders.background import (
    agent_tools,
    build_subagents,
    open_background,
    results_to_memory_and_front_ends,
)
from app.builders.memory import build_remembering, open_journal
from app.builders.models import build_embedded_answers, build_prompt, side_model
from app.builders.tasks import action_requests, open_task_book
from app.builders.tools import build_tool_catalog, build_tool_policy, open_mcp_runtime, open_notebook
from app.builders.visual import build_image_recall

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.orchestrator import Orchestrator
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.turn_context import JournalHistory
    from memory.journal import Journal
    from memory.service import MemoryService
    from ui.shared.scheduled_snapshots import SnapshotSchedule
    from ui.shared.services import Services


def build_services(
    config: AppConfig,
    env: dict[str, str],
    *,
    with_memory: bool = True,
    clock: Callable[[], float] | None = None,
) -> Services:
    """Wire the lock, journal, providers, agent loop, memory, facts, graph and orchestrator together. If
    anything fails on the way, what was opened is closed again. `clock` dates the journal's turns (default:
    the wall clock)."""
    from core.errors import StorageError
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.turn_context import JournalHistory
    from memory.journal import JOURNAL_FILE
    from memory.lock import DataDirLock
    from ui.shared.services import Services

    config.data_dir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        try:
            # one process owns a data dir; a second one gets a clear error
            stack.callback(DataDirLock(config.data_dir).close)
            owner = True
        except StorageError:
            if with_memory or not (config.data_dir / JOURNAL_FILE).exists():
                raise
            owner = False  # `history` only reads: SQLite's WAL lets it read beside the owner (GUI, a REPL)
        journal = open_journal(config, stack, read_only=not owner, clock=clock)
        ledger = CostLedger(budget_usd=config.budget.max_usd)
        factory = ProviderFactory(config, env, ledger)
        names = factory.available()
        history = JournalHistory(journal, config.history.recent_turns)
        if not with_memory:  # `history` reads the journal only: no models to load, no tools to offer
            orchestrator = _journal_only(config, factory, names, journal, history)
            services = Services(config, env, orchestrator, ledger, names[0], VERSION)
        else:
            services = _remembering_services(config, env, ledger, factory, names, journal, history, stack)
        services.resources.push(stack.pop_all())
    return services


def _remembering_services(
    config: AppConfig,
    env: dict[str, str],
    ledger: CostLedger,
    factory: ProviderFactory,
    names: list[str],
    journal: Journal,
    history: JournalHistory,
    stack: ExitStack,
) -> Services:
    """The full services: memory, facts, the graph, images, every tool and every configured model."""
    from core.generation.main_model import ModelKit, main_model_choices, model_switcher
    from core.orchestrator import Orchestrator
    from core.tools.builtin import BUILTIN_NAMES
    from core.tools.store_tools import LOCAL_TOOL_NAMES
    from memory.visual.attach import turn_images_for
    from ui.shared.inventory import Inventory
    from ui.shared.services import Services
    from ui.shared.tool_runner import ToolRunner

    side = side_model(config, factory, names[0])
    judge = factory.for_role("judge", names[0])  # synthesis's coherence judge
    parts = build_remembering(config, journal, history, side, stack, judge=judge, local=factory.local_model())
    images = build_image_recall(config, parts.memory, parts.knowledge, env)
    turn_images = turn_images_for(images, config.visual)  # the chat's and the Images tab's (one store)
    tasks = open_task_book(config, env, stack)
    notes = open_notebook(config, parts.memory, stack)
    catalog = build_tool_catalog(
        config,
        env,
        memory=parts.port,
        facts=parts.facts,
        nlp=parts.nlp,
        side=side,
        images=images,
        mcp=open_mcp_runtime(config, stack),
        tasks=tasks,
        notes=notes,
        skills=parts.skills,
    )
    guards = build_tool_policy(config, side)  # the same gate and guards for every model and front end
    traces = config.tracing.log(config.data_dir)
    # Subagents run on the main model when it can use tools (never the embedded one).
    subagents = build_subagents(config, factory.capable(names[0]), catalog, guards.policy, traces)
    background = open_background(config, subagents, stack, synthesis=parts.synthesis)
    catalog = catalog.extended(agent_tools(background, subagents, default=next(iter(config.subagents), "")))
    # The store tools go to capable models only (the embedded one gets extractive recall instead).
    stores = catalog.available.filtered(lambda t: t.name in LOCAL_TOOL_NAMES and t.name not in BUILTIN_NAMES)
    general = catalog.available.filtered(lambda t: t.name not in stores)
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
        build_embedded_answers(parts.nlp, parts.embedder, parts.extractor, action_requests(catalog, tasks)),
        guards,
        # the budget follows the window; the skills catalog is read each turn (a skill added since shows)
        lambda chosen, name: build_prompt(chosen, name, side, inventory, parts.skills.catalog),
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
        traces=traces,
    )
    results_to_memory_and_front_ends(background, orchestrator, tasks)
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
        tools=ToolRunner(catalog, guards.policy),
        knowledge=parts.knowledge,
        images=turn_images,
        use_model=model_switcher(config, env, ledger, orchestrator, kit),
        snapshots=snapshot_schedule(config, parts.memory),
        export_archive=archive_export(config, parts.memory),
        tasks=tasks,
        notes=notes,
        skills=parts.skills,
        background=background,
        synthesis=parts.synthesis,
    )


def archive_export(config: AppConfig, memory: MemoryService) -> Callable[[Path], object]:
    """Writes the data folder to one archive from the live store (the GUI's Export button)."""
    from app.builders.archive import archive_layout
    from memory.archive.writer import export_data
    from memory.collections import COLLECTION_NAMES

    layout = archive_layout()

    def export(target: Path) -> object:
        return export_data(
            config.data_dir, layout, memory.store, COLLECTION_NAMES, target, app_version=VERSION
        )

    return export


def snapshot_schedule(config: AppConfig, memory: MemoryService) -> SnapshotSchedule | None:
    """Snapshots of the data dir from the live store while a server runs; None when `every_hours` is 0."""
    if config.backup.every_hours <= 0:
        return None
    from app.builders.archive import archive_layout
    from memory.archive.backups import Backups
    from memory.collections import COLLECTION_NAMES
    from ui.shared.scheduled_snapshots import SnapshotSchedule

    backups = Backups(config.backup.folder(config.data_dir), config.backup.keep)
    layout = archive_layout()

    def take() -> object:
        return backups.take(config.data_dir, layout, memory.store, COLLECTION_NAMES, app_version=VERSION)

    return SnapshotSchedule(backups, take, config.backup.every_hours * 3600.0)


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
