"""The 13 memory collections of docs/architecture.md: names, tiers, metadata schemas, content-derived ids.

Every record's metadata is checked against its collection's schema before it reaches a store
(`validate_metadata`). Stored values are flat scalars (str, int, float, bool) because that is all Chroma
keeps: `None` values are dropped, and fields of kind `json` (lists, dicts) are stored as JSON strings.
Unknown fields are refused, so a typo never silently creates a field that nothing reads.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from core.errors import StorageError

Scalar = str | int | float | bool
FieldKind = Literal["str", "int", "float", "bool", "json"]
TIERS = ("episodic", "semantic", "procedural", "summary", "meta", "synthesis", "documents", "visual")
_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]")
_INT64 = 2**63


class CollectionNameError(StorageError):
    """A collection name is not usable by the store (Chroma's rules: 3-512 chars of [a-zA-Z0-9._-])."""


class MetadataError(StorageError):
    """A record's metadata does not fit its collection's schema."""


@dataclass(frozen=True)
class FieldSpec:
    """One metadata field: its name, kind and whether every record must carry it."""

    name: str
    kind: FieldKind
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class CollectionSpec:
    """A collection: its store name, memory tier, metadata schema, id prefix and purpose."""

    name: str
    tier: str
    fields: tuple[FieldSpec, ...]
    description: str
    id_prefix: str = ""

    def __post_init__(self) -> None:
        validate_collection_name(self.name)
        if self.tier not in TIERS:
            raise CollectionNameError(f"collection {self.name!r}: unknown tier {self.tier!r}; one of {TIERS}")
        names = [spec.name for spec in self.fields]
        if len(names) != len(set(names)):
            raise MetadataError(f"collection {self.name!r} declares a metadata field twice")

    def field(self, name: str) -> FieldSpec | None:
        """The schema of one field, or None when the collection has no such field."""
        return next((spec for spec in self.fields if spec.name == name), None)


def validate_collection_name(name: str) -> str:
    """Return `name` if a store can use it as a collection name; otherwise raise `CollectionNameError`.

    This is the one place naming rules live (Chroma's: 3-512 characters of [a-zA-Z0-9._-], starting and
    ending with a letter or digit), so the in-memory store refuses exactly what Chroma refuses.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise CollectionNameError(
            f"invalid collection name {name!r}: use 3-512 characters of letters, digits, '.', '_' or '-', "
            "starting and ending with a letter or digit"
        )
    return name


def parse_fields(text: str) -> tuple[FieldSpec, ...]:
    """Fields from a compact table row: `name:kind` items, `!` after the kind marks a required field."""
    fields = []
    for item in text.split():
        name, _, kind = item.partition(":")
        required = kind.endswith("!")
        kind = kind.rstrip("!")
        if kind not in ("str", "int", "float", "bool", "json") or not name:
            raise MetadataError(f"bad field declaration {item!r}: use name:str|int|float|bool|json[!]")
        fields.append(FieldSpec(name, cast(FieldKind, kind), required))  # one of the kinds: checked above
    return tuple(fields)


# Fields every collection accepts. `created_at` (epoch seconds) is required: recency needs it everywhere.
# session_id: session that produced it; source: turn | shutdown | user | ingest | wizard | tool;
# external_id: id in the source system (dialog id, file path, commit hash); importance, truth: 0..1;
# tags: list of tags (topic:cooking); superseded_by: id of the record that replaced it (nothing is deleted);
# deleted_at: when its source went away (a deleted note, a commit rewritten out of history): a tombstone,
# kept in the store but never searched.
COMMON_FIELDS = parse_fields(
    "created_at:float! updated_at:float session_id:str source:str external_id:str importance:float "
    "truth:float tags:json access_count:int last_accessed:float superseded_by:str deleted_at:float"
)
_STALENESS = "claims:json stale_claims:json staleness_ratio:float resolution_note:str"
_CHUNK = "title:str section:str chunk_index:int total_chunks:int content_hash:str file_mtime:float"


def _spec(name: str, tier: str, prefix: str, description: str, fields: str) -> CollectionSpec:
    return CollectionSpec(name, tier, COMMON_FIELDS + parse_fields(fields), description, prefix)


CONVERSATIONS = "conversations"  # the episodic tier: one record per finished turn

# name, tier, id prefix, purpose, own fields (besides COMMON_FIELDS)
COLLECTIONS: tuple[CollectionSpec, ...] = (
    _spec(
        "conversations",
        "episodic",
        "conv",
        "one record per answered turn, id derived from the journal id",
        "turn_id:str! seq:int model:str intent:str tone:str topic:str thread_id:str "
        "cited_ids:json speaker:str",
    ),
    _spec(
        "facts",
        "semantic",
        "fact",
        "subject | predicate | object triples about the user and the world",
        "subject:str! predicate:str! object:str! status:str confidence:float scope:str entity_type:str "
        "source_turn_id:str source_excerpt:str superseded_reason:str last_confirmed_at:float "
        "expires_at:float",
    ),
    _spec("wiki_knowledge", "semantic", "wiki", "encyclopedia chunks", f"article_id:str url:str {_CHUNK}"),
    _spec(
        "git_commits",
        "procedural",
        "git",
        "commit messages of the user's repositories",
        "commit_hash:str! repo:str author:str committed_at:float files_changed:int insertions:int "
        "deletions:int",
    ),
    _spec(
        "procedural_skills",
        "procedural",
        "skill",
        "how-to patterns learned in sessions (trigger -> action)",
        "trigger:str! action_pattern:str category:str confidence:float times_retrieved:int "
        "last_retrieved:float",
    ),
    _spec(
        "summaries",
        "summary",
        "sum",
        "session and block summaries written at session end",
        f"span_start:float span_end:float memory_count:int block:int source_ids:json {_STALENESS}",
    ),
    _spec(
        "reflections",
        "meta",
        "refl",
        "end-of-session reflections",
        "primary_topic:str topics:json entities:json themes:json emotional_tone:str project_area:str "
        f"source_ids:json {_STALENESS}",
    ),
    _spec(
        "threads",
        "meta",
        "thread",
        "open loops: commitments, deadlines, unfinished work, open questions",
        "status:str! kind:str urgency:float deadline:float resolved_at:float resolution_hint:str",
    ),
    _spec(
        "proposals",
        "meta",
        "prop",
        "improvement proposals awaiting the user's decision",
        "status:str! kind:str priority:float risk_level:str reasoning:str steps:json outcome:json",
    ),
    _spec(
        "synthesis_results",
        "synthesis",
        "syn",
        "bridges found between distant memories",
        "score:float convergence:float grade:str source_ids:json",
    ),
    _spec(
        "reference_docs",
        "documents",
        "doc",
        "chunks of documents the user ingested",
        f"document_id:str! file_path:str file_type:str {_CHUNK}",
    ),
    _spec(
        "obsidian_notes",
        "documents",
        "note",
        "chunks of the user's Obsidian vault",
        f"file_path:str! note_tags:json related_notes:json {_CHUNK}",
    ),
    _spec(
        "visual_memories",
        "visual",
        "img",
        "image captions; the image vectors live in the visual index",
        "image_hash:str! image_path:str media_type:str width:int height:int entity_ids:json "
        "index_position:int",
    ),
)
COLLECTION_NAMES: tuple[str, ...] = tuple(spec.name for spec in COLLECTIONS)


def get_spec(name: str) -> CollectionSpec:
    """The spec of one of the 13 collections; `CollectionNameError` when there is no such collection."""
    for spec in COLLECTIONS:
        if spec.name == name:
            return spec
    known = ", ".join(COLLECTION_NAMES)
    raise CollectionNameError(f"unknown collection {name!r}; the collections are: {known}")


def validate_metadata(spec: CollectionSpec, metadata: Mapping[str, Any] | None) -> dict[str, Scalar]:
    """Check `metadata` against `spec` and return the stored form.

    `None` values count as absent and are dropped; `json` fields take lists/dicts (or a JSON string) and are
    stored as JSON strings; `float` fields accept ints and store floats. Raises `MetadataError` naming the
    collection, the field and what was expected.
    """
    given = {key: value for key, value in (metadata or {}).items() if value is not None}
    unknown = sorted(key for key in given if spec.field(key) is None)
    if unknown:
        allowed = ", ".join(field.name for field in spec.fields)
        raise MetadataError(f"{spec.name}: unknown metadata field(s) {unknown}; allowed: {allowed}")
    missing = [field.name for field in spec.fields if field.required and field.name not in given]
    if missing:
        raise MetadataError(f"{spec.name}: missing required metadata field(s) {missing}")
    out: dict[str, Scalar] = {}
    for key, value in given.items():
        field = spec.field(key)
        assert field is not None
        out[key] = _coerce(spec.name, field, value)
    return out


def _coerce(collection: str, field: FieldSpec, value: Any) -> Scalar:
    where = f"{collection}.{field.name}"
    if field.kind == "json":
        return _coerce_json(where, value)
    if field.kind == "bool" and isinstance(value, bool):
        return value
    if field.kind == "str" and isinstance(value, str):
        return value
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if field.kind == "int" and is_number and isinstance(value, int):
        if -_INT64 <= value < _INT64:
            return value
        raise MetadataError(f"{where}: {value} does not fit in 64 bits")
    if field.kind == "float" and is_number:
        if math.isfinite(value):
            return float(value)
        raise MetadataError(f"{where}: expected a finite number, got {value}")
    raise MetadataError(f"{where}: expected {field.kind}, got {type(value).__name__} {value!r}")


def _coerce_json(where: str, value: Any) -> str:
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            raise MetadataError(f"{where}: expected JSON text or a list/dict, got {value!r}") from None
        return value
    if isinstance(value, list | tuple | dict):
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
        except ValueError as error:
            raise MetadataError(f"{where}: {error}") from None
    raise MetadataError(f"{where}: expected a list or dict, got {type(value).__name__}")


def _normalise_part(part: object) -> str:
    text = "" if part is None else str(part)
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(text.split())


def make_id(collection: str, *parts: object) -> str:
    """A stable, content-derived id: `<prefix>_<20 hex of sha256(normalised parts)>`.

    Parts are NFKC-normalised, case-folded and whitespace-collapsed, so re-deriving an id from the same
    content (a replayed turn, a re-ingested chunk) always gives the same id and an upsert adds nothing.
    """
    if not parts:
        raise ValueError("make_id needs at least one part")
    spec = get_spec(collection)
    payload = "\x1f".join([collection, *(_normalise_part(part) for part in parts)])
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]
    return f"{spec.id_prefix}_{digest}"
