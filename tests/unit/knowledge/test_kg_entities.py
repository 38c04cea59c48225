"""Entity resolution: multi-word entities, possessive aliases, longest match first, case-insensitivity."""

from __future__ import annotations

from collections.abc import Callable

from core.relations import USER_ID
from knowledge.entities import EntityResolver
from knowledge.graph import KnowledgeGraph
from knowledge.graph_facts import ingest_triples


def spans(resolver: EntityResolver, text: str) -> list[tuple[str, str]]:
    return [(m.entity_id, m.text) for m in resolver.resolve(text)]


def test_multi_word_entities_resolve_as_one(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    assert spans(resolver, "Is Aunt May still in New York?") == [
        ("aunt_may", "Aunt May"),
        ("new_york", "New York"),
    ]


def test_resolution_ignores_case_and_punctuation(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    assert spans(resolver, "AUNT-MAY... new york!! jo's") == [
        ("aunt_may", "AUNT-MAY"),
        ("new_york", "new york"),
        ("jo", "jo's"),
    ]


def test_possessive_aliases_follow_the_users_relations(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    mentions = resolver.resolve("When is my sister's birthday? And did my dog eat?")
    assert [(m.entity_id, m.text, m.possessive) for m in mentions] == [
        ("jo", "my sister's", True),
        ("pepper", "my dog", True),
    ]
    assert resolver.resolve_ids("our aunt and my pet") == ["aunt_may", "pepper"]
    assert resolver.resolve_ids("my city is rainy") == ["portland"]


def test_longest_match_wins_and_matches_do_not_overlap(clock: Callable[[], float]) -> None:
    graph = KnowledgeGraph(clock)
    graph.add_entity("New York", "place")
    graph.add_entity("York", "place")
    graph.add_entity("New York University", "organization", aliases=["NYU"])
    resolver = EntityResolver(graph)
    assert spans(resolver, "she studies at New York University near York") == [
        ("new_york_university", "New York University"),
        ("york", "York"),
    ]
    assert resolver.resolve_ids("nyu or new york") == ["new_york_university", "new_york"]


def test_aliases_longer_than_three_words_still_resolve(clock: Callable[[], float]) -> None:
    graph = KnowledgeGraph(clock)
    graph.add_entity("Museum of Modern Art Library", "place")
    assert EntityResolver(graph).resolve_ids("the museum of modern art library is shut") == [
        "museum_of_modern_art_library"
    ]


def test_first_names_resolve_but_titles_and_stopwords_do_not(clock: Callable[[], float]) -> None:
    graph = KnowledgeGraph(clock)
    graph.add_entity("Caroline Smith", "person")
    graph.add_entity("Aunt May", "person")
    graph.add_entity("the", "thing")
    resolver = EntityResolver(graph)
    assert resolver.resolve_ids("Caroline may visit an aunt, the one in May") == ["caroline_smith"]


def test_the_user_resolves_only_when_asked(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    assert resolver.resolve_ids("I miss my sister") == ["jo"]
    assert resolver.resolve_ids("I miss my sister", include_user=True) == [USER_ID, "jo"]


def test_restricting_to_some_ids(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    assert resolver.resolve_ids("Jo and Aunt May in Boston", only={"boston", "jo"}) == ["jo", "boston"]
    personal_graph.add_entity("York", "place")
    assert resolver.resolve_ids("New York", only={"york"}) == []  # resolution is unchanged by `only`


def test_the_index_follows_graph_changes(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    assert resolver.resolve_ids("my brother called") == []
    ingest_triples(personal_graph, [("Sam", "is", "my brother", 0.9, "f9", None)])
    assert resolver.resolve_ids("my brother called") == ["sam"]
    assert resolver.resolve_ids("Sam called") == ["sam"]


def test_a_new_sister_makes_my_sister_ambiguous_not_wrong(personal_graph: KnowledgeGraph) -> None:
    ingest_triples(personal_graph, [("user", "has a sister", "Lee", 0.9, "f10", None)])
    assert EntityResolver(personal_graph).resolve_ids("my sister") == ["jo", "lee"]


def test_empty_and_unknown_texts(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    assert resolver.resolve("") == []
    assert resolver.resolve("nothing known here at all") == []
