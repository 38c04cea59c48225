"""Section items from the gathered context: recalled memories routed by collection, the newest records,
the conversation, the query, the time. Memories get citation markers and their date; a document some of
whose facts were superseded since carries the HISTORICAL prefix."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import MappingProxyType

from core.ports import RecalledMemory, TurnRecord
from core.prompt.assembly import PromptItem, SectionContent
from core.prompt.sections import QUERY_MARKER
from core.temporal import query_time_window
from core.turn_context import STALE_PREFIX, SUPERSEDED_PREFIX, TurnContext

# collection -> the section its relevant (recalled) records go to
RECALLED_SECTION = MappingProxyType(
    {
        "conversations": "relevant_memories",
        "facts": "relevant_information",
        "summaries": "semantic_summaries",
        "reflections": "semantic_reflections",
        "threads": "unresolved_threads",
        "proposals": "proposed_features",
        "procedural_skills": "adaptive_workflows",
        "git_commits": "commit_history",
        "reference_docs": "documentation",
        "obsidian_notes": "personal_notes",
        "wiki_knowledge": "background_knowledge",
        "visual_memories": "visual_memories",
        "synthesis_results": "proactive_insights",
    }
)
# collection -> the section its newest records go to (shown whatever the query)
LATEST_SECTION = MappingProxyType(
    {
        "summaries": "recent_summaries",
        "reflections": "recent_reflections",
        "threads": "unresolved_threads",
        "proposals": "proposed_features",
    }
)


def memory_sections(context: TurnContext) -> dict[str, SectionContent]:
    """Recalled memories by section (relevance order), then the newest records not already shown."""
    items: dict[str, list[PromptItem]] = {}
    shown: set[str] = set()
    counter = iter(range(1, 10_000))
    for memory in context.memories:
        section = RECALLED_SECTION.get(memory.collection, "relevant_memories")
        item = _memory_item(memory, next(counter), f"relevance {memory.score:.2f}")
        items.setdefault(section, []).append(item)
        shown.add(memory.id)
    for collection, records in context.latest.items():
        latest_section = LATEST_SECTION.get(collection)
        for memory in records:
            if latest_section is None or memory.id in shown:
                continue
            items.setdefault(latest_section, []).append(
                _memory_item(memory, next(counter), "newest of its kind")
            )
            shown.add(memory.id)
    for question in context.short_term.open_questions:
        items.setdefault("unresolved_threads", []).append(
            PromptItem(f"Still unanswered from this session: {question}", why="short-term: left open")
        )
    if grounding := _grounding(context):
        items["temporal_grounding"] = [grounding]
    return {key: SectionContent(key, tuple(value)) for key, value in items.items()}


def _memory_item(memory: RecalledMemory, number: int, why: str) -> PromptItem:
    when = f"({_date(memory.created_at)}) " if memory.created_at else ""
    stale = f"{STALE_PREFIX} " if memory.staleness > 0 else ""
    text = " ".join(memory.text.split())
    reason = f"{memory.collection}, {why}"
    if memory.superseded:  # history, not the present: the model must not answer from it as if current
        stale = f"{SUPERSEDED_PREFIX} "
        reason += ", superseded by a newer fact"
    elif stale:
        reason += f", {memory.staleness:.0%} of its facts superseded since"
    cite = f"[M{number}]"
    return PromptItem(
        f"{stale}{when}{text}",
        id=memory.id,
        score=memory.score,
        why=reason,
        cite=cite,
        collection=memory.collection,
        label=memory_label(memory),
    )


_KINDS = MappingProxyType(  # a collection as the sources list names what came from it
    {
        "summaries": "A summary of an earlier conversation",
        "reflections": "A reflection on an earlier conversation",
        "threads": "An open thread",
        "facts": "Something you told me",
        "visual_memories": "An image",
    }
)
_LABEL_CHARS = 200


def memory_label(memory: RecalledMemory) -> str:
    """A recalled memory as a reply's source list shows it: the user's own words with their day ("You said
    on 7 Dec 2026: “…”": never Daemon's reply), a document's name and passage, or its kind and text."""
    day = f" on {datetime.fromtimestamp(memory.created_at):%-d %b %Y}" if memory.created_at else ""
    text = " ".join(memory.text.split())
    if memory.collection == "conversations":
        said = text.split(" Assistant: ", 1)[0].removeprefix("User: ")
        return f"You said{day}: \u201c{_clip(said)}\u201d"
    if memory.collection in DOCUMENT_COLLECTIONS:
        return f"{memory.source or 'A document'}: \u201c{_clip(text)}\u201d"
    return f"{_KINDS.get(memory.collection, 'A memory')}{day}: {_clip(text)}"


def _clip(text: str) -> str:
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1].rstrip() + "\u2026"


UNANSWERED_NOTE = "(Not answered: Daemon stopped before replying to this message.)"


def turn_item(turn: TurnRecord) -> PromptItem:
    reply = f"\nAssistant: {turn.assistant}" if turn.assistant else ""
    if not turn.assistant and turn.status == "interrupted":
        reply = f"\n{UNANSWERED_NOTE}"
    return PromptItem(
        f"User: {turn.user}{reply}", id=turn.turn_id, why="this session, in order", collection="journal"
    )


def query_item(context: TurnContext) -> PromptItem:
    """The user's own words, with the exchange they follow (the prompt never shows the rewritten query)."""
    last = context.history[-1] if context.history else None
    before = ""
    if last is not None and last.assistant:
        before = f"(Your last reply was: {' '.join(last.assistant.split())[:400]})\n"
    return PromptItem(f"{before}{QUERY_MARKER}{context.text}", id="query", why="the message being answered")


DOCUMENT_COLLECTIONS = ("reference_docs", "obsidian_notes")
INVENTORY_NOTE = (
    "Do not search memory again for what this covers; call a tool only for what it does not (or when the "
    "user asks for it)."
)


def inventory_items(context: TurnContext) -> tuple[PromptItem, ...]:
    """What retrieval already did for this message, in counts: the memories per collection, the user's
    facts, whether documents and the web were consulted (a model with tools then does not search again)."""
    counts: dict[str, int] = {}
    for memory in (*context.memories, *(m for records in context.latest.values() for m in records)):
        counts[memory.collection] = counts.get(memory.collection, 0) + 1
    found = ", ".join(f"{n} from {name}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    searched = f"found {found}" if found else "found nothing relevant"
    passages = sum(counts.get(name, 0) for name in DOCUMENT_COLLECTIONS)
    documents = f"yes, {passages} passage{'s' if passages != 1 else ''}" if passages else "none matched"
    lines = [
        f"Memory search already ran for this message and {searched}.",
        f"User facts in the profile: {len(context.profile)}.",
        f"Documents consulted: {documents}. Web: not consulted.",
        INVENTORY_NOTE,
    ]
    return tuple(PromptItem(line, why="retrieval counts") for line in lines)


def time_items(now: float, last_session_at: float | None) -> tuple[PromptItem, ...]:
    moment = datetime.fromtimestamp(now).astimezone()
    items = [PromptItem(f"Now: {moment:%A %d %B %Y, %H:%M %Z}.", why="the clock")]
    if last_session_at:
        gap = _gap(now - last_session_at)
        items.append(
            PromptItem(
                f"The previous conversation was {gap} ago ({_date(last_session_at)}).", why="the journal"
            )
        )
    return tuple(items)


def _grounding(context: TurnContext) -> PromptItem | None:
    window = query_time_window(context.text, datetime.fromtimestamp(context.now or 0.0))
    if window is None or not context.now:
        return None
    last_day = window.end - timedelta(seconds=1)  # the window is [start, end)
    start, end = window.start.strftime("%Y-%m-%d"), last_day.strftime("%Y-%m-%d")
    span = start if start == end else f"{start} to {end}"
    text = f'"{window.expression}" in the message means {span}.'
    return PromptItem(text, why="a time named in the query")


def _date(at: float | None) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d") if at else ""


def _gap(seconds: float) -> str:
    for unit, size in (("day", 86_400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return "moments"
