"""The Documents tab's Sources section in a real browser: "Sync now" on a vault and on a repository starts
each sync as a background job, the job list follows it to `done`, and the chat answers meanwhile.

The stack is tests/browser/gui_stack.py's (real memory service, graph store and job ledger, a scripted
model) with a vault of Markdown notes and a git repository made here as its configured sources."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge.git_history import GitHistorySync
from knowledge.obsidian import ObsidianSync
from knowledge.source_sync import SyncSource
from knowledge.sync_ledger import SyncLedger
from tests.browser.gui_page import Gui, free_port, open_page, send, tab, uploads_inside
from tests.browser.gui_stack import build_stack
from ui.gui.documents_tab import SourceDesk
from ui.shared.source_sync import MemorySink

VIEWPORT_HEIGHT = 1100  # the Sources table and the job list both in view
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def make_sources(root: Path) -> tuple[Path, Path]:
    vault = root / "vault"
    vault.mkdir()
    (vault / "Garden.md").write_text("# Garden\nBasil and figs. [[Compost]] #gardening\n")
    (vault / "Compost.md").write_text("Three parts brown to one green. #gardening\n")
    (vault / "Trips.md").write_text("Lyon in May. [[Garden]]\n")
    repo = root / "repo"
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "A"}
    env["GIT_COMMITTER_EMAIL"] = "a@x"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    for i in range(2):
        (repo / "plan.txt").write_text(f"step {i}\n")
        subprocess.run(["git", "-C", str(repo), "add", "plan.txt"], check=True, env=env)
        subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", f"Plan step {i}"], check=True, env=env)
    return vault, repo


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    from ui.gui.app import build_app, launch

    data = tmp_path_factory.mktemp("gui-sources-data")
    vault, repo = make_sources(tmp_path_factory.mktemp("sources"))
    restore_uploads = uploads_inside(data)
    stack = build_stack(data)
    desk: Any = stack.backends.documents
    ledger = SyncLedger(desk.ledger)
    sink = MemorySink(stack.memory)

    def open_sync(source: str) -> SyncSource:
        if source == "obsidian":
            return ObsidianSync(vault, sink, ledger, stack.knowledge)
        return GitHistorySync([repo], sink, ledger)

    desk.sources = SourceDesk(desk.ledger, open_sync, vault, (repo,))  # as open_document_desk builds it
    app = build_app(stack.orchestrator, title="Daemon", backends=stack.backends)
    url = launch(app, "127.0.0.1", free_port(), None, block=False, quiet=True, blocked_paths=[data])
    try:
        yield Gui(url, stack, data, tmp_path_factory.mktemp("screenshots"))
    finally:
        app.close()
        desk.sources.wait(30)
        stack.close()
        restore_uploads()


def test_sync_now_runs_each_source_as_a_job_the_list_shows_to_its_end(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    tab(page, "Documents")
    sources = page.locator("#doc-sources")
    expect(sources).to_contain_text("Obsidian vault")
    expect(sources).to_contain_text("vault")
    page.click("#sync-obsidian")
    expect(page.locator("#sync-status")).to_contain_text("sync started")
    jobs = page.locator("#jobs")
    expect(jobs).to_contain_text("sync-obsidian", timeout=30_000)
    expect(page.locator("#sync-status")).to_contain_text("3 added", timeout=30_000)
    expect(jobs).to_contain_text("3/3")

    page.click("#sync-git")
    tab(page, "Chat")  # the chat answers while (or after) the repository syncs
    send(page, "hello while syncing")
    expect(page.locator("#chatbot")).to_contain_text("hello while syncing")
    tab(page, "Documents")
    expect(page.locator("#sync-status")).to_contain_text("Git repositories: 2 added", timeout=30_000)
    expect(jobs).to_contain_text("sync-git")
    gui.shot(page, "documents-sources")

    notes = gui.stack.memory.store.get("obsidian_notes")
    commits = gui.stack.memory.store.get("git_commits")
    assert (len(notes), len(commits)) == (3, 2)
    assert gui.stack.knowledge.graph.edges("note:garden", "links_to")
