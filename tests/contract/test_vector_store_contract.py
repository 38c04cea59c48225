"""One contract for every `VectorStore`: the in-memory fake, Chroma embedded and a Chroma server."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from core.errors import StorageError
from memory.chroma_store import ChromaStore, embedding_function
from memory.collections import (
    COLLECTIONS,
    CollectionNameError,
    CollectionSpec,
    MetadataError,
    parse_fields,
)
from memory.embeddings import HashingEmbedder
from memory.vector_store import FilterError, Record, UnknownCollectionError, Where, normalise_where
from tests.contract.store_fixtures import (  # noqa: F401 - the *_fixture imports register fixtures
    EMBED_DIM,
    StoreFactory,
    chroma_server_fixture,
    open_store_fixture,
    store_kind_fixture,
)

THINGS = CollectionSpec(
    "things",
    "semantic",
    parse_fields("created_at:float kind:str n:int x:float flag:bool tags:json label:str"),
    "test collection",
    "thing",
)


def _things(store: Any) -> Any:
    store.ensure_collections([THINGS])
    return store


def _sample_metadata(spec: CollectionSpec) -> dict[str, Any]:
    values = {"str": "v", "int": 1, "float": 1.5, "bool": True, "json": ["a"]}
    return {field.name: values[field.kind] for field in spec.fields if field.required}


def test_upsert_is_idempotent_by_id(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.upsert("things", [Record("a", "first text", {"kind": "note", "n": 1, "label": "old"})])
    store.upsert("things", [Record("a", "second text", {"kind": "fact"})])
    assert store.count("things") == 1
    (record,) = store.get("things", ids=["a"])
    assert record.text == "second text"
    assert record.metadata == {"kind": "fact"}  # replaced, not merged with the old fields
    store.upsert("things", [Record("b", "one"), Record("b", "two"), Record("a", "third")])
    assert store.count("things") == 2
    assert [r.text for r in store.get("things", ids=["a", "b"])] == ["third", "two"]


def test_query_ranks_by_cosine_similarity_and_honours_k(open_store: StoreFactory) -> None:
    store = _things(open_store())
    texts = {"exact": "red apple pie", "two": "red apple", "one": "red car", "none": "blue ocean waves"}
    store.upsert("things", [Record(key, text) for key, text in texts.items()])
    query = store.embedder.embed_query("red apple pie")
    hits = store.query("things", query, k=3)
    assert [hit.id for hit in hits] == ["exact", "two", "one"]
    assert hits[0].collection == "things" and hits[0].text == "red apple pie"
    assert hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert hits[1].similarity == pytest.approx(2 / 6**0.5, abs=1e-3)
    for hit in hits:
        assert hit.similarity == pytest.approx(1.0 - hit.distance)
    similarities = [hit.similarity for hit in hits]
    assert similarities == sorted(similarities, reverse=True)
    assert len(store.query("things", query, k=10)) == 4
    assert store.query("things", query, k=0) == []


def test_get_with_vectors_returns_records_and_stored_unit_vectors(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.upsert("things", [Record("a", "red apple pie", {"kind": "x"}), Record("b", "blue ocean waves")])
    found = dict(
        (record.id, (record, vector)) for record, vector in store.get_with_vectors("things", ["b", "no", "a"])
    )
    assert set(found) == {"a", "b"}
    record, vector = found["a"]
    assert record.text == "red apple pie" and record.metadata == {"kind": "x"}
    assert vector == pytest.approx(store.embedder.embed(["red apple pie"])[0], abs=1e-5)
    assert float(np.linalg.norm(found["b"][1])) == pytest.approx(1.0, abs=1e-4)
    assert [r.id for r, _ in store.get_with_vectors("things", ["a", "b"], where={"kind": "x"})] == ["a"]
    assert store.get_with_vectors("things", []) == []


def test_upsert_with_given_embeddings_and_batches(open_store: StoreFactory) -> None:
    calls: list[int] = []

    class Counting(HashingEmbedder):
        def embed(self, texts: Any) -> np.ndarray:
            calls.append(len(texts))
            return super().embed(texts)

    store = _things(open_store(Counting(EMBED_DIM), batch_size=3))
    store.upsert("things", [Record(f"r{i}", f"text number {i}") for i in range(7)])
    assert calls == [3, 3, 1] and store.count("things") == 7
    vectors = np.eye(2, EMBED_DIM, dtype=np.float32)
    calls.clear()
    store.upsert("things", [Record("e0", "ignored text"), Record("e1", "other")], embeddings=vectors)
    assert calls == []
    (hit,) = store.query("things", vectors[1], k=1)
    assert hit.id == "e1" and hit.distance == pytest.approx(0.0, abs=1e-5)
    with pytest.raises(StorageError, match="shape"):
        store.upsert("things", [Record("bad", "x")], embeddings=np.ones((1, 3)))
    with pytest.raises(StorageError, match="shape"):
        store.query("things", np.ones(3), k=1)


def test_replaying_identical_records_embeds_nothing(open_store: StoreFactory) -> None:
    calls: list[str] = []

    class Counting(HashingEmbedder):
        def embed(self, texts: Any) -> np.ndarray:
            calls.extend(texts)
            return super().embed(texts)

    store = _things(open_store(Counting(EMBED_DIM)))
    records = [Record("a", "one", {"n": 1}), Record("b", "two", {"n": 2})]
    store.upsert("things", records)
    calls.clear()
    store.upsert("things", records)
    assert calls == []
    store.upsert("things", [Record("a", "one", {"n": 5}), Record("b", "two, edited", {"n": 2})])
    assert calls == ["two, edited"] or calls == ["one", "two, edited"]
    assert [(r.text, r.metadata) for r in store.get("things", ids=["a", "b"])] == [
        ("one", {"n": 5}),
        ("two, edited", {"n": 2}),
    ]


WHERE_CASES: list[tuple[dict[str, Any], set[str]]] = [
    ({"kind": "note"}, {"a", "c"}),
    ({"kind": {"$eq": "note"}}, {"a", "c"}),
    ({"n": 1}, {"a"}),
    ({"x": 2}, {"b"}),  # an int operand matches a stored float 2.0
    ({"flag": True}, {"a", "b"}),
    ({"$and": [{"kind": "note"}, {"flag": True}]}, {"a"}),
    ({"kind": "note", "flag": False}, {"c"}),  # several fields mean $and
    ({"$or": [{"kind": "fact"}, {"n": 3}]}, {"b", "c"}),
    ({"n": {"$gte": 2}}, {"b", "c"}),
    ({"n": {"$gt": 1, "$lte": 2}}, {"b"}),
    ({"x": {"$lt": 2.5}}, {"a", "b"}),
    ({"kind": {"$in": ["fact", "other"]}}, {"b", "d"}),
    ({"n": {"$in": [1, 3]}}, {"a", "c"}),
    ({"kind": {"$nin": ["note"]}}, {"b", "d"}),
    ({"n": {"$ne": 1}}, {"b", "c", "d"}),  # a record without the field matches $ne and $nin
    ({"n": {"$nin": [1, 2]}}, {"c", "d"}),
    ({"label": "x"}, set()),
]


def test_where_filters_in_query_and_get(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.upsert(
        "things",
        [
            Record("a", "alpha one", {"kind": "note", "n": 1, "x": 1.0, "flag": True}),
            Record("b", "beta two", {"kind": "fact", "n": 2, "x": 2, "flag": True}),
            Record("c", "gamma three", {"kind": "note", "n": 3, "x": 3.5, "flag": False}),
            Record("d", "delta four", {"label": "other", "kind": "other"}),
        ],
    )
    query = store.embedder.embed_query("alpha beta gamma delta")
    for where, expected in WHERE_CASES:
        found = {hit.id for hit in store.query("things", query, k=10, where=where)}
        assert found == expected, f"query where={where}"
        assert {record.id for record in store.get("things", where=where)} == expected, f"get where={where}"


def test_unsupported_where_is_a_clear_error(open_store: StoreFactory) -> None:
    store = _things(open_store())
    unsupported: list[Where] = [
        {"n": {"$regex": "x"}},
        {"n": {"$gt": "5"}},
        {"n": {"$in": []}},
        {"$and": []},
        {"$x": 1},
    ]
    for where in unsupported:
        with pytest.raises(FilterError):
            store.get("things", where=where)
    assert normalise_where({}) is None
    assert normalise_where({"$and": [{"a": 1}]}) == {"a": {"$eq": 1}}


def test_get_by_ids_and_where_with_limit(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.upsert("things", [Record(f"r{i}", f"text {i}", {"n": i}) for i in range(6)])
    assert [r.id for r in store.get("things", ids=["r4", "missing", "r1", "r4"])] == ["r4", "r1"]
    assert [r.id for r in store.get("things", ids=["r4", "r1", "r2"], where={"n": {"$gte": 2}})] == [
        "r4",
        "r2",
    ]
    assert [r.id for r in store.get("things", ids=["r5", "r3", "r1"], limit=2)] == ["r5", "r3"]
    assert len(store.get("things", where={"n": {"$lt": 5}}, limit=3)) == 3
    assert len(store.get("things")) == 6
    assert store.get("things", ids=[]) == []


def test_counts_across_the_13_collections(open_store: StoreFactory) -> None:
    store = open_store()
    store.ensure_collections(COLLECTIONS)
    store.ensure_collections(COLLECTIONS)  # idempotent
    for index, spec in enumerate(COLLECTIONS):
        records = [
            Record(f"{spec.name}-{i}", f"{spec.name} item {i}", _sample_metadata(spec)) for i in range(index)
        ]
        store.upsert(spec.name, records)
    expected = {spec.name: index for index, spec in enumerate(COLLECTIONS)}
    assert store.counts() == expected
    assert store.count("facts") == expected["facts"]


def test_metadata_round_trip_keeps_types(open_store: StoreFactory) -> None:
    store = _things(open_store())
    metadata = {"kind": "k", "n": 2**40, "x": 3, "flag": False, "tags": ["a", "é"], "label": None}
    # A list and a None on purpose: the store flattens the one and drops the other.
    store.upsert("things", [Record("m", "text", metadata)])  # type: ignore[arg-type]  # see above
    (record,) = store.get("things", ids=["m"])
    assert record.metadata == {"kind": "k", "n": 2**40, "x": 3.0, "flag": False, "tags": '["a", "é"]'}
    assert [type(record.metadata[key]) for key in ("kind", "n", "x", "flag")] == [str, int, float, bool]
    (hit,) = store.query("things", store.embedder.embed_query("text"), k=1)
    assert hit.metadata == record.metadata


def test_metadata_outside_the_schema_is_refused(open_store: StoreFactory) -> None:
    store = open_store()
    store.ensure_collections(COLLECTIONS)
    with pytest.raises(MetadataError, match="created_at"):
        store.upsert("facts", [Record("f", "x", {"subject": "a", "predicate": "b", "object": "c"})])
    with pytest.raises(MetadataError, match="colour"):
        store.upsert("summaries", [Record("s", "x", {"created_at": 1.0, "colour": "red"})])
    with pytest.raises(MetadataError, match="finite"):
        store.upsert("summaries", [Record("s", "x", {"created_at": float("nan")})])
    assert store.count("facts") == 0 and store.count("summaries") == 0


def test_empty_collection_query_returns_nothing(open_store: StoreFactory) -> None:
    store = _things(open_store())
    assert store.query("things", store.embedder.embed_query("anything"), k=5) == []
    assert store.query("things", store.embedder.embed_query("anything"), k=5, where={"n": 1}) == []
    assert store.get("things") == [] and store.count("things") == 0


def test_invalid_or_unknown_collection_is_a_clear_error(open_store: StoreFactory) -> None:
    store = _things(open_store())
    with pytest.raises(CollectionNameError, match="3-512"):
        CollectionSpec("t", "semantic", (), "too short")
    with pytest.raises(CollectionNameError, match="invalid collection name 'no such'"):
        store.count("no such")
    with pytest.raises(UnknownCollectionError, match="'facts' is not open.*things"):
        store.upsert("facts", [Record("a", "x")])
    with pytest.raises(UnknownCollectionError):
        store.query("facts", store.embedder.embed_query("x"), k=1)


def test_delete_removes_only_the_named_ids(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.upsert("things", [Record("a", "one"), Record("b", "two")])
    store.delete("things", ["a", "never-existed"])
    store.delete("things", [])
    assert [r.id for r in store.get("things")] == ["b"]


def test_closed_store_refuses_calls(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.close()
    store.close()
    with pytest.raises(StorageError, match="closed"):
        store.count("things")


@pytest.mark.parametrize("store_kind", ["embedded"], indirect=True)
def test_embedded_store_persists_across_reopen(open_store: StoreFactory) -> None:
    store = _things(open_store())
    store.upsert("things", [Record("a", "red apple", {"n": 1}), Record("b", "blue sea", {"n": 2})])
    store.close()
    reopened = _things(open_store())
    assert reopened.count("things") == 2
    (hit,) = reopened.query("things", reopened.embedder.embed_query("red apple"), k=1, where={"n": 1})
    assert hit.id == "a" and hit.similarity == pytest.approx(1.0, abs=1e-4)
    reopened.close()
    with pytest.raises(StorageError, match="embedder 'hashing' \\(dim 256\\).*dim 32"):
        _things(open_store(HashingEmbedder(32)))


@pytest.mark.parametrize(
    "store_kind", ["embedded", pytest.param("server", marks=pytest.mark.integration)], indirect=True
)
def test_documents_only_calls_never_use_chromas_default_embedding(
    open_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chromadb.api.types as chroma_types

    def refuse(self: object, input: object) -> None:  # noqa: A002
        raise AssertionError("Chroma's default embedding function was called")

    monkeypatch.setattr(chroma_types.DefaultEmbeddingFunction, "__call__", refuse)
    store = _things(open_store())
    assert isinstance(store, ChromaStore)
    client = store._client  # a raw chromadb client on the same data
    ours = client.get_collection("things", embedding_function=embedding_function(store.embedder))
    ours.add(ids=["doc"], documents=["green tea leaves"])  # no embeddings: our function embeds
    (hit,) = store.query("things", store.embedder.embed_query("green tea leaves"), k=1)
    assert hit.id == "doc" and hit.similarity == pytest.approx(1.0, abs=1e-4)
    bare = client.get_collection("things")  # chromadb rebuilds our function from the stored config
    with pytest.raises(StorageError, match="without Daemon's embedder"):
        bare.add(ids=["doc2"], documents=["no model here"])
    assert store.count("things") == 1


@pytest.mark.slow
@pytest.mark.parametrize("store_kind", ["embedded"], indirect=True)
def test_minilm_ranks_semantically_on_embedded_chroma(open_store: StoreFactory) -> None:
    from memory.embeddings import MiniLMEmbedder

    store = _things(open_store(MiniLMEmbedder()))
    texts = [
        "A man is eating a piece of bread.",
        "The girl is carrying a baby.",
        "A cheetah is running behind its prey.",
        "The stock market closed higher on Tuesday.",
        "Someone is playing the violin.",
    ]
    store.upsert("things", [Record(f"s{i}", text) for i, text in enumerate(texts)])
    hits = store.query("things", store.embedder.embed_query("A man is eating food."), k=5)
    assert hits[0].text == "A man is eating a piece of bread."
    assert hits[0].similarity == pytest.approx(0.7553, abs=0.01)
    assert hits[0].similarity > hits[1].similarity + 0.3
