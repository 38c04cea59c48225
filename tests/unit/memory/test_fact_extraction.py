"""The offline rule-based fact extractor: durable facts in, passing states, questions and what-ifs out.

Moves ("moved to", "I'm moving to"), birthplaces, growing up, "I joined", "I started working at", "I turned
40", "people call me", "I'm (not) a fan of", "I've never liked", "I prefer", "my dream is to" and "I'm
<adjective>" are read by the grammar reader's parse, not by rules (their rules were deleted once the parse
read them as well on every set); those phrasings are tested here through `reader`, the grammar reader with
the rules that Daemon runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.ports import FACT_CATEGORIES, ExtractedFact, FactExtractor
from core.relations import canonical_relation
from eval.facts_report import load_items
from eval.facts_report import precision_recall as report_precision_recall
from memory.facts.extraction import RuleFactExtractor
from memory.facts.grammar import GrammarFactExtractor

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def extractor() -> RuleFactExtractor:
    return RuleFactExtractor()


def triples(extractor: FactExtractor, text: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in extractor.extract(text)}


def only(extractor: FactExtractor, text: str) -> ExtractedFact:
    (fact,) = extractor.extract(text)
    return fact


# ------------------------------------------------------------------------------------------------- basics
def test_it_is_a_fact_extractor(extractor: RuleFactExtractor) -> None:
    typed: FactExtractor = extractor
    assert typed.extract("") == [] and typed.extract("   ") == []


def test_where_the_user_lives_is_a_user_fact(extractor: RuleFactExtractor) -> None:
    fact = only(extractor, "I live in Denver.")
    assert (fact.subject, fact.predicate, fact.object) == ("user", "lives in", "Denver")
    assert (fact.category, fact.scope, fact.confidence, fact.negated) == ("location", "user", 0.9, False)
    assert fact.excerpt == "I live in Denver."


def test_each_sentence_of_a_message_is_read_and_excerpted(extractor: RuleFactExtractor) -> None:
    facts = extractor.extract("My name is Sam. I work at Acme Robotics!\nI'm 34 years old")
    assert [(f.predicate, f.object, f.excerpt) for f in facts] == [
        ("named", "Sam", "My name is Sam."),
        ("works at", "Acme Robotics", "I work at Acme Robotics!"),
        ("age", "34", "I'm 34 years old"),
    ]


def test_excerpts_are_capped_at_200_characters(extractor: RuleFactExtractor) -> None:
    fact = only(extractor, "I live in Denver, " + "which is a lovely place " * 20)
    assert fact.object == "Denver" and len(fact.excerpt) == 200


def test_multi_word_names_stay_whole_and_keep_their_casing(
    extractor: RuleFactExtractor, reader: GrammarFactExtractor
) -> None:
    assert triples(reader, "We moved to New York City last year.") == {("user", "moved to", "New York City")}
    assert triples(extractor, "i work at acme robotics") == {("user", "works at", "acme robotics")}
    assert triples(extractor, "I live in Portland, Oregon.") == {("user", "lives in", "Portland, Oregon")}


def test_trailing_filler_is_trimmed_from_objects(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I'm really into bouldering these days!") == {("user", "likes", "bouldering")}
    assert triples(extractor, "I've been living in Berlin for five years.") == {
        ("user", "lives in", "Berlin")
    }
    assert triples(extractor, "I'm from Lyon originally") == {("user", "is from", "Lyon")}


def test_coordinated_objects_become_separate_facts(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I like hiking and jazz.") == {
        ("user", "likes", "hiking"),
        ("user", "likes", "jazz"),
    }
    assert triples(extractor, "I live in Denver and work at Acme.") == {
        ("user", "lives in", "Denver"),
        ("user", "works at", "Acme"),
    }


def test_lowercase_curly_apostrophes_and_im_are_understood(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "i’m a nurse") == {("user", "is a", "nurse")}
    assert triples(extractor, "Im 22 years old") == {("user", "age", "22")}
    assert triples(extractor, "my dog’s name is rex") == {("my dog", "named", "rex")}


def test_every_fact_has_a_known_category_and_scope(extractor: RuleFactExtractor) -> None:
    for item in _load("facts_labelled.yaml"):
        text = item["text"]
        assert isinstance(text, str)
        for fact in extractor.extract(text):
            assert fact.category in FACT_CATEGORIES and fact.scope in ("user", "entity")
            assert (fact.scope == "user") == (fact.subject == "user")


# ------------------------------------------------------------------------------------------ people, pets
def test_family_members_are_named_through_the_possessive_role(extractor: RuleFactExtractor) -> None:
    for text in ("My sister's name is Jo.", "Jo is my sister.", "My sister is called Jo."):
        assert triples(extractor, text) == {("my sister", "named", "Jo")}, text
    assert triples(extractor, "My wife is Ana.") == {("my wife", "named", "Ana")}
    assert triples(extractor, "I'm married to Chris.") == {("my spouse", "named", "Chris")}


def test_facts_about_a_family_member_keep_them_as_subject(extractor: RuleFactExtractor) -> None:
    fact = only(extractor, "My mom lives in Lyon.")
    assert (fact.subject, fact.predicate, fact.object, fact.scope) == ("my mom", "lives in", "Lyon", "entity")
    assert fact.category == "family"
    assert triples(extractor, "My sister Jo is a nurse and she loves tennis.") == {
        ("my sister", "named", "Jo"),
        ("Jo", "is a", "nurse"),
        ("Jo", "likes", "tennis"),
    }


def test_counts_of_children_are_attributes_not_people(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I have two kids.") == {("user", "number of children", "2")}


def test_pets_are_recorded_by_name_with_their_kind(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I have a dog named Rex.") == {("user", "has a dog", "Rex")}
    assert triples(extractor, "My cat Pepper loves tuna.") == {
        ("my cat", "named", "Pepper"),
        ("Pepper", "likes", "tuna"),
    }
    assert triples(extractor, "We adopted a kitten called Luna.") == {
        ("user", "has pet", "Luna"),
        ("Luna", "is a", "kitten"),
    }
    assert {f.category for f in extractor.extract("I have two cats, Milo and Otis.")} == {"pets"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Actually, Sam moved to Porto last week.", {("Sam", "moved to", "Porto")}),
        ("Jo now lives in Denver.", {("Jo", "lives in", "Denver")}),
        ("Tom studies at MIT", {("Tom", "studies at", "MIT")}),
        ("Ben is an engineer at Spotify", {("Ben", "is a", "engineer"), ("Ben", "works at", "Spotify")}),
    ],
)
def test_a_named_persons_home_work_and_studies_are_facts_about_them(
    reader: GrammarFactExtractor, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert triples(reader, text) == expected
    assert {f.scope for f in reader.extract(text)} == {"entity"}


@pytest.mark.parametrize(
    "text",
    [
        "Python is a language that Google uses",  # not a person's job
        "Monday works for me",
        "Sam loves hiking in the Alps",  # tastes of others are not recorded from their own clause
        "Netflix has a new show",
        "sam moved to porto",  # no capitals: nothing says "sam" is a name
        "He moved to Porto",
    ],
)
def test_other_capitalised_subjects_teach_nothing(extractor: RuleFactExtractor, text: str) -> None:
    assert extractor.extract(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I just got engaged to Maria", ("my fiance", "named", "Maria")),
        ("I got married to Ben in June", ("my spouse", "named", "Ben")),
    ],
)
def test_new_jobs_and_engagements(
    extractor: RuleFactExtractor, text: str, expected: tuple[str, str, str]
) -> None:
    assert triples(extractor, text) == {expected}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # chatter after a comma or a dash is not part of the fact
        ("I'm allergic to shellfish, like properly allergic", {("user", "allergic to", "shellfish")}),
        ("my favourite band is Low, no question", {("user", "likes", "Low")}),
        ("I work at Acme Labs, mostly remote", {("user", "works at", "Acme Labs")}),
        # chat drops the subject
        ("Just got hired by Stripe!!", {("user", "works at", "Stripe")}),
        ("Living in Lima these days", {("user", "lives in", "Lima")}),
        # 'we', 'she's', 'I've never', 'not my thing'
        ("We've got a canoe", {("user", "owns", "canoe")}),
        (
            "My sister's name is Ada and she's a pilot",
            {("my sister", "named", "Ada"), ("my sister", "is a", "pilot")},
        ),
        ("Karaoke is just not my thing", {("user", "dislikes", "Karaoke")}),
        ("We adopted Biscuit last week!", {("user", "has pet", "Biscuit")}),
        ("One of my resolutions is to swim twice a week", {("user", "wants to", "swim twice a week")}),
        (
            "quick intro: I'm Noor, 41, and a pharmacist",
            {("user", "named", "Noor"), ("user", "age", "41"), ("user", "is a", "pharmacist")},
        ),
        ("doing my PhD at Leiden University, mostly on bats", {("user", "studies at", "Leiden University")}),
        ("my grandpa only speaks Welsh", {("my grandpa", "speaks", "Welsh")}),
        ("I have a gecko named Zap, any tips?", {("user", "has pet", "Zap"), ("Zap", "is a", "gecko")}),
        ("i work at a cafe called Beans", {("user", "works at", "Beans")}),
        ("We adopted a whippet called Dot", {("user", "has pet", "Dot"), ("Dot", "is a", "whippet")}),
        ("Got promoted to head chef at Nopi", {("user", "is a", "head chef"), ("user", "works at", "Nopi")}),
        ("my missus is a dentist", {("my wife", "is a", "dentist")}),
        ("My mum's a retired nurse", {("my mum", "is a", "retired nurse")}),
        ("My favourite colour is teal 💚 if that helps", {("user", "likes", "teal")}),
        ("fwiw I'm 31 and a pediatric nurse", {("user", "age", "31"), ("user", "is a", "pediatric nurse")}),
        (
            "I'm a 28-year-old grad student from Lagos",
            {("user", "age", "28"), ("user", "is a", "grad student"), ("user", "is from", "Lagos")},
        ),
        ("Just bought a Kindle, what should I read first?", {("user", "owns", "Kindle")}),
        ("hoping to learn the cello by 2027", {("user", "wants to", "learn the cello")}),
        ("Goal for this year: run a marathon", {("user", "wants to", "run a marathon")}),
        ("I've gotten really into pottery", {("user", "likes", "pottery")}),
        ("I own a Honda Civic, 2015 model", {("user", "owns", "Honda Civic")}),
        ("we have a beagle, Toast, who snores", {("user", "has pet", "Toast"), ("Toast", "is a", "beagle")}),
        (
            "my brother Tim, who is a pilot, lives in Oslo",
            {("my brother", "named", "Tim"), ("Tim", "is a", "pilot"), ("Tim", "lives in", "Oslo")},
        ),
        ("My other half, Chris, is a chef", {("my partner", "named", "Chris"), ("Chris", "is a", "chef")}),
        # names set off by commas, and "a <kind> named <name>"
        ("My manager, Aisha, is the best", {("my manager", "named", "Aisha")}),
        ("Rex, our dog, is terrified of fireworks", {("my dog", "named", "Rex")}),
        ("My aunt (Rosa) is visiting", {("my aunt", "named", "Rosa")}),
        ("My cat is a tabby named Miso", {("my cat", "named", "Miso"), ("Miso", "is a", "tabby")}),
    ],
)
def test_chatty_phrasing(
    extractor: RuleFactExtractor, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert triples(extractor, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Bristol in March — still unpacking", {("user", "moved to", "Bristol")}),
        (
            "My husband and I just moved to Galway",
            {("user", "moved to", "Galway"), ("my husband", "moved to", "Galway")},
        ),
        ("been vegetarian since 2015, so no bacon", {("user", "is a", "vegetarian")}),
        ("just moved into a flat in Brighton!!", {("user", "moved to", "Brighton")}),
        ("I started working at Stripe last month", {("user", "works at", "Stripe")}),
        ("big fan of Agatha Christie novels", {("user", "likes", "Agatha Christie novels")}),
        ("Honestly I've never liked opera", {("user", "dislikes", "opera")}),
        ("grew up in Porto, live in Lyon now", {("user", "is from", "Porto"), ("user", "lives in", "Lyon")}),
        ("My dad just turned sixty-one and still cycles", {("my dad", "age", "61")}),
    ],
)
def test_chatty_moves_and_identities_are_read_by_the_parse(
    reader: GrammarFactExtractor, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert triples(reader, text) == expected


def test_used_to_then_now(extractor: RuleFactExtractor) -> None:
    facts = extractor.extract("used to live in Denver, now in Austin")
    assert {(f.object, f.negated) for f in facts} == {("Denver", True), ("Austin", False)}


def test_quoted_text_is_not_the_users_statement(extractor: RuleFactExtractor) -> None:
    assert extractor.extract("Translate 'I live in Madrid and I have two cats' into Spanish") == []
    assert triples(extractor, 'My dog is called "Rex".') == {("my dog", "named", "Rex")}


# ---------------------------------------------------------------------------- negation and corrections
@pytest.mark.parametrize(
    "text, predicate, obj",
    [
        ("I no longer work at Acme.", "works at", "Acme"),
        ("I don't live in Boston anymore.", "lives in", "Boston"),
        ("I used to live in Boston.", "lives in", "Boston"),
        ("I quit my job at Walmart.", "works at", "Walmart"),
        ("I don't have a car.", "owns", "car"),
        ("I'm no longer a nurse.", "is a", "nurse"),
    ],
)
def test_negated_statements_are_marked_negated(
    extractor: RuleFactExtractor, text: str, predicate: str, obj: str
) -> None:
    fact = only(extractor, text)
    assert (fact.subject, fact.predicate, fact.object, fact.negated) == ("user", predicate, obj, True)


def test_dislikes_are_facts_in_their_own_right_not_negations(extractor: RuleFactExtractor) -> None:
    fact = only(extractor, "I don't like horror movies.")
    assert (fact.predicate, fact.object, fact.negated) == ("dislikes", "horror movies", False)


def test_a_correction_records_the_value_it_replaces(extractor: RuleFactExtractor) -> None:
    fact = only(extractor, "My dog's name is Rex, not Max.")
    assert (fact.subject, fact.predicate, fact.object, fact.replaces) == ("my dog", "named", "Rex", "Max")
    fact = only(extractor, "I live in Denver now, not Boston.")
    assert (fact.object, fact.replaces, fact.negated) == ("Denver", "Boston", False)


def test_actually_moving_is_a_plain_fact(reader: GrammarFactExtractor) -> None:
    fact = only(reader, "actually I moved to Denver")
    assert (fact.subject, fact.predicate, fact.object, fact.confidence) == ("user", "moved to", "Denver", 0.9)
    assert canonical_relation(fact.predicate) == ("lives_in", False)


@pytest.mark.parametrize(
    "text", ["I think I'll move to Lisbon.", "Maybe I'll move to Lisbon.", "I'm probably moving to Lisbon."]
)
def test_hedged_statements_have_lower_confidence(reader: GrammarFactExtractor, text: str) -> None:
    fact = only(reader, text)
    assert canonical_relation(fact.predicate)[0] == "lives_in" and fact.object == "Lisbon"
    assert 0.6 <= fact.confidence <= 0.7


# ------------------------------------------------------------------------------------------- non-facts
@pytest.mark.parametrize(
    "text",
    [
        "I'm tired.",
        "I'm feeling sad today.",
        "I'm eating lunch.",
        "I'm watching a movie right now.",
        "I'm at the store.",
        "I'm working on my homework right now.",
        "I have a headache.",
        "I have a question about Python.",
        "I want to know the weather in London.",
        "I love this!",
        "My sister is visiting this weekend.",
    ],
)
def test_passing_states_and_requests_are_not_facts(extractor: RuleFactExtractor, text: str) -> None:
    assert extractor.extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Do I live in Denver?",
        "Where do I work?",
        "where do i live",
        "did i tell you my name",
        "If I lived in Paris, I'd eat croissants.",
        "I wish I had a dog.",
        "Imagine I had a cat named Tom.",
        "I should move to Seattle.",
        "My friend said Tokyo is expensive.",
        "My coworker thinks I work too much.",
        "He lives in Boston and works at Fidelity.",
        "Elon Musk owns Tesla.",
    ],
)
def test_questions_hypotheticals_and_hearsay_are_not_facts(extractor: RuleFactExtractor, text: str) -> None:
    assert extractor.extract(text) == []


def test_a_hypothetical_clause_does_not_hide_a_real_one(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I live in Denver, but if I could I'd live in Paris.") == {
        ("user", "lives in", "Denver")
    }


# -------------------------------------------------------------------------------------------- schedules
def test_routines_and_appointments_are_schedules(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I go to the gym every Monday.") == {
        ("user", "goes to the gym", "every Monday")
    }
    assert triples(extractor, "I have yoga on Tuesdays.") == {("user", "yoga", "every Tuesday")}
    assert triples(extractor, "On weekends I volunteer.") == {("user", "volunteers", "every weekend")}
    fact = only(extractor, "My dentist appointment is on March 3.")
    assert (fact.predicate, fact.object, fact.category) == ("dentist appointment", "March 3", "schedules")


def test_a_one_off_past_event_is_not_a_routine(extractor: RuleFactExtractor) -> None:
    assert triples(extractor, "I went hiking on Monday.") == set()


# ------------------------------------------------------------------------------------ labelled figures
def _load(name: str) -> list[dict[str, object]]:
    return load_items(DATA / name)


def precision_recall(extractor: RuleFactExtractor, name: str) -> tuple[float, float]:
    """`eval.facts_report`'s micro precision/recall over one labelled file of `tests/data`."""
    return report_precision_recall(extractor, DATA / name)


def test_labelled_set_is_big_and_balanced_enough() -> None:
    items = _load("facts_labelled.yaml")
    counts = {category: 0 for category in (*FACT_CATEGORIES, "none")}
    for item in items:
        counts[str(item["category"])] += 1
    assert len(items) >= 90 and counts["none"] >= 25
    assert min(counts[category] for category in FACT_CATEGORIES) >= 8


def test_precision_and_recall_on_the_labelled_set(extractor: RuleFactExtractor) -> None:
    """Measured 1.00 / 1.00 (tuned on it); 1.00 / 0.91 once the rules the parse covers were deleted (the
    grammar reader with the rules keeps 0.99 / 0.99, `test_grammar_facts`)."""
    precision, recall = precision_recall(extractor, "facts_labelled.yaml")
    assert precision >= 0.97 and recall >= 0.89, (precision, recall)


def test_precision_and_recall_on_the_held_out_set(extractor: RuleFactExtractor) -> None:
    """Written after tuning and never tuned towards: first measurement 0.95 precision, 0.83 recall
    (0.98 / 0.91 after the chat-phrasing changes, which were made on other sets; 1.00 / 0.83 once the rules
    the parse covers were deleted)."""
    precision, recall = precision_recall(extractor, "facts_heldout.yaml")
    assert precision >= 0.9 and recall >= 0.78, (precision, recall)


def test_precision_and_recall_on_chat_style_messages(extractor: RuleFactExtractor) -> None:
    """Chat phrasing written without the code. Tuned on the two dev sets (first runs 0.80/0.53 and
    0.81/0.38); the blind set is only measured (0.69/0.37 before, 0.77/0.55 now): offline rules still miss
    much of how people chat. With the rules the parse covers deleted (see the module docstring), the rules
    alone measure 0.95/0.76, 0.95/0.66 and 0.75/0.50; what Daemon runs is the grammar reader with these
    rules (`test_grammar_facts`)."""
    for name, min_precision, min_recall in (
        ("facts_chat_dev.yaml", 0.93, 0.74),
        ("facts_chat_dev2.yaml", 0.92, 0.64),
        ("facts_chat_blind.yaml", 0.72, 0.48),
    ):
        precision, recall = precision_recall(extractor, name)
        assert precision >= min_precision and recall >= min_recall, (name, precision, recall)


# Time per message is measured by `python -m eval.facts_report` (ms per message for each reader), not
# asserted here: a loaded machine stretches it. The guards below only catch a hang.
@pytest.mark.parametrize(
    "text",
    [
        "'" + "a b c " * 30_000,  # an unclosed quote once made the quoted-text pattern cubic
        "I'm Priya, 29, " * 10_000,
        "I live in " + "very " * 40_000,
        "My wife and I " * 12_000 + "live in Paris",
        "my son Ethan, who's " * 8_000,
    ],
)
def test_long_adversarial_messages_stay_linear(extractor: RuleFactExtractor, text: str) -> None:
    # A guard against catastrophic backtracking, not a speed target: these take well under a second.
    start = time.perf_counter()
    extractor.extract(text)
    assert time.perf_counter() - start < 10
