"""`python main.py ingest PATH…` and `python main.py docs list|remove|reingest|jobs|cancel`: the user's
documents in `reference_docs` (docs/knowledge.md). Both keep the job ledger; the memory store is opened
(under the data dir's lock) only by the commands that read or write documents, so `docs jobs|cancel` work
beside a running job."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import Command
from app.settings import PROJECT_DIR
from ui.shared.boundary import user_text

if TYPE_CHECKING:
    from core.config import AppConfig
    from knowledge.documents.pipeline import DocumentIngester
    from ui.terminal.documents import IngestParts

JOB_CHILD = "DAEMON_INGEST_CHILD"  # set in the detached `ingest --resume` a `--background` job starts


def _ingest_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="files or folders (folders: walked)"
    )
    parser.add_argument("--resume", action="store_true", help="finish ingest jobs a crash or error cut short")
    background = "run the job in a detached process and return at once (`docs jobs` shows its progress)"
    parser.add_argument("--background", action="store_true", help=background)
    parser.add_argument("--json", action="store_true", help="print only the summary, as one JSON object")


def _docs_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="docs_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the stored documents (newest version of each)")
    listing.add_argument("--json", action="store_true")
    for action, text in (
        ("remove", "remove a document (every version) from memory"),
        ("reingest", "read a document's file again; a changed file replaces the stored version"),
    ):
        command = actions.add_parser(action, help=text)
        command.add_argument("id", type=user_text, help="the document id (`docs list`)")
        command.add_argument("--json", action="store_true")
    jobs = actions.add_parser("jobs", help="ingest and sync jobs and their progress")
    jobs.add_argument("--json", action="store_true")
    cancel = actions.add_parser("cancel", help="stop a running job after the item under way")
    cancel.add_argument("job", type=user_text, help="the job id (`docs jobs`)")


def _run_ingest(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.documents import ingest_command

    with ExitStack() as stack:
        parts = _open_parts(config, stack, needs_store=True, spawn=lambda: _spawn_resume(args, config))
        return ingest_command(args, parts)


def _run_docs(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.documents import docs_command

    with ExitStack() as stack:
        needs_store = args.docs_command not in ("jobs", "cancel")  # these two read the ledger only
        return docs_command(args, _open_parts(config, stack, needs_store=needs_store))


def _open_parts(
    config: AppConfig, stack: ExitStack, *, needs_store: bool, spawn: Callable[[], int] | None = None
) -> IngestParts:
    """The job ledger, and the data dir's lock when the command will open the memory store."""
    from knowledge.jobs import JOBS_FILE, JobLedger
    from ui.terminal.documents import IngestParts

    ledger = JobLedger(config.data_dir / JOBS_FILE)
    stack.callback(ledger.close)
    if needs_store:  # a job handed to a detached process waits for this one to let go of the folder
        wait_s = 30.0 if os.environ.get(JOB_CHILD) else 0.0
        stack.callback(_hold_data_dir(config.data_dir, wait_s=wait_s))
    return IngestParts(ledger, lambda: _open_ingester(config, stack), spawn)


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


def _open_ingester(config: AppConfig, stack: ExitStack) -> DocumentIngester:
    """The document ingester over the data dir's memory store (what the user hid stays unlisted)."""
    from app.builders.memory import build_memory_service, chroma_dir, open_review
    from knowledge.documents.pipeline import DocumentIngester
    from memory.document_store import ReferenceDocStore, minilm_token_counter
    from memory.embeddings import MiniLMEmbedder

    review = open_review(config, stack)
    # No chat shares this process: the embedder may use every core.
    memory = build_memory_service(config, MiniLMEmbedder(), chroma_dir(config), review.hidden.hidden_ids)
    stack.callback(memory.close)
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
        env={**os.environ, JOB_CHILD: "1"},
        cwd=Path.cwd(),
    )
    return child.pid


INGEST = Command(
    "ingest", "add documents to memory: txt, md, pdf, docx, html, source code", _ingest_arguments, _run_ingest
)
DOCS = Command("docs", "list, remove or re-ingest stored documents; ingest jobs", _docs_arguments, _run_docs)
