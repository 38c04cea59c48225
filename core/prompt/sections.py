"""The prompt's sections: one table of what can appear, in which order, and what survives a tight budget.

`order` is where a section is emitted: background first, the most useful context near the end, where models
attend best, and the current query always last. `priority` is who gets tokens first when the budget is
short (the query and the recent-turn floor are reserved before any of these). `source` names where the
items come from. `ablatable` sections may be switched off for evaluation; the query and the recent
conversation may not. Which sections an intent uses is in `INTENT_SECTIONS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class SectionSpec:
    key: str
    header: str
    priority: int  # higher gets budget first
    order: int  # lower is emitted earlier
    source: str
    max_items: int = 8
    item_tokens: int = 300  # an item larger than this is compressed to it
    ablatable: bool = True


QUERY = "current_query"
QUERY_MARKER = "The user says: "  # starts the user's own words in the query section (judges, fakes find them)


def users_words(prompt_text: str) -> str:
    """The user's own message inside an assembled prompt (the whole text when it is not one): what tool
    hints must look at, not the context around it."""
    return prompt_text.rsplit(QUERY_MARKER, 1)[-1]


RECENT = "recent_conversation"

_TABLE = (
    # key, header, priority, order, source, max_items, item_tokens
    ("active_features", "ACTIVE FEATURES", 10, 10, "inventory", 12, 200),
    ("codebase_changes", "CODEBASE CHANGES SINCE LAST SESSION", 20, 20, "git", 10, 200),
    ("commit_history", "COMMIT HISTORY", 25, 30, "memory:git_commits", 6, 150),
    ("documentation", "DOCUMENTATION", 35, 40, "memory:reference_docs", 4, 400),
    ("background_knowledge", "BACKGROUND KNOWLEDGE", 30, 50, "memory:wiki_knowledge", 3, 400),
    ("web_search_results", "WEB SEARCH RESULTS", 45, 60, "tools:web_search", 5, 300),
    ("proposed_features", "PROPOSED FEATURES", 15, 70, "memory:proposals", 5, 150),
    ("adaptive_workflows", "ADAPTIVE WORKFLOWS", 40, 80, "memory:procedural_skills", 4, 250),
    ("visual_memories", "VISUAL MEMORIES", 30, 90, "memory:visual_memories", 3, 150),
    ("uploaded_items", "UPLOADED ITEMS", 60, 100, "memory:reference_docs (this session)", 4, 500),
    ("personal_notes", "PERSONAL NOTES", 50, 110, "memory:obsidian_notes", 4, 350),
    ("relevant_information", "RELEVANT INFORMATION", 55, 120, "memory:facts", 10, 120),
    ("semantic_reflections", "RELEVANT REFLECTIONS", 35, 130, "memory:reflections (relevance)", 2, 300),
    ("recent_reflections", "RECENT REFLECTIONS", 30, 140, "memory:reflections (latest)", 1, 300),
    ("semantic_summaries", "RELEVANT SUMMARIES", 45, 150, "memory:summaries (relevance)", 3, 300),
    ("recent_summaries", "RECENT SUMMARIES", 40, 160, "memory:summaries (latest)", 2, 300),
    ("proactive_insights", "PROACTIVE INSIGHTS", 20, 170, "memory:synthesis_results", 3, 200),
    ("unresolved_threads", "UNRESOLVED THREADS", 35, 180, "memory:threads (open) + short-term", 5, 120),
    ("knowledge_graph", "KNOWLEDGE GRAPH", 65, 190, "knowledge graph", 12, 60),
    ("user_profile", "USER PROFILE", 70, 200, "facts (current, about the user)", 30, 60),
    ("relevant_memories", "RELEVANT MEMORIES", 75, 210, "memory:conversations", 8, 300),
    ("time_context", "TIME CONTEXT", 85, 220, "clock + journal", 3, 80),
    ("temporal_grounding", "TEMPORAL GROUNDING", 50, 230, "dates named in the query", 4, 60),
    ("context_inventory", "ALREADY RETRIEVED FOR THIS MESSAGE", 60, 235, "retrieval counts", 4, 120),
    ("short_term_context", "SHORT-TERM CONTEXT", 80, 240, "short-term analysis", 4, 120),
    (RECENT, "RECENT CONVERSATION", 90, 250, "journal (this session)", 12, 400),
    (QUERY, "CURRENT QUERY (with the last exchange)", 100, 260, "the message", 1, 100_000),
)
SECTIONS: Mapping[str, SectionSpec] = MappingProxyType(
    {row[0]: SectionSpec(*row, ablatable=row[0] not in (QUERY, RECENT)) for row in _TABLE}
)
EMIT_ORDER: tuple[str, ...] = tuple(sorted(SECTIONS, key=lambda key: SECTIONS[key].order))

# The context inventory tells a model with tools what retrieval already found, so it does not search again.
_ALWAYS = frozenset(
    {QUERY, RECENT, "time_context", "short_term_context", "user_profile", "context_inventory"}
)
_PERSONAL = frozenset(
    {
        "relevant_memories",
        "relevant_information",
        "knowledge_graph",
        "semantic_summaries",
        "recent_summaries",
        "semantic_reflections",
        "recent_reflections",
        "unresolved_threads",
        "temporal_grounding",
    }
)
_WORK = frozenset(
    {
        "codebase_changes",
        "commit_history",
        "documentation",
        "adaptive_workflows",
        "proposed_features",
        "uploaded_items",
        "web_search_results",
        "background_knowledge",
    }
)
_KNOWLEDGE = frozenset({"background_knowledge", "web_search_results", "documentation", "uploaded_items"})

# Intent -> the sections it may use (beyond _ALWAYS). Emotional support and small talk get no work context;
# technical help gets no reflections; meta questions about Daemon get its features and proposals.
INTENT_SECTIONS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        # a fact may be in a document the user ingested (memory.profiles give reference_docs 8 results)
        "factual_recall": _PERSONAL
        | {"personal_notes", "visual_memories", "uploaded_items", "documentation"},
        "temporal_recall": _PERSONAL | {"personal_notes", "visual_memories"},
        "emotional_support": (_PERSONAL - {"temporal_grounding"}) | {"proactive_insights"},
        "casual_social": frozenset({"relevant_memories", "knowledge_graph", "recent_summaries"}),
        "technical_help": _WORK | {"relevant_memories", "relevant_information", "personal_notes"},
        "creative_exploration": frozenset(
            {
                "relevant_memories",
                "knowledge_graph",
                "personal_notes",
                "proactive_insights",
                "background_knowledge",
                "semantic_reflections",
                "visual_memories",
            }
        ),
        "meta_conversational": frozenset(
            {
                "active_features",
                "proposed_features",
                "recent_summaries",
                "recent_reflections",
                "unresolved_threads",
                "relevant_memories",
                "relevant_information",
            }
        ),
        "project_work": _WORK | _PERSONAL | {"personal_notes", "proactive_insights"},
        "general": _KNOWLEDGE
        | {
            "relevant_memories",
            "relevant_information",
            "knowledge_graph",
            "semantic_summaries",
            "personal_notes",
        },
    }
)


# Intent -> sections whose item limit differs from the table's: a fact question wants more facts and fewer
# conversation turns; emotional support wants fewer, more personal items; small talk very little.
INTENT_LIMITS: Mapping[str, Mapping[str, int]] = MappingProxyType(
    {
        "factual_recall": MappingProxyType({"relevant_information": 15, "relevant_memories": 6}),
        "temporal_recall": MappingProxyType({"relevant_memories": 10, "recent_summaries": 3}),
        "emotional_support": MappingProxyType({"relevant_memories": 4, "relevant_information": 4}),
        "casual_social": MappingProxyType({"relevant_memories": 3, "knowledge_graph": 4}),
        "technical_help": MappingProxyType({"relevant_memories": 4, "documentation": 6}),
        "project_work": MappingProxyType({"unresolved_threads": 8, "commit_history": 10}),
    }
)


def item_limit(intent: str, key: str) -> int:
    """How many items section `key` may show for `intent`."""
    return INTENT_LIMITS.get(intent, {}).get(key, SECTIONS[key].max_items)


def sections_for(intent: str, disabled: frozenset[str] = frozenset()) -> frozenset[str]:
    """The section keys an intent may fill, minus ablated ones (the query and recent turns always stay)."""
    allowed = _ALWAYS | INTENT_SECTIONS.get(intent, INTENT_SECTIONS["general"])
    return frozenset(key for key in allowed if key not in disabled or not SECTIONS[key].ablatable)
