"""The BM25 index and its tokenizer."""

from __future__ import annotations

import math

import pytest

from memory.bm25 import STOPWORDS, BM25Index, porter_stem, tokenize


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("cats", "cat"),
        ("agreed", "agre"),
        ("hopping", "hop"),
        ("filing", "file"),
        ("happy", "happi"),
        ("relational", "relat"),
        ("hopefulness", "hope"),
        ("adoption", "adopt"),
        ("adjustment", "adjust"),
        ("controll", "control"),
        ("sky", "sky"),
    ],
)
def test_porter_stemmer_matches_the_published_examples(word: str, stem: str) -> None:
    assert porter_stem(word) == stem


def test_inflections_share_a_stem() -> None:
    assert {porter_stem(w) for w in ("hike", "hiking", "hiked", "hikes")} == {"hike"}
    assert {porter_stem(w) for w in ("paint", "painting", "paintings", "painted")} == {"paint"}


def test_short_and_numeric_tokens_are_left_alone() -> None:
    assert porter_stem("is") == "is"
    assert porter_stem("2023") == "2023"


def test_tokenize_lowercases_drops_stopwords_and_contractions() -> None:
    tokens = tokenize("Caroline's going to the LGBTQ support-group; she didn't stay!")
    assert tokens == ["carolin", "go", "lgbtq", "support", "group", "stai"]
    assert tokenize("Melanie\u2019s kids") == ["melani", "kid"]


def test_tokenize_options() -> None:
    assert tokenize("The paintings", stem=False) == ["paintings"]
    assert tokenize("The paintings", stopwords=frozenset()) == ["the", "paint"]
    assert "the" in STOPWORDS


def corpus() -> BM25Index:
    index = BM25Index()
    index.add_many(
        [
            ("a", "Caroline went to a support group yesterday"),
            ("b", "Melanie painted a sunrise over the lake"),
            ("c", "The lake was calm and the lake was cold"),
        ]
    )
    return index


def test_matching_document_ranks_first() -> None:
    index = corpus()
    assert index.search("support group", k=3)[0][0] == "a"
    assert index.search("painting the sunrise")[0][0] == "b"


def test_only_positive_scores_are_returned() -> None:
    assert [doc for doc, _ in corpus().search("lake")] == ["c", "b"]
    assert corpus().search("nothing matches this") == []


def test_score_matches_the_okapi_formula() -> None:
    index = BM25Index(k1=1.2, b=0.75, tokenizer=str.split)
    index.add_many([("x", "apple banana apple"), ("y", "banana cherry")])
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    avg = 2.5
    expected = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / avg))
    assert index.scores("apple")[0] == pytest.approx(expected)
    assert index.scores("apple")[1] == 0.0


def test_score_map_holds_only_matching_documents() -> None:
    index = corpus()
    scores = index.scores("lake")
    assert index.score_map("lake") == {"b": scores[1], "c": scores[2]}
    assert index.score_map("lake", subset=["c"]) == {"c": scores[2]}


def test_rare_terms_weigh_more() -> None:
    index = corpus()
    assert index.idf("lake") < index.idf("sunris")
    assert index.idf("never-seen") > index.idf("lake")


def test_incremental_add_updates_statistics() -> None:
    index = corpus()
    before = index.idf("lake")
    index.add("d", "another lake story")
    assert len(index) == 4 and index.ids[-1] == "d"
    assert index.idf("lake") < before


def test_readding_an_id_raises() -> None:
    index = corpus()
    with pytest.raises(ValueError, match="already indexed"):
        index.add("a", "again")


def test_subset_restricts_scoring() -> None:
    index = corpus()
    scores = index.scores("lake", subset=["b", "unknown"])
    assert scores[1] > 0 and scores[2] == 0.0
    assert [doc for doc, _ in index.search("lake", subset=["b"])] == ["b"]


def test_pretokenised_queries_repeat_terms_for_weight() -> None:
    index = corpus()
    once = index.scores(["lake"])
    twice = index.scores(["lake", "lake"])
    assert twice[2] == pytest.approx(2 * once[2])


def test_terms_of_and_empty_index() -> None:
    index = corpus()
    assert index.terms_of("c")["lake"] == 2
    empty = BM25Index()
    assert empty.scores("anything") == [] and empty.search("anything") == []


def test_upsert_replaces_a_document_without_drifting_statistics() -> None:
    from memory.bm25 import BM25Index

    fresh = BM25Index()
    fresh.add_many([("a", "blue ocean waves"), ("b", "red apple pie"), ("c", "new document")])
    updated = BM25Index()
    updated.add_many([("a", "green forest trail"), ("b", "red apple pie")])
    updated.upsert("a", "blue ocean waves")
    updated.upsert("c", "new document")
    assert updated.score_map("ocean apple new") == fresh.score_map("ocean apple new")
    assert updated.score_map("forest") == {}
    assert len(updated) == 3
