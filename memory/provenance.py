"""Where a memory came from, in one word a person can read: the one reading of a record's collection and
metadata that `memory search --json`, `facts list --json` and the GUI show.

Only "you" is evidence about the user. Everything else may inform (a document, the vault, git) or is
Daemon's own reading of the user's words (a summary), and an imported chat's replies were another
assistant's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory.chat_exports import exported_from
from memory.turn_index import IMPORTED

NOTE_SOURCE = "daemon-note"  # the `source` of a note kept in Daemon (memory/notes.py writes it)

YOU = "you"  # the user's own words, said to Daemon
BY_COLLECTION = {
    "reference_docs": "document",
    "obsidian_notes": "vault",
    "git_commits": "git",
    "visual_memories": "image",
    "wiki_knowledge": "wikipedia",
    "summaries": "daemon",  # Daemon's own reading of your sessions
    "reflections": "daemon",
    "threads": "daemon",
    "proposals": "daemon",
    "procedural_skills": "daemon",
    "synthesis_results": "daemon",
}


def provenance(collection: str, metadata: Mapping[str, Any]) -> str:
    """ "you", "import:chatgpt" (or another import), "note", "document", "vault", "git", "image",
    "wikipedia" or "daemon"."""
    model = str(metadata.get("model", ""))
    if collection == "conversations":
        if source := exported_from(model):
            return f"import:{source}"
        return f"import:{model.removeprefix(IMPORTED)}" if model.startswith(IMPORTED) else YOU
    if collection == "facts":
        return YOU  # facts are learned from the user's own words only (the verification gate)
    if metadata.get("source") == NOTE_SOURCE:
        return "note"  # a note or to-do the user kept in Daemon (memory/notes.py)
    return BY_COLLECTION.get(collection, collection)
