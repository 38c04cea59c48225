"""Where a memory came from, read one way for every collection."""

from __future__ import annotations

import pytest

from memory.provenance import provenance
from ui.gui.memory_logic import source_label


@pytest.mark.parametrize(
    ("collection", "metadata", "source", "label"),
    [
        ("conversations", {"model": "smollm2-135m"}, "you", "you"),
        ("conversations", {"model": "chatgpt export"}, "import:chatgpt", "ChatGPT (imported)"),
        ("conversations", {"model": "import:locomo"}, "import:locomo", "locomo (imported)"),
        ("facts", {"source_turn_id": "t1"}, "you", "you"),
        ("reference_docs", {"title": "recipe"}, "document", "document"),
        ("obsidian_notes", {}, "vault", "vault"),
        ("git_commits", {}, "git", "git"),
        ("visual_memories", {}, "image", "image"),
        ("summaries", {"session_id": "s"}, "daemon", "Daemon's reading of your chats"),
    ],
)
def test_each_memory_says_where_it_came_from(
    collection: str, metadata: dict[str, str], source: str, label: str
) -> None:
    assert provenance(collection, metadata) == source
    assert source_label(source) == label
