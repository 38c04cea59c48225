"""What the front ends are given: the objects the composition root built, and the one way to close them."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.generation.main_model import UseModel
    from core.orchestrator import Orchestrator
    from core.ports import FactPort, SessionLifecycle
    from core.providers.pricing import CostLedger
    from knowledge.service import KnowledgeService
    from knowledge.synthesis.engine import SynthesisEngine
    from memory.notes import NoteStore
    from memory.review import ReviewQueue
    from memory.service import MemoryService
    from memory.skills import SkillLibrary
    from memory.tasks import TaskStore
    from memory.visual.attach import TurnImages
    from ui.shared.background import BackgroundRunner
    from ui.shared.reminders import ReminderFeed
    from ui.shared.scheduled_snapshots import SnapshotSchedule
    from ui.shared.tool_runner import ToolRunner


@dataclass
class Services:
    """Everything a front end needs, built once from the config by the composition root (app/builders)."""

    config: AppConfig
    env: dict[str, str]
    orchestrator: Orchestrator
    ledger: CostLedger
    main_provider: str
    version: str
    memory: MemoryService | None = None
    facts: FactPort | None = None
    sessions: SessionLifecycle | None = None
    review: ReviewQueue | None = None
    tools: ToolRunner | None = None  # runs the tool calls the user approves (the REPL's proposals)
    knowledge: KnowledgeService | None = None  # the knowledge graph (the GUI's Graph tab)
    images: TurnImages | None = None  # visual memory as the GUI's Images tab and chat attachments use it
    use_model: UseModel | None = None  # makes a model picked in the wizard answer from the next turn on
    snapshots: SnapshotSchedule | None = None  # backups taken while a server runs (backup.every_hours)
    export_archive: Callable[[Path], object] | None = None  # the whole data folder to one archive (GUI)
    tasks: TaskStore | None = None  # the reminders' book (its firings reach every open front end)
    notes: NoteStore | None = None  # notes and to-dos (the Notes tab, the note tools)
    skills: SkillLibrary | None = None  # the skills folder (the Skills tab, `use_skill`)
    background: BackgroundRunner | None = None  # background tasks (started by the front ends that serve)
    synthesis: SynthesisEngine | None = None  # connections between memories and their blind audit
    resources: ExitStack = field(default_factory=ExitStack)  # what close() closes, last opened first

    def reminder_feed(self) -> ReminderFeed | None:
        """A new front end's feed of due reminders (None without a task book)."""
        if self.tasks is None:
            return None
        from ui.shared.reminders import ReminderFeed

        return ReminderFeed(self.tasks)

    def model_notice(self) -> str | None:
        """A warning shown in the UIs while the tiny embedded model is answering."""
        if self.main_provider != "local":
            return None
        return (
            "No AI service is connected, so Daemon is using its small built-in model. Questions about you, "
            "your documents, the time, sums and units are answered from your memory and its tools; other "
            "answers are short and may be wrong. Connect a model in Settings (or see Providers in the "
            "README) for full answers."
        )

    def banner(self) -> str:
        notice = self.model_notice()
        orchestrator = self.orchestrator
        model = orchestrator.describe_model(orchestrator.default_model) or orchestrator.default_model
        head = f"Daemon {self.version} - model: {model} - data: {self.config.data_dir}"
        return head + (f"\n{notice}" if notice else "")

    def close(self) -> None:
        """Close what was opened, last opened first (the data-dir lock is released last)."""
        self.resources.close()
