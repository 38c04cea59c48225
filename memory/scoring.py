"""Composite scoring: one function ranks the gated candidates of every intent; profiles hold the numbers.

score = sum of `factors`, every entry already weighted, so `memory search --json` shows where a score comes
from and the entries add up to it exactly:

- seven weighted factors, each in [0, 1] times the profile's weight: `relevance` (the gate's fused
  relevance), `recency` (0.5 ** (age / half-life); age in active days when the request lists the days the
  user was active and the profile allows it, else calendar days: a month away does not age every memory,
  while "last week" keeps its calendar meaning through the time-window bonus), `truth` (metadata, default
  0.5), `importance` (metadata, default 0.3), `continuity` (overlap with the last exchange; same session
  counts at least 0.5), `structure` (a collection prior: facts and summaries are more distilled than raw
  turns), `topic_match` (the request's topics among the record's labels, or in its text at half value);
- bonuses: `anchor` (the query names the record's speaker), `entity` (the query names a known person the
  record mentions; 0 by default, see memory/profiles.py), `time_window` (the record's time fits the
  query's window: "last week", "in May 2023"), `time_mention` (a "when" question and a record that
  mentions a time), `graph` (ctx.graph_bonus), `session` (conversations: a lift for turns of sessions
  whose best turns score well), `meta` (summaries and reflections, for intents that set it);
- penalties (negative entries): `staleness` (x staleness_ratio, steep above 0.8), `superseded` (replaced
  facts rank low but stay: some questions ask about the past), `closed_item` (resolved/rejected threads and
  proposals, for intents that want open items), `size` (very long texts), `deictic_drift` ("what about
  that?" with a record unrelated to the last exchange).

Everything computed here is per request: profiles and contexts are frozen and nothing is cached globally.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.temporal import TimeWindow, asks_for_time, mentions_time, query_time_window, time_affinities
from memory.bm25 import porter_stem, tokenize
from memory.candidates import GatedCandidate, QueryContext, ScoredMemory
from memory.fusion import group_prior, label_mentions
from memory.profiles import IntentProfile

FACTORS = ("relevance", "recency", "truth", "importance", "continuity", "structure", "topic_match")
BONUSES = ("anchor", "entity", "time_window", "time_mention", "graph", "session", "meta")
PENALTIES = ("staleness", "superseded", "closed_item", "size", "deictic_drift")
META_COLLECTIONS = frozenset({"summaries", "reflections"})
OPEN_ITEM_COLLECTIONS = frozenset({"threads", "proposals"})
CLOSED_STATUSES = frozenset(
    {
        "resolved",
        "rejected",
        "done",
        "closed",
        "dismissed",
        "implemented",
        "completed",
        "cancelled",
        "declined",
    }
)
SESSION_COLLECTIONS = frozenset({"conversations"})
_DEICTIC = re.compile(
    r"\b(that|this|it|those|these|them|there|again|more|else|same|above|earlier|previous|before)\b", re.I
)
_ROLE_LABEL = re.compile(r"^[ \t]*[\w .'-]{1,40}:[ \t]", re.M)  # "User: ", "Caroline: " at line starts
_DAY = 86400.0
_UNKNOWN_AGE_RECENCY = 0.5  # a record without a timestamp is neither fresh nor old
_MAX_TERMS = 32  # terms of the last exchange / topics matched against each record
_CONTINUITY_SPAN = 5  # sharing this many terms with the last exchange is full continuity
_SAME_SESSION_CONTINUITY = 0.5


class _Terms:
    """Stemmed terms of a reference text and a fast matcher of those terms in other texts.

    No stemming of every candidate: each surface form and stem of the reference is looked for as a
    substring (fast, in C), and confirmed at a word start by its own small pattern (`happi` matches
    "happiness"), which is enough for an overlap signal. Role labels at line starts ("User:",
    "Assistant:") are not terms: every turn has them.
    """

    def __init__(self, text: str) -> None:
        words = list(dict.fromkeys(tokenize(_ROLE_LABEL.sub(" ", text), stem=False)))[:_MAX_TERMS]
        canonical = {alt: porter_stem(w) for w in words for alt in (w, porter_stem(w))}
        self.stems = frozenset(canonical.values())
        self._checks = [
            (alt, stem, re.compile(rf"\b{re.escape(alt)}\w{{0,3}}\b")) for alt, stem in canonical.items()
        ]

    def found(self, text: str, enough: int | None = None) -> set[str]:
        """Stems of the reference that occur in `text` (the search stops once `enough` are found)."""
        lowered = text.lower()
        stems: set[str] = set()
        for alt, stem, pattern in self._checks:
            if stem not in stems and alt in lowered and pattern.search(lowered):
                stems.add(stem)
                if enough is not None and len(stems) >= enough:
                    break
        return stems


@dataclass(frozen=True)
class _Request:
    """What scoring derives from the query context once per request."""

    now: datetime
    window: TimeWindow | None
    asks_time: bool
    deictic: bool
    named: tuple[str, ...]  # ctx.speakers named in the query
    last: _Terms | None
    topics: frozenset[str]
    topic_terms: _Terms | None
    active_days: tuple[int, ...]  # sorted ordinals of the days the user was active

    @classmethod
    def build(cls, ctx: QueryContext, profile: IntentProfile) -> _Request:
        now = datetime.fromtimestamp(ctx.now)
        named = tuple(
            s for s, hit in zip(ctx.speakers, label_mentions(ctx.query, ctx.speakers), strict=True) if hit
        )
        days = sorted({datetime.fromtimestamp(t).toordinal() for t in ctx.active_days if t <= ctx.now})
        topics = frozenset(_label(t) for t in ctx.topics if t.strip())
        return cls(
            now=now,
            window=query_time_window(ctx.query, now),
            asks_time=asks_for_time(ctx.query),
            deictic=bool(_DEICTIC.search(ctx.query)) and len(tokenize(ctx.query)) <= 2,
            named=named,
            last=_Terms(ctx.last_exchange) if ctx.last_exchange.strip() else None,
            topics=topics,
            topic_terms=_Terms(" ".join(sorted(topics))) if topics else None,
            active_days=tuple(days) if profile.recency_by_active_days else (),
        )


def _number(metadata: Mapping[str, Any], key: str, default: float) -> float:
    value = metadata.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return default
    try:
        number = float(value)
    except ValueError:
        return default
    return number if number == number else default  # NaN -> default


def _label(text: str) -> str:
    text = text.strip().lower()
    return text.split(":", 1)[1].strip() if text.startswith("topic:") else text


def _labels(metadata: Mapping[str, Any]) -> set[str]:
    """Topic labels of a record: topic / primary_topic, and the `tags` and `topics` lists (JSON text)."""
    labels = {_label(str(metadata[k])) for k in ("topic", "primary_topic") if metadata.get(k)}
    for key in ("tags", "topics"):
        raw = metadata.get(key)
        try:
            items = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            items = [raw]
        if isinstance(items, list | tuple):
            labels.update(_label(str(item)) for item in items)
    return labels


def recency(created_at: float | None, req: _Request, half_life_days: float) -> float:
    """0.5 ** (age / half-life), age in active days when known, else in calendar days."""
    if created_at is None:
        return _UNKNOWN_AGE_RECENCY
    if req.active_days:
        day = datetime.fromtimestamp(created_at).toordinal()
        age = float(len(req.active_days) - bisect_right(req.active_days, day))
    else:
        age = max(0.0, req.now.timestamp() - created_at) / _DAY
    return 0.5 ** (age / half_life_days)


def staleness_penalty(ratio: float, amount: float, steep: float) -> float:
    """`amount` x ratio, plus `steep` rising linearly from ratio 0.8 to 1.0 (a mostly stale record)."""
    ratio = min(1.0, max(0.0, ratio))
    return amount * ratio + steep * max(0.0, ratio - 0.8) / 0.2


def _overlap(terms: _Terms | None, text: str) -> float:
    if terms is None or not terms.stems:
        return 0.0
    span = min(len(terms.stems), _CONTINUITY_SPAN)
    return min(1.0, len(terms.found(text, enough=span)) / span)


def _topic_match(req: _Request, metadata: Mapping[str, Any], text: str) -> float:
    if not req.topics:
        return 0.0
    if req.topics & _labels(metadata):
        return 1.0
    return 0.5 * _overlap(req.topic_terms, text)


def _base(g: GatedCandidate, ctx: QueryContext, req: _Request, profile: IntentProfile) -> dict[str, float]:
    """The seven factors of one candidate, unweighted (each in [0, 1])."""
    cand, meta = g.candidate, g.candidate.metadata
    created = _number(meta, "created_at", float("nan"))
    continuity = _overlap(req.last, cand.text)
    if ctx.session_id is not None and meta.get("session_id") == ctx.session_id:
        continuity = max(continuity, _SAME_SESSION_CONTINUITY)
    return {
        "relevance": g.relevance,
        "recency": recency(None if created != created else created, req, profile.half_life_days),
        "truth": min(1.0, max(0.0, _number(meta, "truth", 0.5))),
        "importance": min(1.0, max(0.0, _number(meta, "importance", 0.3))),
        "continuity": continuity,
        "structure": profile.structure_prior.get(cand.collection, 0.5),
        "topic_match": _topic_match(req, meta, cand.text),
    }


def is_superseded(meta: Mapping[str, Any]) -> bool:
    """A record of a fact that a newer one replaced (kept as history)."""
    return str(meta.get("status", "")).lower() == "superseded" or bool(meta.get("superseded_by"))


def _penalties(
    g: GatedCandidate, req: _Request, profile: IntentProfile, continuity: float
) -> dict[str, float]:
    """The penalties of one candidate, as negative amounts."""
    cand, meta, p = g.candidate, g.candidate.metadata, profile.penalties
    superseded = is_superseded(meta)
    closed = (
        cand.collection in OPEN_ITEM_COLLECTIONS and str(meta.get("status", "")).lower() in CLOSED_STATUSES
    )
    excess = (len(cand.text) - p.size_chars) / p.size_chars
    drift = req.deictic and req.last is not None and continuity < 0.1  # unrelated, not the same session
    return {
        "staleness": -staleness_penalty(
            _number(meta, "staleness_ratio", 0.0), p.staleness, p.staleness_steep
        ),
        "superseded": -p.superseded if superseded else 0.0,
        "closed_item": -p.closed_item if closed else 0.0,
        "size": -p.size * min(1.0, excess) if excess > 0 else 0.0,
        "deictic_drift": -p.deictic_drift if drift else 0.0,
    }


def _entity(req: _Request, speaker: str, text: str) -> float:
    """1 when a person the query names (other than the record's speaker) appears in the record's text."""
    others = [name for name in req.named if name.lower() != speaker.lower()]
    return float(bool(others) and bool(label_mentions(text, others).any()))


def _bonuses(
    gated: Sequence[GatedCandidate], ctx: QueryContext, req: _Request, profile: IntentProfile
) -> list[dict[str, float]]:
    """Every bonus except the session prior, for all candidates (some signals are computed batch-wise)."""
    b = profile.bonuses
    speakers = [str(g.candidate.metadata.get("speaker", "")) for g in gated]
    anchors = label_mentions(ctx.query, speakers)
    stamps = [_number(g.candidate.metadata, "created_at", float("nan")) for g in gated]
    fits = [0.0] * len(gated)
    if req.window is not None:
        known = [i for i, s in enumerate(stamps) if s == s]
        moments = [datetime.fromtimestamp(stamps[i]) for i in known]
        for i, fit in zip(known, time_affinities(moments, req.window), strict=True):
            fits[i] = fit
    return [
        {
            "anchor": b.anchor * float(anchors[i]),
            "entity": b.entity * _entity(req, speakers[i], g.candidate.text)
            if req.named and b.entity
            else 0.0,
            "time_window": b.time_window * fits[i],
            "time_mention": b.time_mention * float(req.asks_time and mentions_time(g.candidate.text)),
            "graph": b.graph * min(1.0, max(0.0, float(ctx.graph_bonus.get(g.candidate.id, 0.0)))),
            "session": 0.0,
            "meta": b.meta if g.candidate.collection in META_COLLECTIONS else 0.0,
        }
        for i, g in enumerate(gated)
    ]


def _add_session_prior(
    gated: Sequence[GatedCandidate], rows: list[dict[str, float]], profile: IntentProfile
) -> None:
    """Lift turns of strong sessions: `session` x the min-max-normalised mean of the session's best scores."""
    members = [
        i
        for i, g in enumerate(gated)
        if g.candidate.collection in SESSION_COLLECTIONS
        and g.candidate.metadata.get("session_id") is not None
    ]
    if not members or profile.bonuses.session == 0.0:
        return
    base = [sum(rows[i].values()) for i in members]
    groups = [str(gated[i].candidate.metadata["session_id"]) for i in members]
    lifted = group_prior(base, groups, profile.bonuses.session, top=profile.bonuses.session_top)
    for i, before, after in zip(members, base, lifted, strict=True):
        rows[i]["session"] = float(after) - before


def score(gated: Sequence[GatedCandidate], ctx: QueryContext, profile: IntentProfile) -> list[ScoredMemory]:
    """Rank gated candidates, best first; each result's `factors` add up to its `score`."""
    if not gated:
        return []
    req = _Request.build(ctx, profile)
    weights = profile.weights
    rows: list[dict[str, float]] = []
    for g, bonuses in zip(gated, _bonuses(gated, ctx, req, profile), strict=True):
        base = _base(g, ctx, req, profile)
        row = {name: getattr(weights, name) * base[name] for name in FACTORS}
        row.update(bonuses)
        row.update(_penalties(g, req, profile, base["continuity"]))
        rows.append(row)
    _add_session_prior(gated, rows, profile)
    scored = [
        ScoredMemory(
            g.candidate.id,
            g.candidate.collection,
            g.candidate.text,
            g.candidate.metadata,
            sum(row.values()),
            row,
        )
        for g, row in zip(gated, rows, strict=True)
    ]
    return sorted(scored, key=lambda s: -s.score)
