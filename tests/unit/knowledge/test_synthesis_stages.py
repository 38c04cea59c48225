"""Each of the seven stages, on constructed candidates that must pass or fail it."""

from __future__ import annotations

import asyncio

import pytest

from core.nlp import SpacyPipeline
from core.ports import KnownText
from knowledge.synthesis.candidate import Candidate, Endpoint
from knowledge.synthesis.domains import UNASSIGNED, DomainReader
from knowledge.synthesis.judge import CoherenceJudge
from knowledge.synthesis.stages import EarlierBridges, FilterSettings, SynthesisFilter, has_clause
from memory.embeddings import MiniLMEmbedder
from tests.unit.knowledge.synthesis_helpers import rule_provider

pytestmark = pytest.mark.slow  # real MiniLM and spaCy

STARTER = Endpoint(
    "My sourdough starter only stays alive if I feed it flour and water every day.", "m1", "facts"
)
SAVINGS = Endpoint(
    "My savings only keep growing if I put a small amount into the account every week.", "m2", "facts"
)
BRIDGE = (
    "A sourdough starter and a savings account both stay alive on small, regular feeding rather than "
    "one big effort."
)


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


@pytest.fixture(scope="module")
def nlp() -> SpacyPipeline:
    return SpacyPipeline()


def make_filter(embedder, nlp, *, known=None, judge=None, fluency=None, **settings) -> SynthesisFilter:
    return SynthesisFilter(
        embedder.embed,
        DomainReader(embedder.embed),
        has_clause(nlp),
        known or (lambda vector, k: []),
        judge=judge,
        fluency=fluency,
        settings=FilterSettings(**settings),
    )


def read_one(f: SynthesisFilter, candidate: Candidate, earlier: EarlierBridges | None = None):
    return asyncio.run(f.read([candidate], earlier or EarlierBridges()))[0]


def test_a_sentence_that_names_both_sides_passes_text_sanity(embedder, nlp) -> None:
    result = make_filter(embedder, nlp).sanity(Candidate(STARTER, SAVINGS, BRIDGE, "retrieval"))
    assert result.passed, result


@pytest.mark.parametrize(
    ("bridge", "why"),
    [
        ("Starter savings.", "words in the bridge"),
        (
            "Flour quantum violin mortgage telescope sourdough savings bamboo account compost rhythm.",
            "function",
        ),
        ("Savings savings savings starter starter starter savings starter savings the of and.", "repeats"),
        ("The weather in Lisbon was warm and pleasant for the whole of the long weekend.", "does not name"),
        (
            "Of the sourdough and the savings, with a regular small amount of flour for the account.",
            "no verb",
        ),
    ],
)
def test_text_sanity_stops_fragments_salad_repetition_and_bridges_to_nowhere(
    embedder, nlp, bridge, why
) -> None:
    result = make_filter(embedder, nlp).sanity(Candidate(STARTER, SAVINGS, bridge, "retrieval"))
    assert not result.passed
    assert why in result.note


@pytest.fixture(scope="module")
def fluency():
    """The embedded model's reading of word order (fluency.py), as the app builds it."""
    import os

    from core.providers.converted_model import cache_root
    from core.providers.local import LocalModelProvider
    from knowledge.synthesis.fluency import FluencyReader

    local = LocalModelProvider(converted_root=cache_root(dict(os.environ)))
    return FluencyReader(local.reply_logprobs).margin


def test_a_shuffled_sentence_that_names_both_sides_stops_at_text_sanity_by_its_word_order(
    embedder, nlp, fluency
) -> None:
    words = "flour the alive feed I if water every only my stays day starter sourdough and savings it".split()
    salad = Candidate(STARTER, SAVINGS, " ".join(words) + ".", "x")
    assert make_filter(embedder, nlp).sanity(salad).passed  # the cheap checks alone let it through
    result = make_filter(embedder, nlp, fluency=fluency).sanity(salad)
    assert not result.passed and "no sensible order" in result.note
    assert result.figure is not None and result.figure < 2.0
    sentence = make_filter(embedder, nlp, fluency=fluency).sanity(Candidate(STARTER, SAVINGS, BRIDGE, "x"))
    assert sentence.passed and sentence.figure is not None and sentence.figure >= 2.0


def test_domains_are_read_by_meaning_and_vague_text_stays_unassigned(embedder) -> None:
    reader = DomainReader(embedder.embed)
    starter, savings, vague = reader.read([STARTER.text, SAVINGS.text, "Yes, that one, later maybe."])
    assert starter.domain == "food and cooking"
    assert savings.domain == "money and finance"
    assert vague.domain == UNASSIGNED


def test_domain_crossing_needs_two_distinct_clear_domains(embedder, nlp) -> None:
    f = make_filter(embedder, nlp)
    assert f.crossing(("food and cooking", "money and finance")).passed
    same = f.crossing(("food and cooking", "food and cooking"))
    assert not same.passed and "both in food and cooking" in same.note
    assert not f.crossing(("music", UNASSIGNED)).passed


def test_a_same_domain_pair_stops_at_domain_crossing(embedder, nlp) -> None:
    dough = Endpoint("Bread dough has to rest in the fridge overnight before it bakes well.", "m3", "facts")
    bridge = "A sourdough starter and bread dough both need patience before they bake well in the oven."
    reading = read_one(make_filter(embedder, nlp), Candidate(STARTER, dough, bridge, "graph_walk"))
    assert reading.rejected_at == "domain_crossing"


@pytest.mark.parametrize(("similarity", "passed"), [(0.95, False), (0.5, True), (0.3, True), (0.02, False)])
def test_semantic_distance_keeps_the_band(embedder, nlp, similarity, passed) -> None:
    result = make_filter(embedder, nlp).distance(similarity)
    assert result.passed is passed
    assert result.figure == pytest.approx(1 - similarity, abs=1e-4)


def test_external_novelty_rejects_what_is_already_known_but_not_the_endpoints_themselves(
    embedder, nlp
) -> None:
    known_text = KnownText("doc-1", "reference_docs", "Savings and starters both need regular feeding.")
    candidate = Candidate(STARTER, SAVINGS, BRIDGE, "retrieval")
    vector = embedder.embed([BRIDGE])[0]
    known = make_filter(embedder, nlp, known=lambda v, k: [(known_text, 0.91)]).external(candidate, vector)
    assert not known.passed and known.figure == pytest.approx(0.91) and "already known" in known.note
    own = KnownText("m1", "facts", STARTER.text)
    itself = make_filter(embedder, nlp, known=lambda v, k: [(own, 0.97)]).external(candidate, vector)
    assert itself.passed


def test_internal_novelty_marks_duplicates_and_convergence(embedder, nlp) -> None:
    f = make_filter(embedder, nlp)
    earlier = EarlierBridges()
    vector = embedder.embed([BRIDGE])[0]
    earlier.add("syn-earlier", "graph_walk", vector)
    same = f.internal(Candidate(STARTER, SAVINGS, BRIDGE, "graph_walk"), vector, earlier)
    assert not same[0].passed and same[1] == "syn-earlier" and "found before" in same[0].note
    other = f.internal(Candidate(STARTER, SAVINGS, BRIDGE, "retrieval"), vector, earlier)
    assert "rediscovered by another generator" in other[0].note
    new = f.internal(Candidate(STARTER, SAVINGS, BRIDGE, "retrieval"), -vector, earlier)
    assert new[0].passed


def test_without_a_judge_a_candidate_that_passed_the_offline_stages_waits(embedder, nlp) -> None:
    reading = read_one(make_filter(embedder, nlp), Candidate(STARTER, SAVINGS, BRIDGE, "retrieval"))
    assert reading.outcome == "waiting"
    assert [s.stage for s in reading.stages] == [
        "text_sanity", "domain_crossing", "semantic_distance", "external_novelty", "internal_novelty"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rating", "outcome"), [("WEAK", "rejected"), ("INVALID", "rejected"), ("STRONG", "passed")]
)
def test_the_coherence_judge_needs_moderate_or_better(embedder, nlp, rating, outcome) -> None:
    judge = CoherenceJudge(rule_provider(rating))
    reading = read_one(
        make_filter(embedder, nlp, judge=judge), Candidate(STARTER, SAVINGS, BRIDGE, "retrieval")
    )
    assert reading.outcome == outcome
    coherence = next(s for s in reading.stages if s.stage == "coherence")
    assert coherence.note.startswith(rating)


def test_the_composite_threshold_can_stop_a_judged_candidate(embedder, nlp) -> None:
    judge = CoherenceJudge(rule_provider("MODERATE"))
    strict = make_filter(embedder, nlp, judge=judge, composite_threshold=0.99)
    reading = read_one(strict, Candidate(STARTER, SAVINGS, BRIDGE, "retrieval"))
    assert reading.rejected_at == "composite"
    assert reading.composite is not None and 0 < reading.composite < 0.99
    lenient = read_one(make_filter(embedder, nlp, judge=judge, composite_threshold=0.3), reading.candidate)
    assert lenient.outcome == "passed" and lenient.stages[-1].stage == "composite"


def test_without_a_working_local_model_word_order_is_not_checked_and_says_so(embedder, nlp) -> None:
    from core.errors import ProviderError

    def broken(text: str) -> float:
        raise ProviderError("the embedded model file is missing", provider="local")

    result = make_filter(embedder, nlp, fluency=broken).sanity(Candidate(STARTER, SAVINGS, BRIDGE, "x"))
    assert result.passed and "word order not checked" in result.note and "missing" in result.note
