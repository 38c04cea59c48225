"""The Memory tab's logic, free of Gradio: search with score factors, facts (edit by correction, retire,
undo) and the review queue, all through the services the CLIs use (`memory search`, `facts`, `review`)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from core.config_memory import INTENT_NAMES, MEMORY_COLLECTION_NAMES
from core.errors import UserInputError
from core.learning import FactLearning
from core.ports import ExtractedFact, FactPort, FactView, TurnRecord
from core.text import clip
from memory.candidates import QueryContext
from memory.chat_exports import SOURCE_NAMES
from memory.review import ReviewQueue
from memory.scoring import is_superseded
from memory.service import MemoryService, factors_payload
from ui.shared.review_decisions import approve_item, review_rows

ALL = "all collections"
SEARCH_HEADERS = ["#", "kind", "from", "score", "text", "stale", "why it ranks here (score factors)", "id"]
# where a memory came from (memory/provenance.py), as the table says it
SOURCE_LABELS = {
    "you": "you",
    "note": "your note",
    "daemon": "Daemon's reading of your chats",
    "wikipedia": "Wikipedia",
}
FACT_HEADERS = ["id", "subject", "relation", "value", "status", "truth", "note"]
REVIEW_HEADERS = ["id", "kind", "collection", "why", "score", "records"]
EDIT_SESSION = "gui-edits"  # the pseudo-session a fact edited in the GUI is recorded under
RETIRED_REASON = "removed by you in the GUI"


async def search_rows(
    memory: MemoryService, query: str, collection: str, intent: str, k: int = 10
) -> list[list[Any]]:
    """The normal search path (as `memory search`), one row per result with every factor of its score
    and whether the record is stale (a summary relying on replaced facts) or superseded."""
    if not query.strip():
        return []
    if intent not in INTENT_NAMES:
        raise UserInputError(f"unknown intent {intent!r}")
    chosen = None if collection in ("", ALL) else [collection]
    if chosen is not None and collection not in MEMORY_COLLECTION_NAMES:
        raise UserInputError(f"unknown collection {collection!r}")
    ctx = QueryContext(query=query, now=time.time(), intent=intent)
    results = await memory.search(ctx, collections=chosen, k=k)
    rows = []
    for rank, item in enumerate(results, 1):
        payload = factors_payload(item)
        why = ", ".join(f"{name} {value:+.3f}" for name, value in payload["factors"].items() if value)
        rows.append(
            [
                rank,
                collection_label(item.collection),
                source_label(payload["source"]),
                payload["score"],
                clip(item.text, 300),
                staleness(item.metadata),
                why,
                item.id,
            ]
        )
    return rows


def source_label(source: str) -> str:
    """ "you", "ChatGPT (imported)", "document", …: where a memory came from, for people."""
    if source.startswith("import:"):
        name = source.removeprefix("import:")
        return f"{SOURCE_NAMES.get(name, name)} (imported)"
    return SOURCE_LABELS.get(source, source)


def staleness(meta: Any) -> str:
    """How out of date a record is: superseded, or the share of its claims on replaced facts."""
    if is_superseded(meta):
        return "superseded"
    ratio = meta.get("staleness_ratio")
    if isinstance(ratio, int | float) and ratio > 0:
        return f"{ratio:.0%} of its claims replaced"
    return ""


def fact_rows(facts: FactPort, show_history: bool) -> list[list[Any]]:
    """Current facts (and with `show_history` the superseded ones), oldest first."""
    found = facts.list_facts(None if show_history else "current")
    return [
        [f.id, f.subject, f.predicate.replace("_", " "), f.object, f.status, round(f.truth, 2), f.reason]
        for f in found
    ]


@dataclass(frozen=True)
class EditResult:
    message: str
    new_ids: tuple[str, ...] = ()


async def correct_fact(facts: FactPort, learning: FactLearning, fact_id: str, new_value: str) -> EditResult:
    """Replace a fact's value the way a spoken correction does ("…, not X"), through the same path
    (`FactLearning`): the new value passes the verification gate as a correction, the old fact is
    superseded, kept as history, never overwritten, and the knowledge graph follows."""
    new_value = new_value.strip()
    old = _current(facts, fact_id)
    if not new_value or new_value == old.object:
        raise UserInputError("type the new value first")
    relation = old.predicate.replace("_", " ")
    said = f"{old.subject} {relation} {new_value}, not {old.object}"
    fact = ExtractedFact(
        subject=old.subject,
        predicate=old.predicate,
        object=new_value,
        category=old.category or "other",
        scope="user" if old.subject == "user" else "entity",
        excerpt=said,
        confidence=1.0,
        replaces=old.object,
    )
    before = {f.id for f in facts.list_facts("current")}
    turn = TurnRecord(f"gui-edit-{uuid.uuid4().hex[:12]}", EDIT_SESSION, said, "", time.time())
    await learning.record([fact], turn, correcting=True)
    added = tuple(f.id for f in facts.list_facts("current") if f.id not in before)
    if not added:
        raise UserInputError(f"the correction was not accepted: {said!r} did not pass verification")
    if old.id in {f.id for f in facts.list_facts("current")}:  # a relation that holds several values
        await learning.set_current(old, False, f"corrected by you to {new_value!r}")
    return EditResult(f"{old.object} → {new_value} (the old value is kept as history)", added)


async def retire_fact(facts: FactPort, learning: FactLearning, fact_id: str) -> str:
    """Soft-delete: the fact stops being current, in the profile and the graph (kept, and `restore_fact`
    undoes it)."""
    fact = _current(facts, fact_id)
    await learning.set_current(fact, False, RETIRED_REASON)
    return f"removed {fact.subject} {fact.predicate.replace('_', ' ')} {fact.object} (Undo restores it)"


async def restore_fact(facts: FactPort, learning: FactLearning, fact_id: str) -> str:
    """Undo a removal made here: the fact is current again, in the profile and the graph."""
    fact = next((f for f in facts.list_facts(None) if f.id == fact_id), None) if fact_id else None
    if fact is None or not await learning.set_current(fact, True, "restored by you in the GUI"):
        raise UserInputError("nothing to undo")
    return "restored"


def _current(facts: FactPort, fact_id: str) -> FactView:
    for fact in facts.list_facts("current"):
        if fact.id == fact_id:
            return fact
    raise UserInputError("pick a current fact in the table first")


def review_table(queue: ReviewQueue, memory: MemoryService) -> list[list[Any]]:
    """The open dedup and contradiction proposals, as `review list` shows them."""
    rows = []
    for row in review_rows(queue, memory):
        records = " | ".join(f"{r['id']}: {clip(r['text'], 80, one_line=True)}" for r in row["records"])
        rows.append([row["id"], row["kind"], row["collection"], row["explanation"], row["score"], records])
    return rows


def decide_review(
    queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, item_id: str, approve: bool
) -> str:
    """Approve (hide the duplicates, keep the newest; retire the fact a contradiction loses) or dismiss."""
    if queue.get(item_id) is None:
        raise UserInputError("pick an open review item first")
    if approve:
        decided = approve_item(queue, memory, facts, item_id)
        return f"kept {decided.keep}; hid {', '.join(decided.hidden)}"
    queue.dismiss(item_id)
    return f"dismissed {item_id}"


# What each kind of memory is called on the page (its collection name is for the Status tab and the docs).
COLLECTION_LABELS = {
    "conversations": "conversations",
    "facts": "facts",
    "wiki_knowledge": "Wikipedia articles",
    "git_commits": "code history",
    "procedural_skills": "how-tos",
    "summaries": "conversation summaries",
    "reflections": "reflections",
    "threads": "open threads",
    "proposals": "proposals",
    "synthesis_results": "connections found",
    "reference_docs": "documents",
    "obsidian_notes": "notes",
    "visual_memories": "images",
}


def collection_label(name: str) -> str:
    return COLLECTION_LABELS.get(name, name.replace("_", " "))


def choices() -> tuple[list[tuple[str, str]], list[str]]:
    """The search box's choices: the kinds of memory as (label, collection) pairs, and the intents."""
    kinds = [(collection_label(name), name) for name in MEMORY_COLLECTION_NAMES]
    return [("everything", ALL), *kinds], list(INTENT_NAMES)
