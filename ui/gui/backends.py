"""What the GUI's tabs work with besides the orchestrator: the same service objects the CLIs use.

Each field is optional so a tab whose back end is missing (a `history`-only build, a test) says so instead
of failing; `from_services` takes them from what the composition root built.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.learning import FactLearning
    from core.ports import FactPort, SessionLifecycle
    from core.tracing import TraceLog
    from knowledge.synthesis.engine import SynthesisEngine
    from memory.notes import NoteStore
    from memory.review import ReviewQueue
    from memory.service import MemoryService
    from memory.skills import SkillLibrary
    from ui.gui.data_tab import DataDesk
    from ui.gui.documents_tab import DocumentDesk
    from ui.gui.graph_tab import GraphReader
    from ui.gui.images_tab import ImageDesk
    from ui.gui.reminders_tab import ReminderDesk
    from ui.gui.wizard import SetupDesk
    from ui.shared.services import Services
    from ui.shared.tool_runner import ToolRunner


@dataclass
class GuiBackends:
    """The services behind the Memory, Documents, Status and Sessions tabs and the chat's approvals."""

    memory: MemoryService | None = None
    facts: FactPort | None = None
    learning: FactLearning | None = None  # the one path fact edits take (the fact store, then the graph)
    review: ReviewQueue | None = None
    sessions: SessionLifecycle | None = None
    tools: ToolRunner | None = None  # runs an approved proposal through the REPL's guards
    knowledge: GraphReader | None = None  # the knowledge graph behind the Graph tab
    documents: DocumentDesk | None = None
    image_desk: ImageDesk | None = None  # visual memory: the Images tab and images attached in the chat
    version: str = ""
    provider: str = ""
    upload_mb: float = 50.0  # Gradio refuses a bigger upload before it reaches a handler
    browser_secret: str = "daemon"  # keys the browser's stored session id (an id, not a secret)
    setup: SetupDesk | None = None  # the first-run wizard and the Settings tab (ui/gui/wizard.py)
    data: DataDesk | None = None  # the "Your data" tab: what is stored, hosts, export, snapshots
    reminders: ReminderDesk | None = None  # the Reminders tab and the banner of due ones
    traces: TraceLog | None = None  # each turn's spans (the Status tab shows one turn's)
    notes: NoteStore | None = None  # the Notes tab: to-dos and notes
    skills: SkillLibrary | None = None  # the Skills tab: the skills folder
    synthesis: SynthesisEngine | None = None  # the Connections tab: the blind review and runs
    synthesis_seconds: float = 120.0  # a run started from the tab stops after this long


def from_services(services: Services) -> GuiBackends:
    """The GUI's back ends from the services the composition root built; the document desk shares their memory
    store."""
    from core.learning import FactLearning
    from core.reachable import contacts
    from ui.gui.app import upload_folder
    from ui.gui.data_tab import EXPORTS, DataDesk
    from ui.gui.documents_tab import open_document_desk
    from ui.gui.images_tab import open_image_desk
    from ui.gui.reminders_tab import ReminderDesk
    from ui.gui.wizard import open_setup_desk

    config = services.config
    desk = None
    if services.memory is not None:
        desk = open_document_desk(config, services.memory, services.knowledge)
        services.resources.callback(desk.close)
    return GuiBackends(
        memory=services.memory,
        facts=services.facts,
        learning=FactLearning(services.facts, services.knowledge) if services.facts is not None else None,
        review=services.review,
        sessions=services.sessions,
        tools=services.tools,
        knowledge=services.knowledge,
        documents=desk,
        image_desk=open_image_desk(services.images, config.data_dir),
        version=services.version,
        provider=services.main_provider,
        upload_mb=config.documents.max_file_mb,
        # Stable across restarts so reopening the page continues its session; per data dir so two Daemons
        # on one machine never read each other's stored id.
        browser_secret=hashlib.sha256(str(config.data_dir).encode()).hexdigest()[:32],
        setup=open_setup_desk(config, services.main_provider, services.use_model),
        data=DataDesk(
            config.data_dir,
            services.memory,
            contacts(config, services.env),
            services.snapshots,
            services.export_archive,
            upload_folder() / EXPORTS,
        ),
        reminders=ReminderDesk(services.tasks, background=services.background) if services.tasks else None,
        traces=services.orchestrator.traces,
        notes=services.notes,
        skills=services.skills,
        synthesis=services.synthesis,
        synthesis_seconds=config.synthesis.run_seconds,
    )
