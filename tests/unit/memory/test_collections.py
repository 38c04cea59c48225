"""The 13 collections, their metadata schemas, naming rules and content-derived ids."""

from __future__ import annotations

import json
import re

import pytest

from memory.collections import (
    COLLECTION_NAMES,
    COLLECTIONS,
    CollectionNameError,
    CollectionSpec,
    MetadataError,
    get_spec,
    make_id,
    parse_fields,
    validate_collection_name,
    validate_metadata,
)

ARCHITECTURE_TABLE = {
    "episodic": {"conversations"},
    "semantic": {"facts", "wiki_knowledge"},
    "procedural": {"git_commits", "procedural_skills"},
    "summary": {"summaries"},
    "meta": {"reflections", "threads", "proposals"},
    "synthesis": {"synthesis_results"},
    "documents": {"reference_docs", "obsidian_notes"},
    "visual": {"visual_memories"},
}


def test_the_13_collections_match_the_architecture_doc() -> None:
    assert len(COLLECTIONS) == 13 and len(set(COLLECTION_NAMES)) == 13
    by_tier: dict[str, set[str]] = {}
    for spec in COLLECTIONS:
        by_tier.setdefault(spec.tier, set()).add(spec.name)
    assert by_tier == ARCHITECTURE_TABLE


def test_every_collection_is_well_formed() -> None:
    prefixes = [spec.id_prefix for spec in COLLECTIONS]
    assert len(set(prefixes)) == 13 and all(re.fullmatch(r"[a-z]+", p) for p in prefixes)
    for spec in COLLECTIONS:
        assert validate_collection_name(spec.name) == spec.name
        assert spec.description
        created = spec.field("created_at")
        assert created is not None and created.required and created.kind == "float"
        assert get_spec(spec.name) is spec


def test_get_spec_of_an_unknown_collection_names_the_known_ones() -> None:
    with pytest.raises(CollectionNameError, match="unknown collection 'memories'.*conversations"):
        get_spec("memories")


@pytest.mark.parametrize("name", ["abc", "a_b", "facts.v2", "A-1", "x" * 512])
def test_valid_collection_names(name: str) -> None:
    assert validate_collection_name(name) == name


@pytest.mark.parametrize("name", ["", "t", "ab", "-abc", "abc_", "a b c", "fäcts", "x" * 513, 123])
def test_invalid_collection_names_are_refused_clearly(name: object) -> None:
    with pytest.raises(CollectionNameError, match="invalid collection name"):
        validate_collection_name(name)  # type: ignore[arg-type]  # a non-string name is the point


def test_spec_rejects_bad_tier_and_duplicate_fields() -> None:
    with pytest.raises(CollectionNameError, match="unknown tier"):
        CollectionSpec("abc", "galactic", (), "x")
    with pytest.raises(MetadataError, match="twice"):
        CollectionSpec("abc", "meta", parse_fields("a:str a:int"), "x")
    with pytest.raises(MetadataError, match="bad field declaration 'a:date'"):
        parse_fields("a:date")


FACT = {"created_at": 1_700_000_000, "subject": "user", "predicate": "likes", "object": "tea"}


def test_valid_metadata_is_normalised() -> None:
    out = validate_metadata(
        get_spec("facts"),
        {**FACT, "confidence": 1, "tags": ["topic:drinks", "é"], "status": None, "truth": 0.75},
    )
    assert out == {
        "created_at": 1_700_000_000.0,
        "subject": "user",
        "predicate": "likes",
        "object": "tea",
        "confidence": 1.0,
        "tags": '["topic:drinks", "é"]',
        "truth": 0.75,
    }
    assert type(out["created_at"]) is float and "status" not in out
    assert json.loads(str(out["tags"])) == ["topic:drinks", "é"]
    assert validate_metadata(get_spec("facts"), {**FACT, "tags": '["a"]'})["tags"] == '["a"]'


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"colour": "red"}, r"unknown metadata field\(s\) \['colour'\]; allowed: created_at"),
        ({"confidence": "high"}, "facts.confidence: expected float, got str"),
        ({"confidence": True}, "facts.confidence: expected float, got bool"),
        ({"confidence": float("inf")}, "facts.confidence: expected a finite number"),
        ({"access_count": 1.5}, "facts.access_count: expected int, got float"),
        ({"access_count": True}, "facts.access_count: expected int, got bool"),
        ({"access_count": 2**64}, "does not fit in 64 bits"),
        ({"subject": 7}, "facts.subject: expected str, got int"),
        ({"tags": "not json ["}, "facts.tags: expected JSON text"),
        ({"tags": {"a": float("nan")}}, "facts.tags: Out of range float"),
        ({"tags": 5}, "facts.tags: expected a list or dict, got int"),
    ],
)
def test_invalid_metadata_is_refused_clearly(extra: dict[str, object], message: str) -> None:
    with pytest.raises(MetadataError, match=message):
        validate_metadata(get_spec("facts"), {**FACT, **extra})


def test_missing_required_fields_are_named() -> None:
    with pytest.raises(MetadataError, match=r"facts: missing required metadata field\(s\) \['object'\]"):
        validate_metadata(get_spec("facts"), {k: v for k, v in FACT.items() if k != "object"})
    with pytest.raises(MetadataError, match="created_at"):
        validate_metadata(get_spec("summaries"), None)
    with pytest.raises(MetadataError, match="subject"):
        validate_metadata(get_spec("facts"), {**FACT, "subject": None})  # None counts as absent


def test_make_id_is_stable_normalised_and_prefixed() -> None:
    first = make_id("facts", "User", "likes", "Tea")
    assert re.fullmatch(r"fact_[0-9a-f]{20}", first)
    assert make_id("facts", "  user ", "LIKES", "tea\n") == first
    assert make_id("facts", "ｕｓｅｒ", "likes", "tea") == first  # NFKC: full-width letters
    assert make_id("facts", "user", "likes", "coffee") != first
    assert make_id("summaries", "user", "likes", "tea").startswith("sum_")
    assert make_id("conversations", "ab", "c") != make_id("conversations", "a", "bc")
    assert make_id("conversations", 17) == make_id("conversations", "17")


def test_make_id_needs_parts_and_a_known_collection() -> None:
    with pytest.raises(ValueError, match="at least one part"):
        make_id("facts")
    with pytest.raises(CollectionNameError, match="unknown collection"):
        make_id("nope", "x")
