"""Protocols the core needs from the outer layers (memory, knowledge). Core never imports those packages."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class TurnRecord:
    """One user turn as stored in the journal. `status` is pending, complete, cancelled or failed."""

    turn_id: str
    session_id: str
    user: str
    assistant: str
    created_at: float
    status: str = "complete"
    model: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0


@dataclass(frozen=True)
class SessionRecord:
    session_id: str
    created_at: float
    last_active_at: float
    turns: int


class ConversationLog(Protocol):
    """The durable turn journal: what the user wrote is on disk before the model is even called."""

    def new_session(self) -> str: ...

    def begin_turn(self, session_id: str, user_text: str) -> str: ...

    def complete_turn(
        self,
        turn_id: str,
        assistant_text: str,
        *,
        status: str = "complete",
        model: str = "",
        usage: dict[str, Any] | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        citations: list[dict[str, Any]] | None = None,
    ) -> TurnRecord: ...

    def recent_turns(self, session_id: str, limit: int) -> list[TurnRecord]: ...

    def previous_turns(self, turn_ids: Iterable[str]) -> dict[str, TurnRecord]: ...

    def turns(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]: ...

    def sessions(self) -> list[SessionRecord]: ...


CONVERSATION_PREFIX = "conv_"


def conversation_id(turn_id: str) -> str:
    """The `conversations` record id of a journal turn."""
    return f"{CONVERSATION_PREFIX}{turn_id}"


def turn_of(record_id: str) -> str | None:
    """The journal turn a `conversations` record id stands for (None: not a turn's record)."""
    return record_id.removeprefix(CONVERSATION_PREFIX) if record_id.startswith(CONVERSATION_PREFIX) else None


@dataclass(frozen=True)
class RecalledMemory:
    """A long-term memory the model should see for this turn."""

    id: str
    collection: str
    text: str
    score: float
    created_at: float | None = None
    staleness: float = 0.0  # share of the facts it relied on that were superseded since (summaries)
    superseded: bool = False  # a fact that is no longer true (kept as history: "where did Sam live before?")
    source: str = ""  # where it came from, for people: a document's file name ("pancakes.md")


@dataclass(frozen=True)
class ExtractedFact:
    """A fact stated in the user's text, as a triple the knowledge graph and the fact store understand.

    `subject` is "user" for the speaker, else the entity as written ("my sister", "Jo", "Pepper");
    `predicate` is a phrase `core.relations.canonical_relation` knows ("lives in", "works at",
    "is named", "has a dog", "likes", "sister"); `category` is one of `FACT_CATEGORIES`; `scope` is "user"
    (about the speaker) or "entity" (about someone/something else). `negated` marks "I no longer work at
    X"; `ended` marks a change, true before and no longer ("I've stopped climbing", "I sold the piano"),
    not a plain denial ("I don't live in Paris"); `replaces` is the value a correction replaces ("Rex, not
    Max" -> "Max").
    """

    subject: str
    predicate: str
    object: str
    category: str
    scope: str
    excerpt: str
    confidence: float
    negated: bool = False
    replaces: str | None = None
    ended: bool = False


@dataclass(frozen=True)
class FactChange:
    """A change the fact store made, as the knowledge graph learns it: `fact` (negated when the change
    retired it), stated in `source_id` (a turn id) at `at` (epoch seconds)."""

    fact: ExtractedFact
    source_id: str
    at: float


FACT_CATEGORIES = (
    "identity",
    "location",
    "work",
    "family",
    "pets",
    "preferences",
    "goals",
    "schedules",
    "possessions",
)


class FactExtractor(Protocol):
    """Facts worth keeping from one message (durable facts only: moods and current activities are not)."""

    def extract(self, text: str) -> list[ExtractedFact]: ...


@dataclass(frozen=True)
class FactView:
    """A stored fact as front ends list it (`facts list --json`)."""

    id: str
    subject: str
    predicate: str
    object: str
    status: str  # current | superseded
    truth: float
    category: str = ""
    source_turn_id: str = ""
    superseded_by: str | None = None
    reason: str = ""
    told_at: float | None = None  # when the user first told it (epoch seconds)
    source: str = "you"  # where it came from: facts are learned from the user's own words only


@dataclass(frozen=True)
class FactOutcome:
    """What a turn's facts did: `learned` feed the knowledge graph (stored, confirmed, or negations that
    retracted something); `superseded` are the facts no longer current because of this turn."""

    learned: tuple[ExtractedFact, ...] = ()
    superseded: tuple[FactView, ...] = ()


class FactPort(Protocol):
    """Verified facts: each turn's statements pass the verification gate before they are kept."""

    async def record(
        self,
        facts: Sequence[ExtractedFact],
        turn: TurnRecord,
        *,
        correcting: bool = False,
        previous_reply: str = "",
    ) -> FactOutcome:
        """Verify and store a turn's facts (idempotent per turn); `correcting`: the message corrects;
        `previous_reply`: what the message may be agreeing with (a confirmation raises those facts)."""
        ...

    def list_facts(self, status: str | None = None) -> list[FactView]: ...

    def profile(self, now: float) -> list[FactView]:
        """Current facts about the user for the prompt's profile section (truth decayed to `now`)."""
        ...

    def set_current(self, fact_id: str, current: bool, reason: str) -> bool:
        """Retire or reinstate a fact by the user's decision; nothing is deleted."""
        ...


@dataclass(frozen=True)
class SessionState:
    """What one session carries from one turn to the next, in plain values (a store keeps it as JSON).

    `core.pipeline.session_state` computes it (the escalation FSM, the tone history, the short-term context);
    a `SessionStateStore` keeps it between turns and processes.
    """

    # The escalation FSM (`core.pipeline.escalation.EscalationSnapshot`), how many turns in a row the
    # session has been in its state, and the suggestion words of the last reply (None: it suggested nothing).
    escalation_state: str = "validate_and_suggest"
    turns_in_state: int = 0
    last_tone: str = "conversational"
    distress_streak: int = 0
    calm_streak: int = 0
    ignored: int = 0
    in_episode: bool = False
    pending_suggestion: tuple[str, ...] | None = None
    tones: tuple[str, ...] = ()  # the session's recent tone levels, oldest first
    # Short-term context: the previous message's intent, recent topics (newest first), unanswered questions.
    intent: str = "general"
    confidence: float = 0.0
    topics: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    turns: int = 0  # user turns the state has seen
    last_unsure_turn: int = 0  # the turn of the latest tone reading that asked (risk heard, not said)
    escalation_reason: str = ""  # why the escalation state is what it is (`analyze --explain`)


class SessionStateStore(Protocol):
    """Per-session `SessionState`, kept across turns and restarts."""

    def load(self, session_id: str) -> SessionState | None:
        """The session's stored state (None: nothing stored yet). Never writes."""
        ...

    def update(self, session_id: str, change: Callable[[SessionState], SessionState]) -> SessionState:
        """Store `change(current state)` (a fresh `SessionState` when none is stored) in one transaction, so
        concurrent turns of a session never lose each other's step; returns what was stored."""
        ...


class SessionLifecycle(Protocol):
    """Session-end processing (summaries, facts, threads, reflection), run when a session ends."""

    async def end(self, session_id: str | None = None) -> dict[str, Any]:
        """Run or resume the session-end steps for one session (default: the latest); its report."""
        ...

    async def end_active(self, since: float, budget_s: float | None = None) -> list[dict[str, Any]]:
        """End every session active since `since` (a closing GUI); no step starts after `budget_s`
        seconds (those not reached wait, planned, for the next start)."""
        ...

    async def end_idle(self, idle_s: float, now: float) -> list[dict[str, Any]]:
        """End recent sessions quiet for `idle_s` seconds; the reports of those that did work."""
        ...

    async def resume(self) -> list[dict[str, Any]]:
        """Finish work a crash interrupted (start-up)."""
        ...


GraphBoost = Callable[[Mapping[str, str]], Mapping[str, float]]
"""Memory id -> text in, memory id -> knowledge-graph bonus in [0, 1] out (absent = no bonus)."""


@dataclass(frozen=True)
class GraphContext:
    """What the knowledge graph knows about the entities a message mentions.

    `entities` are display names of the resolved entities, `sentences` the strongest facts around them
    for the prompt, and `boost` scores memories that mention those entities or their neighbours.
    """

    entities: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()
    boost: GraphBoost | None = None


class KnowledgePort(Protocol):
    """The knowledge graph as the orchestrator sees it."""

    def context_for(self, text: str) -> GraphContext:
        """Resolve the entities in `text` (aliases, "my sister") and gather their graph context."""
        ...

    def learn(self, facts: Sequence[ExtractedFact], source_id: str, at: float) -> int:
        """Add facts stated in a turn to the graph (and persist it); returns how many were used."""
        ...


class EntityTypes(Protocol):
    """What kind of thing a name is known to be (the knowledge graph), for checking a fact's object."""

    def entity_type(self, name: str) -> str | None:
        """The known type of the entity with this name or alias ("person", "organization", "place", "pet",
        "project", "event"); None when the name is unknown or only vaguely typed ("thing", "other")."""
        ...


class MemoryPort(Protocol):
    """Long-term memory as the orchestrator sees it."""

    async def recall(
        self,
        query: str,
        session_id: str,
        limit: int,
        intent: str = "general",
        shown_turn_ids: frozenset[str] = frozenset(),
        boost: GraphBoost | None = None,
    ) -> list[RecalledMemory]:
        """Memories for the query, leaving out the journal turns the prompt already shows."""
        ...

    async def remember(self, turn: TurnRecord) -> None: ...

    async def latest(
        self, collection: str, limit: int, where: Mapping[str, Any] | None = None
    ) -> list[RecalledMemory]:
        """The newest records of a collection (recent summaries, open threads), newest first."""
        ...


# --- What the agent's store tools read (core/tools/store_tools.py); memory/port.py implements them. -------


@dataclass(frozen=True)
class MemoryEntry:
    """A stored record as the agent's tools show it: its id (which `MemoryBrowser.expand` takes), collection,
    text, time, search score (0 when not from a search), markers and flat store metadata."""

    id: str
    collection: str
    text: str
    created_at: float | None = None
    score: float = 0.0
    staleness: float = 0.0
    superseded: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)


EXPAND_DIRECTIONS = ("around", "before", "after")


@dataclass(frozen=True)
class MemoryExpansion:
    """What lies around one memory.

    `relation` is "neighbours" (turns of the memory's session in time order, the memory itself among
    them), "sources" (the turns a summary, reflection or synthesis was written from, in time order) or
    "none" (a record with nothing to expand: a fact, a document chunk). `anchor` is None when no visible
    record has that id. `more_before` / `more_after` count the records left out by `count`.
    """

    anchor: MemoryEntry | None
    relation: str
    entries: tuple[MemoryEntry, ...] = ()
    more_before: int = 0
    more_after: int = 0


@dataclass(frozen=True)
class DocumentInfo:
    """One document in `reference_docs` (memory/documents.py holds the chunk contract)."""

    document_id: str
    title: str
    chunk_count: int
    source_path: str = ""
    created_at: float | None = None


@dataclass(frozen=True)
class DocumentText:
    """A document's chunks joined in chunk order; `missing` lists chunk indexes the store lacks."""

    info: DocumentInfo
    text: str
    missing: tuple[int, ...] = ()


class MemoryBrowser(Protocol):
    """The user's stores as the agent's tools read them: explicit collection search, expansion of a memory
    into its neighbours or sources, whole documents, and record counts. Read-only; hidden records stay
    hidden. `memory.port.ConversationMemory` implements it beside `MemoryPort`."""

    async def find(self, query: str, collection: str | None, limit: int) -> list[MemoryEntry]:
        """Up to `limit` memories for `query` in one collection, or (None) the normal multi-collection
        search; an unknown collection raises `core.errors.StorageError` naming the known ones."""
        ...

    async def expand(self, memory_id: str, direction: str, count: int) -> MemoryExpansion:
        """A conversation turn's session neighbours (`direction` in EXPAND_DIRECTIONS, `count` turns on
        each side asked for), or the source turns of a summary (the first `count`)."""
        ...

    async def documents(self) -> list[DocumentInfo]:
        """Every document in `reference_docs` (one entry per document id)."""
        ...

    async def document(self, document_id: str) -> DocumentText | None:
        """One document reassembled from its chunks in chunk order; None when there is no such document."""
        ...

    def counts(self) -> Mapping[str, int]:
        """Records per collection (all 13, zeros included)."""
        ...


@dataclass(frozen=True)
class ImageMatches:
    """Images found for a query (`visual_memories` entries, best first) and how they were found."""

    entries: tuple[MemoryEntry, ...]
    how: str


class ImageFinder(Protocol):
    """Visual memory's retrieval as `recall_image` reads it (memory/visual/retrieval.py implements it):
    by the entity the query names, then CLIP similarity, else captions and tags."""

    async def find_images(self, query: str, limit: int) -> ImageMatches:
        """Up to `limit` images for `query`, best first, with a line saying how they were found."""
        ...


# --- What synthesis reads and writes (knowledge/synthesis/); memory/synthesis_sources.py implements it. ---


@dataclass(frozen=True)
class KnownText:
    """A stored text synthesis can start from or compare against: its record id, collection and text."""

    id: str
    collection: str
    text: str


class SynthesisSources(Protocol):
    """The user's memory as synthesis sees it: texts to start from, embeddings, the nearest known texts,
    and where an accepted connection is kept (`synthesis_results`, where later turns recall it)."""

    def texts(self, collections: Sequence[str], limit: int) -> list[KnownText]:
        """Up to `limit` visible records of each collection (hidden and superseded ones left out)."""
        ...

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit vectors of `texts` (a NumPy array, one row per text)."""
        ...

    def nearest(self, vector: Any, collections: Sequence[str], k: int) -> list[tuple[KnownText, float]]:
        """The `k` known texts most similar to `vector` across `collections`, with their cosine similarity."""
        ...

    def keep(self, result_id: str, text: str, metadata: Mapping[str, Any]) -> None:
        """Store an accepted connection in `synthesis_results` (idempotent by id)."""
        ...
